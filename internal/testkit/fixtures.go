package testkit

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"testing"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/store"
)

// NewPassword is the password the tests change a user's password to.
const NewPassword = "a brand new password"

// AllScopeNames are the names of every scope a credential may hold.
var AllScopeNames = []string{"finance:read", "expenses:write", "income:write", "accounts:write", "bills:write",
	"loans:write", "credit_cards:write", "settings:write", "mcp:connect"}

// CreateKey creates an API key for userID with scopes and returns the
// stored key and the full key string.
func CreateKey(t testing.TB, svc *auth.Service, userID string, scopes ...auth.Scope) (auth.APIKey, string) {
	t.Helper()
	k, key, err := svc.CreateKey(context.Background(), auth.CreateKeyRequest{UserID: userID, Name: "test key", Scopes: scopeNames(scopes)})
	if err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	return k, key
}

func scopeNames(scopes []auth.Scope) []string {
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	return names
}

// expiredKeyStore stores every key it is given as having expired an hour
// before it was created; the key is otherwise real and lives in the same database.
type expiredKeyStore struct{ *store.DB }

func (s expiredKeyStore) CreateAPIKey(ctx context.Context, k auth.APIKey) error {
	past := k.CreatedAt.Add(-time.Hour)
	k.ExpiresAt = &past
	return s.DB.CreateAPIKey(ctx, k)
}

// CreateExpiredKey creates a key in db that has already expired.
func CreateExpiredKey(t testing.TB, db *store.DB, userID string, scopes ...auth.Scope) string {
	t.Helper()
	svc := auth.NewService(expiredKeyStore{db}, nil)
	_, key, err := svc.CreateKey(context.Background(), auth.CreateKeyRequest{
		UserID: userID, Name: "expired key", Scopes: scopeNames(scopes), ExpiresIn: time.Hour,
	})
	if err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	return key
}

// SetCardRowStatus moves a card row to status the way statements and
// installment plans do, straight in the store.
func SetCardRowStatus(t testing.TB, db *store.DB, userID, id, status string) {
	t.Helper()
	err := db.Write(context.Background(), func(tx finance.Repo) error {
		ct, err := tx.CardTransaction(context.Background(), userID, id)
		if err != nil {
			return err
		}
		ct.Status = status
		return tx.UpdateCardTransaction(context.Background(), userID, ct)
	})
	if err != nil {
		t.Fatalf("set card row %s to %s: %v", id, status, err)
	}
}

// DBContains reports whether the database files (the main file and its
// write-ahead log) hold s anywhere, in any table.
func DBContains(t testing.TB, db *store.DB, s string) bool {
	t.Helper()
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(db.Path() + suffix)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(s)) {
			return true
		}
	}
	return false
}

// PNGStub is a whole PNG of one pixel: its header gives its size.
var PNGStub = func() []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		panic(err)
	}
	return buf.Bytes()
}()

// PNGBytes is a PNG signature padded to size bytes: the server sniffs
// the type from the first bytes and never decodes the image.
func PNGBytes(size int) []byte {
	b := make([]byte, size)
	copy(b, "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	return b
}

// The first bytes of images of other types.
var (
	JPEGBytes = []byte("\xFF\xD8\xFF\xE0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
	WebPBytes = []byte("RIFF\x24\x00\x00\x00WEBPVP8 \x18\x00\x00\x00\x30\x01\x00\x9d\x01\x2a")
	GIFBytes  = []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!")
)

// ImportRows writes an import batch's rows one a line, as the tests compare
// them: "line action record [match] [category/reason] [error: …]".
func ImportRows(rows []finance.ImportRow) []string {
	var out []string
	for _, r := range rows {
		s := fmt.Sprintf("%d %s %s", r.Line, r.Action, r.Record)
		if r.Match != nil {
			s += " " + r.Match.Kind
		}
		if r.Category != nil {
			s += " " + *r.Category + "/" + *r.CategoryReason
			if r.CategoryRule != nil {
				s += fmt.Sprintf(" %d", r.CategoryRule.Position)
			}
		}
		if r.Error != nil {
			s += " error: " + *r.Error
		}
		out = append(out, s)
	}
	return out
}
