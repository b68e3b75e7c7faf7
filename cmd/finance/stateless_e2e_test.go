package main

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/store"
)

// An upgrade keeps sign-ins: the jwt.key an earlier version left in the
// data directory becomes the database's signing key on the first command,
// and stays as it was. A second server on the same database with a data
// directory of its own (no key file, no media) accepts the first one's
// sign-ins and serves the picture uploaded through it.
func TestSigningKeyFileAndASecondDataDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test builds and runs the binary")
	}
	bin := buildBinary(t)
	dataDir := t.TempDir()
	fileKey := make([]byte, 32)
	rand.Read(fileKey)
	keyFile := filepath.Join(dataDir, "jwt.key")
	if err := os.WriteFile(keyFile, fileKey, 0o600); err != nil {
		t.Fatal(err)
	}
	const email, password = "ana@example.com", "a long enough password"
	binMustRun(t, bin, dataDir, password+"\n", "users", "create", "--email", email, "--password-stdin")
	key := string(bytes.TrimSpace([]byte(binMustRun(t, bin, dataDir, "", "keys", "create", "--user", email, "--name", "e2e",
		"--scopes", "all").stdout)))

	// Both servers use the first data directory's database: its finance.db,
	// or on Postgres the database the tests gave it.
	database := databaseURL(t, dataDir)
	if database == "" {
		database = "sqlite:" + filepath.Join(dataDir, store.FileName)
	}
	serve := func(dir string) *serverProc {
		return startServerCmd(t, exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dir,
			"--database-url", database, "--rate-limit", "off", "--backup-interval", "off"))
	}
	a := serve(dataDir)
	status, env := call(t, http.MethodPost, a.url+"/api/v1/auth/login", "", map[string]string{"email": email, "password": password})
	var login struct {
		AccessToken string `json:"access_token"`
	}
	if status != http.StatusOK || json.Unmarshal(env.Data, &login) != nil || login.AccessToken == "" {
		t.Fatalf("login: %d %s", status, env.Data)
	}
	issuer, err := auth.NewJWT(fileKey, auth.DefaultJWTTTL)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := issuer.Verify(login.AccessToken); err != nil {
		t.Errorf("the token is not signed with jwt.key's key: %v", err)
	}
	if got, err := os.ReadFile(keyFile); err != nil || !bytes.Equal(got, fileKey) {
		t.Errorf("jwt.key changed: %v", err)
	}
	picture := uploadPicture(t, a.url, key)

	b := serve(t.TempDir())
	if status, env := call(t, http.MethodGet, b.url+"/api/v1/user-settings/account", login.AccessToken, nil); status != http.StatusOK {
		t.Errorf("A's sign-in on B: %d %s", status, env.Data)
	}
	if got := profilePicture(t, b.url, key); !bytes.Equal(got, picture) {
		t.Errorf("B serves %d bytes, want the %d uploaded through A", len(got), len(picture))
	}
}
