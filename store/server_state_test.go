package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/store"
)

// Two processes that start together on one database agree on one signing
// key, made by whichever inserted first; later starts read it back.
func TestSigningKeyIsOneForEveryProcess(t *testing.T) {
	ctx := context.Background()
	a, b := testkit.OpenTwice(t)
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db := a
			if i%2 == 1 {
				db = b
			}
			k, err := db.SigningKey(ctx, "")
			if err != nil {
				t.Errorf("SigningKey %d: %v", i, err)
			}
			keys[i] = k
		}()
	}
	wg.Wait()
	if len(keys[0]) != 32 {
		t.Fatalf("the key has %d bytes, want 32", len(keys[0]))
	}
	for i, k := range keys {
		if !bytes.Equal(k, keys[0]) {
			t.Errorf("process %d got another key", i)
		}
	}
	// A key file found later changes nothing: the database's key signs.
	file := filepath.Join(t.TempDir(), "jwt.key")
	writeFile(t, file, strings.Repeat("k", 32))
	if k, err := b.SigningKey(ctx, file); err != nil || !bytes.Equal(k, keys[0]) {
		t.Errorf("with a key file beside a database that has a key: %v, %v", k, err)
	}
	if n, err := a.QueryInt(ctx, "SELECT count(*) FROM server_secrets"); err != nil || n != 1 {
		t.Errorf("server_secrets holds %d rows (%v), want 1", n, err)
	}
}

// An earlier version's jwt.key becomes the database's signing key, so the
// sign-ins it signed stay valid; the file is left as it was. A file too
// short to be a key is refused, as it was.
func TestSigningKeyTakesTheKeyFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	short := filepath.Join(dir, "short.key")
	writeFile(t, short, "too short")
	db := openDB(t)
	if _, err := db.SigningKey(ctx, short); err == nil || !strings.Contains(err.Error(), "shorter than 32 bytes") {
		t.Errorf("a 9-byte key file: %v", err)
	}
	file := filepath.Join(dir, "jwt.key")
	old := strings.Repeat("0123456789abcdef", 3) // 48 bytes
	writeFile(t, file, old)
	k, err := db.SigningKey(ctx, file)
	if err != nil || string(k) != old {
		t.Fatalf("SigningKey = %q, %v; want the file's key", k, err)
	}
	if got := readFile(t, file); got != old {
		t.Errorf("the key file now holds %q", got)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if k, err := db.SigningKey(ctx, file); err != nil || string(k) != old {
		t.Errorf("after the file went: %q, %v", k, err)
	}
}

// setPicture uploads data as userID's picture through svc and returns its name.
func setPicture(t *testing.T, svc *finance.Service, userID string, data []byte) string {
	t.Helper()
	a, err := svc.SetProfilePicture(context.Background(), userID, finance.ProfilePicture{},
		&finance.PictureFile{Name: finance.NewID() + ".png", ContentType: "image/png", Content: data})
	if err != nil {
		t.Fatal(err)
	}
	if a.File == nil {
		t.Fatalf("after an upload the account has no file: %+v", a.ProfilePicture)
	}
	return *a.File
}

// A picture uploaded through one handle is read through the other, and
// replacing or removing it through the other deletes it, in the same
// transaction as the user's record: the table holds only the pictures
// users have.
func TestPictureSeenThroughAnotherHandle(t *testing.T) {
	ctx := context.Background()
	a, b := testkit.OpenTwice(t)
	svcA, svcB := finance.NewService(a), finance.NewService(b)
	u := createUser(t, a, "ana@example.com")
	other := createUser(t, a, "ben@example.com")
	first := setPicture(t, svcA, u.ID, []byte("first picture"))
	bens := setPicture(t, svcA, other.ID, []byte("ben's picture"))

	f, err := svcB.PictureFile(ctx, first)
	if err != nil || string(f.Content) != "first picture" || f.ContentType != "image/png" || f.CreatedAt.IsZero() {
		t.Fatalf("the picture through the other handle: %+v, %v", f, err)
	}
	second := setPicture(t, svcB, u.ID, []byte("second picture"))
	if _, err := svcA.PictureFile(ctx, first); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("the replaced picture: %v, want not found", err)
	}
	if f, err := svcA.PictureFile(ctx, second); err != nil || string(f.Content) != "second picture" {
		t.Errorf("the new picture through the first handle: %+v, %v", f, err)
	}
	want := []string{bens, second}
	slices.Sort(want)
	names, err := a.PictureNames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("stored pictures (-want +got):\n%s", diff)
	}
	url := "https://example.com/ana.png"
	if _, err := svcB.SetProfilePicture(ctx, u.ID, finance.ProfilePicture{URL: &url}, nil); err != nil {
		t.Fatal(err)
	}
	if names, _ := a.PictureNames(ctx); !slices.Equal(names, []string{bens}) {
		t.Errorf("after a URL replaced the upload: %q", names)
	}
	// An upload refused by the user's record (no such user) stores nothing.
	if _, err := svcA.SetProfilePicture(ctx, finance.NewID(), finance.ProfilePicture{},
		&finance.PictureFile{Name: finance.NewID() + ".png", ContentType: "image/png", Content: []byte("x")}); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("a picture for no user: %v", err)
	}
	if names, _ := b.PictureNames(ctx); !slices.Equal(names, []string{bens}) {
		t.Errorf("after a refused upload: %q", names)
	}
}

