package arch_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// databaseTestCalls are the ways a test opens a database: its own through
// the test kit, or a data directory's or a URL's through the store.
var databaseTestCalls = regexp.MustCompile(`\b(testkit\.OpenDB|testkit\.OpenPostgres|store\.Open|store\.OpenURL)\(`)

// postgresStage is the command of .ci/run that runs tests on Postgres.
var postgresStage = regexp.MustCompile(`(?m)^FINANCE_TEST_DATABASE=postgres pg_virtualenv -t go test [^\n]*$`)

// TestPostgresStageRunsEveryDatabaseTest: CI runs on Postgres the tests of
// every package that opens a database in its tests, so a package that
// starts to is not left on SQLite alone.
func TestPostgresStageRunsEveryDatabaseTest(t *testing.T) {
	script, err := os.ReadFile(filepath.Join(".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	stage := postgresStage.FindString(string(script))
	if stage == "" {
		t.Fatalf(".ci/run has no line matching %s", postgresStage)
	}
	var listed []string
	for _, f := range strings.Fields(stage) {
		if p, ok := strings.CutPrefix(f, "./"); ok {
			listed = append(listed, p)
		}
	}
	need := []string{"store"} // its own tests open databases without the prefix
	err = filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == "e2e" || strings.HasPrefix(d.Name(), ".") && path != ".") {
			return filepath.SkipDir // the e2e suites run on Postgres in a stage of their own
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if dir := filepath.ToSlash(filepath.Dir(path)); databaseTestCalls.Match(src) && !slices.Contains(need, dir) {
			need = append(need, dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range need {
		if !slices.Contains(listed, dir) {
			t.Errorf("the tests of ./%s open a database, but .ci/run's Postgres stage does not run them: %s", dir, stage)
		}
	}
}
