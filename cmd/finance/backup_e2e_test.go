package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/store"
)

// A restore round trip: a full ledger and a profile picture, backed up with
// finance backup while the server runs, read the same after writes made
// since, a refused restore while serving, a stop and finance restore: every
// figure (balances, statements, plans, bills, loans, lists, dashboard and
// reports) and the picture's bytes, from the database alone (the backup
// carries no files). On Postgres backup and restore are refused, the server
// running or not, and every figure stays as it was.
func TestRestoreRoundTripEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test builds and runs the binary")
	}
	bin := buildBinary(t)
	loc, err := time.LoadLocation(finance.DefaultTimezone)
	if err != nil {
		t.Fatal(err)
	}
	today := finance.Today(time.Now(), loc)
	dataDir := filepath.Join(t.TempDir(), "data")
	binMustRun(t, bin, dataDir, "a long enough password\n", "users", "create", "--email", "ana@example.com", "--password-stdin")
	key := strings.TrimSpace(binMustRun(t, bin, dataDir, "", "keys", "create", "--user", "ana@example.com", "--name", "e2e",
		"--scopes", "all").stdout)
	serve := func() *serverProc {
		return startServerCmd(t, exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir,
			"--rate-limit", "off", "--backup-interval", "off"))
	}
	srv := serve()
	api := apiCaller(t, srv, key)
	testkit.BuildFullLedger(t, api, today)
	testkit.LedgerFigures(t, api, today) // reading generates what is due
	picture := uploadPicture(t, srv.url, key)

	backup := filepath.Join(t.TempDir(), "finance.backup")
	if onPostgres() {
		// Refused, running or stopped, and nothing changes.
		checkRefusedOnPostgres(t, binCLI(t, bin, dataDir, "", "backup", backup))
		checkNoFile(t, backup)
		want := testkit.LedgerFigures(t, api, today)
		if code := srv.interrupt(t); code != 0 {
			t.Fatalf("server exit %d", code)
		}
		checkRefusedOnPostgres(t, binCLI(t, bin, dataDir, "", "restore", backup))
		srv = serve()
		got := testkit.LedgerFigures(t, apiCaller(t, srv, key), today)
		sameFigures(t, "after a refused restore (-before +after)", want, got)
		if got := profilePicture(t, srv.url, key); !bytes.Equal(got, picture) {
			t.Errorf("after a refused restore the profile picture has %d bytes, want the %d it had", len(got), len(picture))
		}
		return
	}
	binMustRun(t, bin, dataDir, "", "backup", backup)
	want := testkit.LedgerFigures(t, api, today)

	if status, _ := api(http.MethodPost, "/expenses", map[string]any{"amount": "999.00", "date": today.String(),
		"description": "after the backup", "category": "Groceries", "payment_method": "Cash"}); status != http.StatusCreated {
		t.Fatalf("expense after the backup: %d", status)
	}
	uploadPicture(t, srv.url, key) // replaces the picture
	changed := testkit.LedgerFigures(t, api, today)

	r := binCLI(t, bin, dataDir, "", "restore", backup)
	if r.code != 5 || !strings.Contains(r.stderr, "the database is in use") {
		t.Errorf("restore while serving: exit %d, stderr %q; want 5", r.code, r.stderr)
	}
	if got := testkit.LedgerFigures(t, api, today); !cmp.Equal(jsonOf(t, got["/expenses/summary"]), jsonOf(t, changed["/expenses/summary"])) {
		t.Error("a refused restore changed the figures")
	}
	if code := srv.interrupt(t); code != 0 {
		t.Fatalf("server exit %d", code)
	}

	r = binMustRun(t, bin, dataDir, "", "restore", backup)
	if !strings.Contains(r.stdout, "(schema ") || !strings.Contains(r.stdout, ", 0 media files)") {
		t.Errorf("restore said %q", r.stdout)
	}
	srv = serve()
	got := testkit.LedgerFigures(t, apiCaller(t, srv, key), today)
	sameFigures(t, "after the restore (-backed up +restored)", want, got)
	if got := profilePicture(t, srv.url, key); !bytes.Equal(got, picture) {
		t.Errorf("the restored profile picture has %d bytes, want the %d backed up", len(got), len(picture))
	}
}

// uploadPicture sets a new profile picture (a PNG of random pixels' worth of
// bytes) and returns its bytes.
func uploadPicture(t *testing.T, baseURL, key string) []byte {
	t.Helper()
	png := append([]byte("\x89PNG\r\n\x1a\n"), rand.Text()...)
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	part, err := w.CreateFormFile("file", "me.png")
	if err != nil {
		t.Fatal(err)
	}
	part.Write(png)
	w.Close()
	req, err := http.NewRequest(http.MethodPut, baseURL+"/api/v1/user-settings/account/profile-picture", &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", w.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("picture upload: %d %s", resp.StatusCode, raw)
	}
	return png
}