// The pictures an earlier version kept in the media folder come into the
// database: those a user's record names, once, with their types and their
// files' times; files no user names, and names without a file, are left.
func TestImportPictures(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	dir := filepath.Join(t.TempDir(), "media", "profile-pictures")
	ana, ben, cy := createUser(t, db, "ana@example.com"), createUser(t, db, "ben@example.com"), createUser(t, db, "cy@example.com")
	anas, bens, orphan := finance.NewID()+".webp", finance.NewID()+".jpg", finance.NewID()+".png"
	writeFile(t, filepath.Join(dir, anas), "ana's picture")
	writeFile(t, filepath.Join(dir, orphan), "nobody's")
	modified := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(dir, anas), modified, modified); err != nil {
		t.Fatal(err)
	}
	// As an earlier version left the records: names, and the files beside.
	for u, name := range map[string]string{ana.ID: anas, ben.ID: bens} {
		err := db.Write(ctx, func(r finance.Repo) error {
			return r.SetProfilePicture(ctx, u, finance.ProfilePicture{File: &name}, now())
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n, err := db.ImportPictures(ctx, filepath.Join(t.TempDir(), "none")); err != nil || n != 0 {
		t.Errorf("no media folder: %d, %v", n, err)
	}
	n, err := db.ImportPictures(ctx, dir)
	if err != nil || n != 1 {
		t.Fatalf("ImportPictures = %d, %v; want 1", n, err)
	}
	f, err := db.Read().PictureFile(ctx, anas)
	if err != nil || string(f.Content) != "ana's picture" || f.ContentType != "image/webp" || !f.CreatedAt.Equal(modified) {
		t.Errorf("imported: %+v, %v", f, err)
	}
	if names, _ := db.PictureNames(ctx); !slices.Equal(names, []string{anas}) {
		t.Errorf("stored pictures %q, want only ana's", names)
	}
	if n, err := db.ImportPictures(ctx, dir); err != nil || n != 0 {
		t.Errorf("a second import: %d, %v; want 0", n, err)
	}
	if got := dirNames(t, dir); len(got) != 2 {
		t.Errorf("the media folder after the import holds %q, want both files left", got)
	}
	// The imported picture is the user's: replacing it deletes it.
	if _, err := finance.NewService(db).SetProfilePicture(ctx, ana.ID, finance.ProfilePicture{}, nil); err != nil {
		t.Fatal(err)
	}
	if names, _ := db.PictureNames(ctx); len(names) != 0 {
		t.Errorf("after removing ana's picture: %q", names)
	}
	_ = cy
}

// A backup of an earlier version carries the media folder's files; restored,
// they are back in the media folder, and the next start (ImportPictures)
// brings the pictures its users name into the database.
func TestRestoreOfAnEarlierBackupBringsItsPicturesBack(t *testing.T) {
	ctx := context.Background()
	dataDir := t.TempDir()
	dbPath := filepath.Join(dataDir, store.FileName)
	media := filepath.Join(dataDir, "media")
	old := openThrough(t, "20261217000100")
	sqliteOnly(t, old)
	u := createUser(t, old, "ana@example.com")
	name := finance.NewID() + ".png"
	execer(t, old)("UPDATE users SET profile_picture_file = ? WHERE id = ?", name, u.ID)
	backup := filepath.Join(t.TempDir(), "old.backup")
	if err := store.Backup(ctx, old.Path(), backup); err != nil {
		t.Fatal(err)
	}
	// As the earlier version's backup wrote its files.
	raw, err := sql.Open("sqlite", backup)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE TABLE backup_files (path TEXT PRIMARY KEY, content BLOB NOT NULL)",
		"INSERT INTO backup_files (path, content) VALUES ('profile-pictures/" + name + "', X'89504e47')"} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()

	r, err := store.Restore(ctx, backup, dbPath, media, time.Now())
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if r.Media != 1 {
		t.Errorf("Restore = %+v, want 1 media file", r)
	}
	db := openAt(t, dbPath)
	if _, err := db.Upgrade(ctx, filepath.Join(dataDir, "backups")); err != nil {
		t.Fatal(err)
	}
	if n, err := db.ImportPictures(ctx, filepath.Join(media, "profile-pictures")); err != nil || n != 1 {
		t.Fatalf("ImportPictures after the restore = %d, %v; want 1", n, err)
	}
	f, err := finance.NewService(db).PictureFile(ctx, name)
	if err != nil || !bytes.Equal(f.Content, []byte{0x89, 'P', 'N', 'G'}) || f.ContentType != "image/png" {
		t.Errorf("the restored picture: %+v, %v", f, err)
	}
}
