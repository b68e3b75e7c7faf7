package main

import (
	"archive/zip"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestExportImportRefusals(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "a long enough password\n", "users", "create", "--email", "a@example.com", "--password-stdin")
	file := filepath.Join(t.TempDir(), "a.json")
	mustRun(t, dir, "", "export", "--user", "a@example.com", file)
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}

	mustFail(t, dir, "", "refusing to overwrite", "export", "--user", "a@example.com", file)
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Error("a refused export changed the existing file")
	}
	missing := filepath.Join(t.TempDir(), "b.json")
	mustFail(t, dir, "", "user nobody@example.com not found", "export", "--user", "nobody@example.com", missing)
	if _, err := os.Stat(missing); err == nil {
		t.Error("an export for an unknown user left a file")
	}
	mustFail(t, dir, "", `required flag(s) "user" not set`, "export", file)
	mustFail(t, dir, "", `--format "xml": must be json or csv`, "export", "--user", "a@example.com", "--format", "xml", missing)
	if _, err := os.Stat(missing); err == nil {
		t.Error("an export in an unknown format left a file")
	}
	// --format csv writes the zip: the same categories, header first.
	zipped := filepath.Join(t.TempDir(), "a.zip")
	mustRun(t, dir, "", "export", "--user", "a@example.com", "--format", "csv", zipped)
	zr, err := zip.OpenReader(zipped)
	if err != nil {
		t.Fatalf("export --format csv: %v", err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	if len(names) == 0 || names[0] != "user.csv" || names[len(names)-1] != "manifest.json" || !slices.Contains(names, "categories.csv") {
		t.Errorf("export --format csv wrote %q", names)
	}
	cats, err := zr.Open("categories.csv")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(cats).ReadAll()
	if err != nil || len(rows) < 2 || rows[0][0] != "id" || strings.Count(string(before), `"is_system"`) != len(rows)-1 {
		t.Errorf("categories.csv: %v %q, want a header and the document's categories", err, rows)
	}

	// The user has the categories every user starts with and nothing else:
	// that is empty, and the document's categories replace them.
	mustRun(t, dir, "a long enough password\n", "users", "create", "--email", "b@example.com", "--password-stdin")
	mustFail(t, dir, "{}", "nothing imported: export document: no format: not a finance export", "import", "--user", "b@example.com", "-")
	mustFail(t, dir, "", "no such file", "import", "--user", "b@example.com", filepath.Join(dir, "none.json"))
	// The document's ids are on this server already (it is the server it came from).
	mustFail(t, dir, "", "nothing imported: export document: categories[0]: its id is already on this server", "import",
		"--user", "b@example.com", file)
	help := mustRun(t, dir, "", "import", "--help").stdout
	for _, want := range []string{"safe while the server runs", "stop the server first", "finance users create"} {
		if !strings.Contains(help, want) {
			t.Errorf("import --help lacks %q", want)
		}
	}
}