// profilePicture fetches the user's profile picture.
func profilePicture(t *testing.T, baseURL, key string) []byte {
	t.Helper()
	status, env := call(t, http.MethodGet, baseURL+"/api/v1/user-settings/account", key, nil)
	var account struct {
		URL *string `json:"profile_picture_url"`
	}
	if status != http.StatusOK || json.Unmarshal(env.Data, &account) != nil || account.URL == nil {
		t.Fatalf("account: %d %s", status, env.Data)
	}
	resp, err := http.Get(*account.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", *account.URL, resp.StatusCode)
	}
	return b
}

var (
	backupWritten = regexp.MustCompile(`msg="scheduled backup written" file=(\S+)`)
	finalBackup   = regexp.MustCompile(`^finance-\d{8}T\d{6}\.\d{3}Z\.db$`)
	partialBackup = regexp.MustCompile(`^finance-\d{8}T\d{6}\.\d{3}Z\.db\.partial(-journal)?$`)
)

// Killed during a scheduled backup (SIGKILL: no shutdown code runs), the
// server leaves no partial file under a backup's name: every file named
// like a backup is whole and sound, at most a .partial file is left, and
// the next start's backup removes it and is whole, profile pictures included.
// On Postgres scheduled backups are off and the server says so.
func TestScheduledBackupKilledMidway(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	dataDir := t.TempDir()
	createUser(t, dataDir, "ana@example.com")
	if onPostgres() {
		// Scheduled backups are off on Postgres, saying so: none is written.
		srv := startServerCmd(t, exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir,
			"--backup-interval", "1s"))
		if !strings.Contains(srv.stderr(), `msg="scheduled backups are off on Postgres: back it up with its own tools"`) {
			t.Errorf("serve on Postgres with --backup-interval 1s does not say backups are off:\n%s", srv.stderr())
		}
		if code := srv.interrupt(t); code != 0 {
			t.Fatalf("server exit %d", code)
		}
		checkNoFile(t, filepath.Join(dataDir, "backups"))
		return
	}
	// A picture large enough that a backup takes a while to write (far past
	// an upload's limit: written straight into the table).
	big := make([]byte, 32<<20)
	rand.Read(big)
	bigName := finance.NewID() + ".png"
	db, err := store.Open(filepath.Join(dataDir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	err = db.RawTx(context.Background(), func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO profile_pictures (name, user_id, content_type, content, created_at)
			SELECT ?, id, 'image/png', ?, ? FROM users WHERE email = 'ana@example.com'`, bigName, big, time.Now())
		return err
	})
	if err := errors.Join(err, db.Close()); err != nil {
		t.Fatal(err)
	}
	backupDir := filepath.Join(dataDir, "backups")
	serve := func() *serverProc {
		return startServerCmd(t, exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir,
			"--backup-interval", "1s", "--backup-keep", "2"))
	}
	// checkNames checks every file of the backup directory, returning the
	// partial ones.
	checkNames := func() (partial []string) {
		t.Helper()
		entries, _ := os.ReadDir(backupDir)
		for _, e := range entries {
			switch {
			case finalBackup.MatchString(e.Name()):
				if _, err := store.CheckBackup(context.Background(), filepath.Join(backupDir, e.Name())); err != nil {
					t.Errorf("%s is not a whole backup: %v", e.Name(), err)
				}
			case partialBackup.MatchString(e.Name()):
				partial = append(partial, e.Name())
			default:
				t.Errorf("unexpected file %s in the backup directory", e.Name())
			}
		}
		return partial
	}

	killedMidway := 0
	for round := range 3 {
		srv := serve()
		deadline := time.Now().Add(e2eWait)
		for len(checkNamesQuiet(backupDir)) == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		srv.kill(t)
		if partial := checkNames(); len(partial) > 0 {
			killedMidway++
		} else {
			t.Logf("round %d: the backup finished before the kill", round)
		}
	}
	if killedMidway == 0 {
		t.Fatal("no kill landed during a backup")
	}

	srv := serve()
	path := srv.waitLine(t, backupWritten)[1]
	srv.kill(t)
	if partial := checkNames(); len(partial) > 1 {
		t.Errorf("partial files after a whole backup: %q", partial) // at most the one the last kill cut short
	}
	restored := t.TempDir()
	r, err := store.Restore(context.Background(), path, filepath.Join(restored, store.FileName), filepath.Join(restored, "media"), time.Now())
	if err != nil {
		t.Fatalf("restoring the backup after the kills: %v", err)
	}
	rdb, err := store.Open(filepath.Join(restored, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	got, err := finance.NewService(rdb).PictureFile(context.Background(), bigName)
	if err != nil || !bytes.Equal(got.Content, big) || r.Media != 0 {
		t.Errorf("the backup after the kills: %d media files, the picture %d bytes (%v); want its %d bytes", r.Media, len(got.Content), err, len(big))
	}
}

// checkNamesQuiet lists the partial backups in dir.
func checkNamesQuiet(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var partial []string
	for _, e := range entries {
		if partialBackup.MatchString(e.Name()) {
			partial = append(partial, e.Name())
		}
	}
	return partial
}
