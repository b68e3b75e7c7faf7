package server

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/server/oauth"
)

// docHost is the host of the metadata documents in the tests: the test TLS
// server's certificate is valid for it, and the injected transport dials
// the test server whatever the name.
const docHost = "example.com"

// metadataDocs serves client metadata documents from a local TLS server.
type metadataDocs struct {
	mu   sync.Mutex
	docs map[string]func(w http.ResponseWriter, r *http.Request)
	srv  *httptest.Server
}

func (d *metadataDocs) set(path string, h func(w http.ResponseWriter, r *http.Request)) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.docs[path] = h
	return "https://" + docHost + path
}

// jsonDoc serves v as a JSON document.
func jsonDoc(v any) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
}

// newCIMDEnv is an OAuth test server whose metadata document fetches reach
// a local TLS server; the production dial guard is replaced for that only.
func newCIMDEnv(t *testing.T) (*oauthEnv, *metadataDocs) {
	t.Helper()
	d := &metadataDocs{docs: map[string]func(http.ResponseWriter, *http.Request){}}
	d.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		h := d.docs[r.URL.Path]
		d.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(d.srv.Close)
	tr := d.srv.Client().Transport.(*http.Transport).Clone()
	addr := d.srv.Listener.Addr().String()
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	env := newOAuthEnvWith(t, oauth.Config{MetadataTransport: tr, MetadataTimeout: 200 * time.Millisecond})
	return env, d
}

func clientDoc(id, name string, redirects ...string) map[string]any {
	return map[string]any{"client_id": id, "client_name": name, "redirect_uris": redirects,
		"client_uri": "https://" + docHost, "token_endpoint_auth_method": "none",
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}}
}

func TestOAuthClientMetadataDocument(t *testing.T) {
	env, docs := newCIMDEnv(t)
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.signIn(u)

	id := "https://" + docHost + "/oauth/client.json"
	docs.set("/oauth/client.json", jsonDoc(clientDoc(id, "Doc Client", testRedirect, "https://example.com/cb")))
	a := newAuthRequest(id)
	a.redirectURI = "http://127.0.0.1:50505/callback" // loopback: any port, as for registered clients
	page := b.consent(a)
	if !page.contains("Doc Client") || !page.contains("<strong>example.com</strong> says this app is") {
		t.Fatalf("the consent page does not show the name and the document's host:\n%s", page.body)
	}
	x := b.decide(a, page, "approve", "finance:read")
	if x.status != http.StatusSeeOther {
		t.Fatalf("approve: status %d: %s", x.status, x.body)
	}
	code := x.location(t).Query().Get("code")
	tx := env.redeem(t, a, code)
	if tx.status != http.StatusOK {
		t.Fatalf("token: status %d: %s", tx.status, tx.body)
	}
	var tok oauth.TokenResponse
	tx.json(t, &tok)
	if env.health(t, tok.AccessToken) != http.StatusOK {
		t.Error("access token refused")
	}
	if rx := env.refresh(t, id, tok.RefreshToken); rx.status != http.StatusOK {
		t.Errorf("refresh: status %d: %s", rx.status, rx.body)
	}
	if grants, err := env.oauth.ListGrants(context.Background(), u.ID); err != nil || len(grants) != 1 || grants[0].ClientName != "Doc Client" {
		t.Errorf("grants = %+v, %v", grants, err)
	}

	// Within the cache time the document is not fetched again; after it,
	// the stored client is refreshed from the new document.
	docs.set("/oauth/client.json", jsonDoc(clientDoc(id, "Renamed Client", testRedirect)))
	if page := b.consent(newAuthRequest(id)); !page.contains("Doc Client") {
		t.Errorf("the cached document was not used:\n%s", page.body)
	}
	env.clock.Advance(6 * time.Minute)
	if page := b.consent(newAuthRequest(id)); !page.contains("Renamed Client") {
		t.Errorf("the document was not fetched again:\n%s", page.body)
	}
	if grants, _ := env.oauth.ListGrants(context.Background(), u.ID); len(grants) != 1 || grants[0].ClientName != "Renamed Client" {
		t.Errorf("stored client not refreshed: %+v", grants)
	}

	// A metadata document URL that never went through authorization has no client row.
	env.postForm(t, oauth.TokenPath, url.Values{"grant_type": {"authorization_code"}, "code": {"x"},
		"code_verifier": {a.verifier}, "client_id": {"https://" + docHost + "/never.json"}}).
		wantOAuthError(t, http.StatusUnauthorized, "invalid_client")
}

func TestOAuthClientMetadataDocumentRefused(t *testing.T) {
	env, docs := newCIMDEnv(t)
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.signIn(u)
	blockUntil := t.Context()

	good := func(path string) string { return "https://" + docHost + path }
	cases := []struct {
		name, path string
		clientID   string // default: the document's URL
		handler    func(w http.ResponseWriter, r *http.Request)
		redirect   string // default: testRedirect
		want       string
	}{
		{name: "client_id mismatch", path: "/mismatch.json",
			handler: jsonDoc(clientDoc(good("/other.json"), "Mismatch", testRedirect)), want: "names another client_id"},
		{name: "http URL", path: "/plain.json", clientID: "http://" + docHost + "/plain.json",
			handler: jsonDoc(clientDoc("http://"+docHost+"/plain.json", "Plain", testRedirect)), want: "must be an https URL"},
		{name: "oversize", path: "/big.json", handler: func(w http.ResponseWriter, r *http.Request) {
			doc := clientDoc(good("/big.json"), strings.Repeat("x", 6000), testRedirect)
			jsonDoc(doc)(w, r)
		}, want: "larger than 5120 bytes"},
		{name: "timeout", path: "/slow.json", handler: func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-blockUntil.Done():
			}
		}, want: "took too long"},
		{name: "not JSON", path: "/html.json", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html></html>"))
		}, want: "is not JSON"},
		{name: "invalid JSON", path: "/broken.json", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte("{"))
		}, want: "not a valid JSON object"},
		{name: "redirect URI not listed", path: "/listed.json",
			handler:  jsonDoc(clientDoc(good("/listed.json"), "Listed", "https://example.com/cb")),
			redirect: "https://evil.example/cb", want: "not listed in the app's metadata document"},
		{name: "a redirect", path: "/moved.json", handler: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://"+docHost+"/listed.json", http.StatusFound)
		}, want: "could not be fetched"},
		{name: "not found", path: "/missing.json", want: "answered HTTP 404"},
		{name: "client secret", path: "/secret.json", handler: func(w http.ResponseWriter, r *http.Request) {
			doc := clientDoc(good("/secret.json"), "Secret", testRedirect)
			doc["token_endpoint_auth_method"] = "client_secret_basic"
			jsonDoc(doc)(w, r)
		}, want: "public clients only"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			id := good(tt.path)
			if tt.handler != nil {
				docs.set(tt.path, tt.handler)
			}
			if tt.clientID != "" {
				id = tt.clientID
			}
			a := newAuthRequest(id)
			if tt.redirect != "" {
				a.redirectURI = tt.redirect
			}
			wantRefusalPage(t, b.get(oauth.AuthorizePath+"?"+a.query().Encode()), tt.want)
		})
	}
	wantNoGrant(t, env, u)
}
