// Command imagebuild writes the container image of a finance release as a
// tarball that `docker load` and `podman load` read, from the static linux
// binary goreleaser built.
//
// It assembles the image itself, with go-containerregistry, instead of
// through goreleaser's dockers (which need a Docker engine) or kos (which
// pull a base image from a registry, and whose snapshots go to the local
// engine): the binary is static and needs no base image, so the image is
// built from scratch, on a machine with neither an engine nor a registry.
//
// The image: the binary at /usr/bin/finance, run as the unprivileged user
// finance (uid and gid 65532, as distroless's nonroot), the data directory
// /data as a volume, listening on 0.0.0.0:8080, the build machine's CA
// certificates (for exchange rates, AI services and Telegram over HTTPS),
// an empty /tmp, and a health check run by the binary itself (`finance
// healthcheck`), since the image has no shell and no curl.
package main

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// The image's layout: where things are and who owns them.
const (
	binaryPath = "/usr/bin/finance"
	dataDir    = "/data"
	listenPort = "8080"
	uid, gid   = 65532, 65532
	userName   = "finance"
	// caBundle is where Go's crypto/x509 looks first on linux.
	caBundle = "/etc/ssl/certs/ca-certificates.crt"
	source   = "https://github.com/finance-app/finance"
)

// spec is what one image is made of.
type spec struct {
	binary   string // a static linux executable for arch
	arch     string // amd64 or arm64
	version  string
	revision string    // the git commit, for the label; may be empty
	created  time.Time // the image's and its files' time: the commit's, so a rebuild is the same image
	caCerts  string    // a PEM bundle of CA certificates
}

func main() {
	var (
		s       spec
		created string
		out     string
	)
	flag.StringVar(&s.binary, "binary", "", "the static linux finance binary to put in the image (required)")
	flag.StringVar(&s.arch, "arch", "", "its architecture: amd64 or arm64 (required)")
	flag.StringVar(&s.version, "version", "", "the release's version, for the tag and the labels (required)")
	flag.StringVar(&s.revision, "revision", "", "the git commit, for the labels")
	flag.StringVar(&created, "created", "", "the image's creation time, RFC 3339 (default: now); the commit's time makes rebuilds identical")
	flag.StringVar(&s.caCerts, "ca-certs", caBundle, "the PEM bundle of CA certificates to put in the image")
	flag.StringVar(&out, "out", "", "the tarball to write (required)")
	flag.Parse()
	if err := run(s, created, out); err != nil {
		fmt.Fprintln(os.Stderr, "imagebuild:", err)
		os.Exit(1)
	}
}

func run(s spec, created, out string) error {
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if out == "" {
		return errors.New("-out: required")
	}
	s.created = time.Now().UTC().Truncate(time.Second)
	if created != "" {
		t, err := time.Parse(time.RFC3339, created)
		if err != nil {
			return fmt.Errorf("-created %q: want RFC 3339, such as 2026-11-27T08:00:00Z", created)
		}
		// goreleaser gives the zero time, and "none" for the commit, when
		// it cannot read the git state (a snapshot in a clone without a
		// remote): such an image is dated now and names no revision.
		if !t.IsZero() {
			s.created = t.UTC()
		}
	}
	if s.revision == "none" {
		s.revision = ""
	}
	img, err := build(s)
	if err != nil {
		return err
	}
	if err := write(img, s.version, out); err != nil {
		return err
	}
	fmt.Printf("imagebuild: wrote %s (%s)\n", out, imageTag(s.version))
	return nil
}

// elfMachines are the architectures an image is built for, with the ELF
// machine their binary must have.
var elfMachines = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}

// build assembles the image of s: one layer of what every version shares
// (users, certificates, directories) and one of the binary, so an upgrade
// loads only the second.
func build(s spec) (v1.Image, error) {
	machine, ok := elfMachines[s.arch]
	if !ok {
		return nil, fmt.Errorf("-arch %q: want amd64 or arm64", s.arch)
	}
	if s.version == "" {
		return nil, errors.New("-version: required")
	}
	if s.binary == "" {
		return nil, errors.New("-binary: required")
	}
	binary, err := readELF(s.binary, machine)
	if err != nil {
		return nil, fmt.Errorf("-binary: %w", err)
	}
	certs, err := os.ReadFile(s.caCerts)
	if err != nil {
		return nil, fmt.Errorf("-ca-certs: %w", err)
	}
	if !bytes.Contains(certs, []byte("-----BEGIN CERTIFICATE-----")) {
		return nil, fmt.Errorf("-ca-certs: %s holds no PEM certificate", s.caCerts)
	}

	base := []file{
		{name: "etc/", mode: 0o755},
		{name: "etc/passwd", mode: 0o644, body: []byte("root:x:0:0:root:/root:/sbin/nologin\n" +
			fmt.Sprintf("%s:x:%d:%d:%s:%s:/sbin/nologin\n", userName, uid, gid, userName, dataDir))},
		{name: "etc/group", mode: 0o644, body: []byte(fmt.Sprintf("root:x:0:\n%s:x:%d:\n", userName, gid))},
		{name: "etc/ssl/", mode: 0o755},
		{name: "etc/ssl/certs/", mode: 0o755},
		{name: caBundle[1:], mode: 0o644, body: certs},
		// The server's own temporary files live in the data directory; /tmp
		// is for anything else that asks os.TempDir.
		{name: "tmp/", mode: 0o777 | modeSticky},
		{name: dataDir[1:] + "/", mode: 0o700, uid: uid, gid: gid},
	}
	bin := []file{
		{name: "usr/", mode: 0o755},
		{name: "usr/bin/", mode: 0o755},
		{name: binaryPath[1:], mode: 0o755, body: binary},
	}
	img := empty.Image
	for _, l := range []struct {
		files []file
		about string // what docker history shows
	}{
		{base, "users root and finance, CA certificates, /tmp, /data"},
		{bin, binaryPath + " " + s.version},
	} {
		layer, err := layer(l.files, s.created)
		if err != nil {
			return nil, err
		}
		img, err = mutate.Append(img, mutate.Addendum{
			Layer:   layer,
			History: v1.History{Created: v1.Time{Time: s.created}, CreatedBy: "imagebuild: " + l.about},
		})
		if err != nil {
			return nil, err
		}
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", s.arch
	cf.Config = imageConfig(s)
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, err
	}
	return mutate.CreatedAt(img, v1.Time{Time: s.created})
}

