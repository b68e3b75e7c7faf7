package arch_test

// The release's packages are built by `make release-snapshot`, which takes
// minutes; these tests check in a moment what can go wrong in their files:
// goreleaser's configuration, the systemd unit and the maintainer scripts,
// and that they agree on paths and on the user.

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// releaseConfig is the part of goreleaser.yaml these tests read.
type releaseConfig struct {
	Builds []struct {
		ID     string   `yaml:"id"`
		Main   string   `yaml:"main"`
		Goos   []string `yaml:"goos"`
		Goarch []string `yaml:"goarch"`
		Hooks  struct {
			Post []struct {
				Cmd string `yaml:"cmd"`
			} `yaml:"post"`
		} `yaml:"hooks"`
	} `yaml:"builds"`
	Nfpms []struct {
		IDs      []string `yaml:"ids"`
		Formats  []string `yaml:"formats"`
		Bindir   string   `yaml:"bindir"`
		Contents []struct {
			Src      string `yaml:"src"`
			Dst      string `yaml:"dst"`
			Type     string `yaml:"type"`
			FileInfo struct {
				Mode os.FileMode `yaml:"mode"`
			} `yaml:"file_info"`
		} `yaml:"contents"`
		Scripts map[string]string `yaml:"scripts"`
	} `yaml:"nfpms"`
	Checksum struct {
		ExtraFiles []struct {
			Glob string `yaml:"glob"`
		} `yaml:"extra_files"`
	} `yaml:"checksum"`
}

func readReleaseConfig(t *testing.T) releaseConfig {
	t.Helper()
	raw, err := os.ReadFile("goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c releaseConfig
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf("goreleaser.yaml: %v", err)
	}
	return c
}

// unit is a systemd unit file: section, key, the values in order (a key
// may be given more than once).
type unit map[string]map[string][]string

func readUnit(t *testing.T, path string) unit {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u, section := unit{}, ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = line[1 : len(line)-1]
			u[section] = map[string][]string{}
		default:
			key, value, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("%s:%d: not a setting of a section: %q", path, n, line)
			}
			u[section][key] = append(u[section][key], value)
		}
	}
	return u
}

// one is the value of a key given once.
func (u unit) one(t *testing.T, section, key string) string {
	t.Helper()
	v := u[section][key]
	if len(v) != 1 {
		t.Errorf("[%s] %s is given %d times, want once", section, key, len(v))
		return ""
	}
	return v[0]
}

// TestSystemdUnit: the unit runs the packaged binary as the packaged user
// on the state directory, reads the packaged environment file, and keeps
// every hardening option the service is known to run under.
func TestSystemdUnit(t *testing.T) {
	u := readUnit(t, "packaging/finance.service")
	cfg := readReleaseConfig(t)
	if len(cfg.Nfpms) != 1 {
		t.Fatalf("goreleaser.yaml has %d nfpms, want 1", len(cfg.Nfpms))
	}
	pkg := cfg.Nfpms[0]
	dst := map[string]string{} // source file: where the package installs it
	for _, c := range pkg.Contents {
		dst[c.Src] = c.Dst
	}

	state := u.one(t, "Service", "StateDirectory")
	dataDir := "/var/lib/" + state
	if want := pkg.Bindir + "/finance serve --data-dir " + dataDir; u.one(t, "Service", "ExecStart") != want {
		t.Errorf("ExecStart=%s, want %s (the packaged binary on the state directory)", u.one(t, "Service", "ExecStart"), want)
	}
	if got, want := strings.TrimPrefix(u.one(t, "Service", "EnvironmentFile"), "-"), dst["packaging/finance.env"]; got != want {
		t.Errorf("EnvironmentFile=%s, but the package installs the environment file at %s", got, want)
	}
	if dst["packaging/finance.service"] != "/usr/lib/systemd/system/finance.service" {
		t.Errorf("the unit is installed at %q", dst["packaging/finance.service"])
	}
	// The user: declared by sysusers.d, created by the postinstall script.
	sysusers, err := os.ReadFile("packaging/finance.sysusers")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^u (\S+) - "[^"]*" (\S+)$`).FindStringSubmatch(string(sysusers))
	if m == nil {
		t.Fatalf("finance.sysusers declares no system user:\n%s", sysusers)
	}
	if user := u.one(t, "Service", "User"); user != m[1] || u.one(t, "Service", "Group") != m[1] || m[2] != dataDir {
		t.Errorf("the unit runs as %s:%s, sysusers.d declares %s with home %s, the data directory is %s",
			user, u.one(t, "Service", "Group"), m[1], m[2], dataDir)
	}
	post, err := os.ReadFile(pkg.Scripts["postinstall"])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"systemd-sysusers " + dst["packaging/finance.sysusers"], "useradd --system", "install -d -o " + m[1] + " -g " + m[1] + " -m 0700 " + dataDir} {
		if !strings.Contains(string(post), want) {
			t.Errorf("postinstall lacks %q", want)
		}
	}

	hardening := map[string]string{
		"UMask":                   "0077",
		"NoNewPrivileges":         "yes",
		"CapabilityBoundingSet":   "",
		"ProtectSystem":           "strict",
		"ProtectHome":             "yes",
		"PrivateTmp":              "yes",
		"PrivateDevices":          "yes",
		"ProtectKernelTunables":   "yes",
		"ProtectKernelModules":    "yes",
		"ProtectKernelLogs":       "yes",
		"ProtectControlGroups":    "yes",
		"RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
		"RestrictNamespaces":      "yes",
		"RestrictSUIDSGID":        "yes",
		"LockPersonality":         "yes",
		"MemoryDenyWriteExecute":  "yes",
		"SystemCallArchitectures": "native",
		"SystemCallFilter":        "@system-service",
		"StateDirectoryMode":      "0700",
	}
	for key, want := range hardening {
		if got := u.one(t, "Service", key); got != want {
			t.Errorf("%s=%s, want %s", key, got, want)
		}
	}
	// ProtectSystem=strict makes everything read-only; the state directory
	// is writable by itself, and nothing else may be.
	for _, key := range []string{"ReadWritePaths", "ReadWriteDirectories", "DynamicUser"} {
		if v, ok := u["Service"][key]; ok {
			t.Errorf("%s=%v: the service writes only its state directory", key, v)
		}
	}
	if u.one(t, "Install", "WantedBy") != "multi-user.target" {
		t.Errorf("WantedBy=%v", u["Install"]["WantedBy"])
	}
}

