package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// finance copy-db copies the data directory's database into a new one
// (here another SQLite file; the store's tests copy into Postgres too),
// which then holds the same users and keys (the store's tests prove a
// copied key signs in); a second copy into it is
// refused with exit 1 and a reason, and copy-db without --to says what it
// needs.
func TestCopyDB(t *testing.T) {
	dir := t.TempDir()
	createUser(t, dir, "ana@example.com")
	mustRun(t, dir, "", "keys", "create", "--user", "ana@example.com", "--name", "agent", "--scopes", "all")
	target := "sqlite:" + filepath.Join(t.TempDir(), "moved.db")

	r := mustRun(t, dir, "", "copy-db", "--to", target)
	if !regexp.MustCompile(`(?m)^users +1 *$`).MatchString(r.stdout) || !regexp.MustCompile(`(?m)^api_keys +1 *$`).MatchString(r.stdout) {
		t.Errorf("stdout = %q, want a row per table with its count", r.stdout)
	}
	if !strings.Contains(r.stderr, "every table's count and the totals match the source") {
		t.Errorf("stderr = %q", r.stderr)
	}
	listed := mustRun(t, t.TempDir(), "", "users", "list", "--database-url", target)
	if !strings.Contains(listed.stdout, "ana@example.com") {
		t.Errorf("users of the copy: %q", listed.stdout)
	}
	keys := mustRun(t, t.TempDir(), "", "keys", "list", "--user", "ana@example.com", "--database-url", target)
	if !strings.Contains(keys.stdout, "agent") {
		t.Errorf("keys of the copy: %q", keys.stdout)
	}

	again := runCLI(t, dir, "", "copy-db", "--to", target)
	if again.code != 1 || !strings.Contains(again.stderr, "already holds 1 user(s)") {
		t.Errorf("a second copy: exit %d, stderr %q", again.code, again.stderr)
	}
	if r := runCLI(t, dir, "", "copy-db"); r.code == 0 || !strings.Contains(r.stderr, `"to" not set`) {
		t.Errorf("copy-db without --to: exit %d, stderr %q", r.code, r.stderr)
	}
}
