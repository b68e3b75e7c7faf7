package importfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/finance-app/finance/finance"
)

// date is a test's calendar date.
func date(t *testing.T, s string) finance.Date {
	t.Helper()
	d, err := finance.ParseDate(s)
	if err != nil {
		t.Fatalf("date %q: %v", s, err)
	}
	return d
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// readOK reads a fixture that must read as a file (rows may still fail).
func readOK(t *testing.T, name string, data []byte, opt Options) *Result {
	t.Helper()
	res, err := Read(name, data, opt)
	if err != nil {
		t.Fatalf("Read(%s): %v", name, err)
	}
	return res
}

// readFails reads a file that must be refused and returns the *Error.
func readFails(t *testing.T, name string, data []byte, opt Options) *Error {
	t.Helper()
	res, err := Read(name, data, opt)
	if err == nil {
		t.Fatalf("Read(%s) = %d rows, %d errors; want an error", name, len(res.Rows), len(res.Errors))
	}
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("Read(%s) error %T %v; want *Error", name, err, err)
	}
	return e
}

var compareDates = cmp.Comparer(func(a, b finance.Date) bool { return a == b })

// checkRows compares every field of the rows and the row errors.
func checkRows(t *testing.T, res *Result, rows []Row, errs []RowError) {
	t.Helper()
	if diff := cmp.Diff(rows, res.Rows, compareDates, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(errs, res.Errors, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("row errors (-want +got):\n%s", diff)
	}
}

// checkError compares a refusal with the one expected, field by field.
func checkError(t *testing.T, want, got *Error) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}