// TestSystemdUnitVerifies runs systemd-analyze verify on the unit, in a
// throwaway root holding this machine's units and a stand-in binary, where
// systemd-analyze is installed.
func TestSystemdUnitVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed")
	}
	units := "/usr/lib/systemd/system"
	if _, err := os.Stat(filepath.Join(units, "multi-user.target")); err != nil {
		t.Skipf("no systemd units to verify against: %v", err)
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "usr", "lib", "systemd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", units, filepath.Join(root, "usr", "lib", "systemd")+"/").CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	unitFile, err := os.ReadFile("packaging/finance.service")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, units, "finance.service"), unitFile, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "usr", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "usr", "bin", "finance"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", "--root="+root, units+"/finance.service").CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestReleaseConfig: goreleaser.yaml packages the linux builds for both
// architectures, builds their container images and checksums them, and
// every file it packages exists.
func TestReleaseConfig(t *testing.T) {
	cfg := readReleaseConfig(t)
	pkg := cfg.Nfpms[0]
	if !slices.Equal(pkg.Formats, []string{"deb", "rpm"}) || pkg.Bindir != "/usr/bin" {
		t.Errorf("nfpms: formats %v, bindir %s; want deb and rpm into /usr/bin", pkg.Formats, pkg.Bindir)
	}
	var linux int
	for _, b := range cfg.Builds {
		if b.Main != "./cmd/finance" {
			t.Errorf("build %s builds %s", b.ID, b.Main)
		}
		if !slices.Contains(pkg.IDs, b.ID) {
			continue
		}
		linux++
		if !slices.Equal(b.Goos, []string{"linux"}) || !slices.Equal(b.Goarch, []string{"amd64", "arm64"}) {
			t.Errorf("packaged build %s is for %v %v, want linux amd64 and arm64", b.ID, b.Goos, b.Goarch)
		}
		// The image hook: built for the build's own binary and architecture,
		// into a file the checksums cover.
		if len(b.Hooks.Post) != 1 {
			t.Fatalf("build %s has %d post hooks, want the image's", b.ID, len(b.Hooks.Post))
		}
		hook := b.Hooks.Post[0].Cmd
		for _, want := range []string{"go run ./cmd/imagebuild ", "-binary {{ .Path }}", "-arch {{ .Arch }}", "-created {{ .CommitDate }}"} {
			if !strings.Contains(hook, want) {
				t.Errorf("the image hook %q lacks %q", hook, want)
			}
		}
		out := regexp.MustCompile(`-out (\S.*\.image\.tar)`).FindStringSubmatch(hook)
		if out == nil {
			t.Fatalf("the image hook %q names no -out", hook)
		}
		covered := false
		for _, f := range cfg.Checksum.ExtraFiles {
			if ok, _ := filepath.Match(f.Glob, out[1]); ok {
				covered = true
			}
		}
		if !covered {
			t.Errorf("the image %s is not in the checksums' extra_files %v", out[1], cfg.Checksum.ExtraFiles)
		}
	}
	if linux != 1 {
		t.Errorf("%d builds are packaged, want 1 (linux)", linux)
	}

	modes := map[string]os.FileMode{}
	for _, c := range pkg.Contents {
		modes[c.Dst] = c.FileInfo.Mode
		if c.Src == "" {
			continue
		}
		if _, err := os.Stat(c.Src); err != nil {
			t.Errorf("nfpms packages %s: %v", c.Src, err)
		}
		if c.Src == "packaging/finance.env" && c.Type != "config|noreplace" {
			t.Errorf("the environment file is of type %q; want config|noreplace, so upgrades keep it", c.Type)
		}
	}
	if modes["/etc/finance/finance.env"] != 0o600 {
		t.Errorf("/etc/finance/finance.env mode %o, want 0600: it may hold secrets", modes["/etc/finance/finance.env"])
	}
	for _, name := range []string{"postinstall", "preremove", "postremove"} {
		script := pkg.Scripts[name]
		if script == "" {
			t.Errorf("nfpms has no %s script", name)
			continue
		}
		if out, err := exec.Command("sh", "-n", script).CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", script, err, out)
		}
	}
}

// TestGoreleaserCheck runs `goreleaser check` where make release-snapshot
// has built goreleaser (bin/goreleaser-VERSION); building it takes minutes,
// so the test does not.
func TestGoreleaserCheck(t *testing.T) {
	makefile, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^GORELEASER\s*:=\s*(\S+)$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("the Makefile names no GORELEASER")
	}
	version := regexp.MustCompile(`(?m)^GORELEASER_VERSION\s*:=\s*(\S+)$`).FindSubmatch(makefile)
	if version == nil {
		t.Fatal("the Makefile names no GORELEASER_VERSION")
	}
	bin := strings.ReplaceAll(string(m[1]), "$(GORELEASER_VERSION)", string(version[1]))
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("%s is not built (make release-snapshot builds it)", bin)
	}
	if out, err := exec.Command(bin, "check").CombinedOutput(); err != nil {
		t.Errorf("goreleaser check: %v\n%s", err, out)
	}
}
