package main

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// testBinary is a linux executable for this machine's architecture: the
// test binary itself. The image holds it byte for byte.
func testBinary(t *testing.T) (path, arch string) {
	t.Helper()
	if runtime.GOOS != "linux" || elfMachines[runtime.GOARCH] == 0 {
		t.Skipf("the test's own binary is no linux amd64 or arm64 executable on %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe, runtime.GOARCH
}

func testCerts(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ca.pem")
	pem := "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
	if err := os.WriteFile(path, []byte(pem), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// entry is what the test reads of one file of the image's filesystem.
type entry struct {
	Type     byte
	Mode     int64
	UID, GID int
	Body     string
}

// TestImage writes an image as the release does and reads it back as docker
// load would: the config, the layers, every file with its owner and mode.
func TestImage(t *testing.T) {
	bin, arch := testBinary(t)
	created := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	s := spec{binary: bin, arch: arch, version: "1.2.3-snapshot", revision: "abc123", created: created, caCerts: testCerts(t)}
	img, err := build(s)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "dist", "finance_1.2.3-snapshot_linux_"+arch+".image.tar")
	if err := write(img, s.version, out); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("stat %s: %v, %v", out, fi, err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*")); len(leftovers) > 0 {
		t.Errorf("temporary files left beside the image: %v", leftovers)
	}

	tag, _ := name.NewTag("finance:1.2.3-snapshot")
	got, err := tarball.ImageFromPath(out, &tag)
	if err != nil {
		t.Fatalf("the tarball does not hold finance:1.2.3-snapshot: %v", err)
	}
	cf, err := got.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.OS != "linux" || cf.Architecture != arch || !cf.Created.Time.Equal(created) {
		t.Errorf("platform %s/%s created %s, want linux/%s at %s", cf.OS, cf.Architecture, cf.Created, arch, created)
	}
	want := v1.Config{
		User:         "65532:65532",
		Env:          []string{"PATH=/usr/bin", "FINANCE_DATA_DIR=/data", "FINANCE_ADDR=0.0.0.0:8080", "FINANCE_BASE_URL=http://localhost:8080"},
		Entrypoint:   []string{"/usr/bin/finance"},
		Cmd:          []string{"serve"},
		WorkingDir:   "/data",
		ExposedPorts: map[string]struct{}{"8080/tcp": {}},
		Volumes:      map[string]struct{}{"/data": {}},
		StopSignal:   "SIGTERM",
		Healthcheck: &v1.HealthConfig{
			Test:        []string{"CMD", "/usr/bin/finance", "healthcheck"},
			Interval:    30 * time.Second,
			Timeout:     10 * time.Second,
			StartPeriod: time.Minute,
			Retries:     3,
		},
		Labels: map[string]string{
			"org.opencontainers.image.title":       "finance",
			"org.opencontainers.image.description": "Self-hosted personal finance tracker: REST API, MCP endpoint, web app and embedded database in one binary",
			"org.opencontainers.image.version":     "1.2.3-snapshot",
			"org.opencontainers.image.revision":    "abc123",
			"org.opencontainers.image.created":     "2026-11-27T08:00:00Z",
			"org.opencontainers.image.source":      "https://github.com/finance-app/finance",
			"org.opencontainers.image.url":         "https://github.com/finance-app/finance",
			"org.opencontainers.image.licenses":    "MIT",
		},
	}
	if diff := cmp.Diff(want, cf.Config); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	wantHistory := []v1.History{
		{Created: v1.Time{Time: created}, CreatedBy: "imagebuild: users root and finance, CA certificates, /tmp, /data"},
		{Created: v1.Time{Time: created}, CreatedBy: "imagebuild: /usr/bin/finance 1.2.3-snapshot"},
	}
	if diff := cmp.Diff(wantHistory, cf.History); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	layers, err := got.Layers()
	if err != nil || len(layers) != 2 {
		t.Fatalf("layers: %d, %v; want the shared one and the binary's", len(layers), err)
	}

	binary, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	certs, _ := os.ReadFile(s.caCerts)
	wantFiles := map[string]entry{
		"etc":                               {tar.TypeDir, 0o755, 0, 0, ""},
		"etc/passwd":                        {tar.TypeReg, 0o644, 0, 0, "root:x:0:0:root:/root:/sbin/nologin\nfinance:x:65532:65532:finance:/data:/sbin/nologin\n"},
		"etc/group":                         {tar.TypeReg, 0o644, 0, 0, "root:x:0:\nfinance:x:65532:\n"},
		"etc/ssl":                           {tar.TypeDir, 0o755, 0, 0, ""},
		"etc/ssl/certs":                     {tar.TypeDir, 0o755, 0, 0, ""},
		"etc/ssl/certs/ca-certificates.crt": {tar.TypeReg, 0o644, 0, 0, string(certs)},
		"tmp":                               {tar.TypeDir, 0o1777, 0, 0, ""},
		"data":                              {tar.TypeDir, 0o700, 65532, 65532, ""},
		"usr":                               {tar.TypeDir, 0o755, 0, 0, ""},
		"usr/bin":                           {tar.TypeDir, 0o755, 0, 0, ""},
		"usr/bin/finance":                   {tar.TypeReg, 0o755, 0, 0, "the test binary"},
	}
	gotFiles := map[string]entry{}
	rc := mutate.Extract(got)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		e := entry{h.Typeflag, h.Mode, h.Uid, h.Gid, string(body)}
		if h.Name == "usr/bin/finance" && bytes.Equal(body, binary) {
			e.Body = "the test binary"
		}
		if !h.ModTime.Equal(created) {
			t.Errorf("%s dated %s, want %s", h.Name, h.ModTime, created)
		}
		gotFiles[strings.TrimSuffix(h.Name, "/")] = e
	}
	if diff := cmp.Diff(wantFiles, gotFiles); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}

	// The same inputs make the same image, so a rebuild can be checked.
	again, err := build(s)
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := img.Digest()
	d2, _ := again.Digest()
	if d1 != d2 {
		t.Errorf("two builds of the same inputs: %s and %s", d1, d2)
	}
}

// TestImageRefusals: an image is not built from inputs that would not run,
// and nothing is written.
func TestImageRefusals(t *testing.T) {
	bin, arch := testBinary(t)
	other := "arm64"
	if arch == "arm64" {
		other = "amd64"
	}
	notELF := filepath.Join(t.TempDir(), "finance")
	if err := os.WriteFile(notELF, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	noCerts := filepath.Join(t.TempDir(), "empty.pem")
	if err := os.WriteFile(noCerts, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	certs := testCerts(t)
	tests := []struct {
		name    string
		s       spec
		wantErr string
	}{
		{"another architecture", spec{binary: bin, arch: other, version: "1", caCerts: certs}, "is built for"},
		{"an unknown architecture", spec{binary: bin, arch: "386", version: "1", caCerts: certs}, `-arch "386": want amd64 or arm64`},
		{"not an executable", spec{binary: notELF, arch: arch, version: "1", caCerts: certs}, "is not a linux executable"},
		{"no binary", spec{binary: filepath.Join(t.TempDir(), "nothing"), arch: arch, version: "1", caCerts: certs}, "no such file"},
		{"no version", spec{binary: bin, arch: arch, caCerts: certs}, "-version: required"},
		{"no certificates", spec{binary: bin, arch: arch, version: "1", caCerts: noCerts}, "holds no PEM certificate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := build(tc.s); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("build: %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestImageTag: a version's build metadata cannot go into a tag as it is.
func TestImageTag(t *testing.T) {
	for version, want := range map[string]string{
		"1.2.3":             "finance:1.2.3",
		"0.0.1-snapshot":    "finance:0.0.1-snapshot",
		"1.2.3+build.5":     "finance:1.2.3-build.5",
		"v1.0.0-rc.1+ab/cd": "finance:v1.0.0-rc.1-ab-cd",
	} {
		if got := imageTag(version); got != want {
			t.Errorf("imageTag(%q) = %q, want %q", version, got, want)
		}
		if _, err := name.NewTag(imageTag(version)); err != nil {
			t.Errorf("imageTag(%q) is no valid tag: %v", version, err)
		}
	}
}

// TestImageWithoutGitState: goreleaser passes the zero time and "none" when
// it cannot read the commit; the image is then dated at the build and names
// no revision, rather than claiming year 1 and a commit called "none".
func TestImageWithoutGitState(t *testing.T) {
	bin, arch := testBinary(t)
	out := filepath.Join(t.TempDir(), "image.tar")
	before := time.Now().UTC().Truncate(time.Second)
	s := spec{binary: bin, arch: arch, version: "0.0.1-snapshot", revision: "none", caCerts: testCerts(t)}
	if err := run(s, "0001-01-01T00:00:00Z", out); err != nil {
		t.Fatal(err)
	}
	img, err := tarball.ImageFromPath(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.Created.Time.Before(before) || cf.Created.Time.After(time.Now()) {
		t.Errorf("created %s, want the time of the build (after %s)", cf.Created, before)
	}
	if rev, ok := cf.Config.Labels["org.opencontainers.image.revision"]; ok {
		t.Errorf("revision label %q, want none", rev)
	}
}
