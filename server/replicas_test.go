package server

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/store"
	"github.com/finance-app/finance/web"
)

// replicaOn is a server on db as finance serve builds one: its signing key
// is the database's, shared by every server on it.
func replicaOn(t *testing.T, db *store.DB) *testEnv {
	t.Helper()
	key, err := db.SigningKey(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	issuer, err := auth.NewJWT(key, auth.DefaultJWTTTL)
	if err != nil {
		t.Fatal(err)
	}
	svc := auth.NewService(db, issuer)
	logs := &testkit.LogBuffer{}
	cfg := Config{BaseURL: testkit.BaseURL, Version: "test-version", UploadDir: t.TempDir()}
	return &testEnv{t: t, db: db, jwtSecret: key, jwt: issuer, auth: svc, srv: New(cfg, newTextLog(logs), svc, db), logs: logs}
}

// Two servers on one database, with nothing else in common (no data
// directory), serve as one: a sign-in signed by one is accepted by the
// other, and a profile picture uploaded through one is served by the other,
// with the same headers; a picture replaced through the other is gone from
// both.
func TestTwoServersOnOneDatabase(t *testing.T) {
	dbA, dbB := testkit.OpenTwice(t)
	a, b := replicaOn(t, dbA), replicaOn(t, dbB)
	if !bytes.Equal(a.jwtSecret, b.jwtSecret) {
		t.Fatal("the two servers sign with different keys")
	}
	u := a.createUser(finance.PlanPro)
	token := a.login(u)
	apiScenario{method: http.MethodGet, url: accountURL, headers: bearer(token), wantStatus: http.StatusOK,
		wantMessage: "Account retrieved"}.run(t, b)

	png := testkit.PNGBytes(4096)
	body, ct := pictureForm(t, "file", "me.png", png)
	var acc finance.UserAccount
	apiScenario{method: http.MethodPut, url: pictureURL, body: body,
		headers:    map[string]string{"Authorization": "Bearer " + token, "Content-Type": ct},
		wantStatus: http.StatusOK, wantMessage: "Profile picture updated"}.run(t, a).decodeData(t, &acc)
	path := strings.TrimPrefix(*acc.ProfilePictureURL, testkit.BaseURL)
	if !strings.HasPrefix(path, web.ProfilePicturesPath+"/") {
		t.Fatalf("picture URL %q", *acc.ProfilePictureURL)
	}
	fromA := apiScenario{method: http.MethodGet, url: path, wantStatus: http.StatusOK}.run(t, a)
	fromB := apiScenario{method: http.MethodGet, url: path, wantStatus: http.StatusOK}.run(t, b)
	if !bytes.Equal(fromB.raw, png) {
		t.Errorf("B serves %d bytes, want the %d uploaded through A", len(fromB.raw), len(png))
	}
	for _, h := range []string{"Content-Type", "Cache-Control", "ETag", "Last-Modified", "X-Content-Type-Options", "Content-Security-Policy"} {
		if got, want := fromB.header.Get(h), fromA.header.Get(h); got != want || got == "" {
			t.Errorf("%s: B says %q, A %q", h, got, want)
		}
	}
	// A browser that has the picture from A asks B whether it changed: no.
	apiScenario{method: http.MethodGet, url: path, headers: map[string]string{"If-None-Match": fromA.header.Get("ETag")},
		wantStatus: http.StatusNotModified}.run(t, b)

	// Replaced through B: gone from A too.
	apiScenario{method: http.MethodPut, url: pictureURL, headers: bearer(token), body: `{"url":null}`, wantStatus: http.StatusOK}.run(t, b)
	apiScenario{method: http.MethodGet, url: path, wantStatus: http.StatusNotFound}.run(t, a)
	if names := a.uploads(t); len(names) != 0 {
		t.Errorf("stored pictures after the removal: %q", names)
	}
}
