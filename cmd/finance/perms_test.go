package main

import (
	"bytes"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/store"
)

func TestLoosePermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, store.FileName)
	files := map[string]os.FileMode{
		db:                                0o644,
		db + "-wal":                       0o600,
		db + "-shm":                       0o604,
		filepath.Join(dir, jwtSecretFile): 0o640,
		filepath.Join(dir, "notes.txt"):   0o666, // not ours to judge
	}
	for path, mode := range files {
		if err := os.WriteFile(path, nil, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil { // whatever the umask
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o750); err != nil {
		t.Fatal(err)
	}

	loose, err := loosePermissions(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []looseFile{
		{dir, 0o750, 0o700},
		{db, 0o644, 0o600},
		{db + "-shm", 0o604, 0o600},
		{filepath.Join(dir, jwtSecretFile), 0o640, 0o600},
	}
	if diff := cmp.Diff(want, loose, cmp.AllowUnexported(looseFile{})); diff != "" {
		t.Errorf("loosePermissions (-want +got):\n%s", diff)
	}

	var log bytes.Buffer
	warnLoosePermissions(slog.New(slog.NewTextHandler(&log, nil)), dir)
	if n := strings.Count(log.String(), "level=WARN"); n != len(want) {
		t.Errorf("%d warnings, want %d:\n%s", n, len(want), log.String())
	}
	if line := `path=` + db + ` mode=0644 fix="chmod 600 ` + db + `"`; !strings.Contains(log.String(), line) {
		t.Errorf("log lacks %q:\n%s", line, log.String())
	}

	// Tightened, and with the WAL files gone, nothing is reported.
	for _, path := range []string{dir, db, filepath.Join(dir, jwtSecretFile)} {
		mode := os.FileMode(0o600)
		if path == dir {
			mode = 0o700
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(db + "-shm"); err != nil {
		t.Fatal(err)
	}
	if loose, err := loosePermissions(dir); err != nil || len(loose) != 0 {
		t.Errorf("loosePermissions after chmod = %v, %v; want nothing", loose, err)
	}
}

func TestShellQuote(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX quoting")
	}
	tests := []struct{ in, want string }{
		{"/usr/local/bin/finance", "/usr/local/bin/finance"},
		{"/home/ana/.local/share/finance", "/home/ana/.local/share/finance"},
		{"C:/x,y=z+1@host:%", "C:/x,y=z+1@host:%"},
		{"", "''"},
		{"/home/ana/My Finance", "'/home/ana/My Finance'"},
		{"/srv/ana's data", `'/srv/ana'\''s data'`},
		{"~/finance", "'~/finance'"},
		{"/data/$HOME/*", "'/data/$HOME/*'"},
		{"/données", "'/données'"},
	}
	sh, _ := exec.LookPath("sh")
	for _, tt := range tests {
		got := shellQuote(tt.in)
		if got != tt.want {
			t.Errorf("shellQuote(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if sh == "" {
			continue
		}
		// A real shell reads the quoted word back as the original.
		out, err := exec.Command(sh, "-c", "printf %s "+got).Output()
		if err != nil || string(out) != tt.in {
			t.Errorf("sh -c 'printf %%s %s' = %q, %v; want %q", got, out, err, tt.in)
		}
	}
}

func TestFirstUserCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX quoting")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no POSIX shell")
	}
	t.Chdir(t.TempDir())
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		exe, dataDir string
		want         string
		wantArgs     []string
	}{
		{"/usr/local/bin/finance", "/var/lib/finance",
			"/usr/local/bin/finance users create --email you@example.com --data-dir /var/lib/finance",
			[]string{"/usr/local/bin/finance", "users", "create", "--email", "you@example.com", "--data-dir", "/var/lib/finance"}},
		{"/home/ana/My Apps/finance", "/srv/ana's data",
			`'/home/ana/My Apps/finance' users create --email you@example.com --data-dir '/srv/ana'\''s data'`,
			[]string{"/home/ana/My Apps/finance", "users", "create", "--email", "you@example.com", "--data-dir", "/srv/ana's data"}},
		{"/tmp/go-build1/exe/finance", "data",
			"/tmp/go-build1/exe/finance users create --email you@example.com --data-dir " + shellQuote(filepath.Join(wd, "data")),
			[]string{"/tmp/go-build1/exe/finance", "users", "create", "--email", "you@example.com", "--data-dir", filepath.Join(wd, "data")}},
	}
	for _, tt := range tests {
		got := firstUserCommand(tt.exe, tt.dataDir)
		if got != tt.want {
			t.Errorf("firstUserCommand(%q, %q) =\n  %s\nwant\n  %s", tt.exe, tt.dataDir, got, tt.want)
		}
		// Pasted into a shell, the line is exactly these words.
		out, err := exec.Command(sh, "-c", `for w in `+got+`; do printf '%s\n' "$w"; done`).Output()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.wantArgs, strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")); diff != "" {
			t.Errorf("the shell reads %s as (-want +got):\n%s", got, diff)
		}
	}
}