// modeSticky is the sticky bit in a tar header's mode (os.ModeSticky is not
// the tar format's bit).
const modeSticky = 0o1000

// imageConfig is how the image runs: as finance, serving /data on 8080,
// checked by the binary itself.
func imageConfig(s spec) v1.Config {
	labels := map[string]string{
		"org.opencontainers.image.title":       "finance",
		"org.opencontainers.image.description": "Self-hosted personal finance tracker: REST API, MCP endpoint, web app and embedded database in one binary",
		"org.opencontainers.image.version":     s.version,
		"org.opencontainers.image.created":     s.created.Format(time.RFC3339),
		"org.opencontainers.image.source":      source,
		"org.opencontainers.image.url":         source,
		"org.opencontainers.image.licenses":    "MIT",
	}
	if s.revision != "" {
		labels["org.opencontainers.image.revision"] = s.revision
	}
	return v1.Config{
		User: fmt.Sprintf("%d:%d", uid, gid), // numeric, so runAsNonRoot can tell it is not root
		Env: []string{
			"PATH=/usr/bin",
			"FINANCE_DATA_DIR=" + dataDir,
			"FINANCE_ADDR=0.0.0.0:" + listenPort,
			// The address the README's docker run publishes; links the server
			// prints and signs (setup, OAuth) use it. Set it to the address
			// people use.
			"FINANCE_BASE_URL=http://localhost:" + listenPort,
		},
		Entrypoint:   []string{binaryPath},
		Cmd:          []string{"serve"},
		WorkingDir:   dataDir,
		ExposedPorts: map[string]struct{}{listenPort + "/tcp": {}},
		Volumes:      map[string]struct{}{dataDir: {}},
		Labels:       labels,
		StopSignal:   "SIGTERM",
		Healthcheck: &v1.HealthConfig{
			Test:     []string{"CMD", binaryPath, "healthcheck"},
			Interval: 30 * time.Second,
			Timeout:  10 * time.Second,
			// A start may first back up and upgrade a large database.
			StartPeriod: time.Minute,
			Retries:     3,
		},
	}
}

// readELF reads the executable at path and checks it is a linux binary
// for machine: a darwin or arm64 build put in an amd64 image would start
// nowhere.
func readELF(path string, machine elf.Machine) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s is not a linux executable: %w", path, err)
	}
	defer f.Close()
	if f.Machine != machine {
		return nil, fmt.Errorf("%s is built for %s, want %s", path, f.Machine, machine)
	}
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return nil, fmt.Errorf("%s is not an executable (%s)", path, f.Type)
	}
	// A static binary has no interpreter; a dynamic one would need a libc
	// the image does not have.
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return nil, fmt.Errorf("%s is dynamically linked; build it with CGO_ENABLED=0", path)
		}
	}
	return b, nil
}

// file is one entry of a layer; a name ending in / is a directory.
type file struct {
	name     string
	mode     int64
	uid, gid int
	body     []byte
}

// layer makes a layer of files, every one dated modTime.
func layer(files []file, modTime time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: f.mode, Uid: f.uid, Gid: f.gid, ModTime: modTime, Format: tar.FormatPAX}
		if f.name[len(f.name)-1] == '/' {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil })
}

// tagChars are the characters a tag may not hold, as a version's "+build" may.
var tagChars = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// imageTag is the name docker load gives the image.
func imageTag(version string) string { return "finance:" + tagChars.ReplaceAllString(version, "-") }

// write writes img to out as a tarball docker load and podman load read,
// tagged finance:VERSION. It is written under a temporary name and renamed
// when whole, so a failed build leaves no half image behind.
func write(img v1.Image, version, out string) error {
	tag, err := name.NewTag(imageTag(version))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if err := tarball.Write(tag, img, tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", out, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}
