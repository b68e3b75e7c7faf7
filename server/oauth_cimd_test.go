package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/oauth"
	"github.com/finance-app/finance/web"
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
func newCIMDEnv(t *testing.T, configure ...func(*Config)) (*oauthEnv, *metadataDocs) {
	t.Helper()
	return newCIMDEnvWith(t, oauth.Config{MetadataTimeout: 200 * time.Millisecond}, configure...)
}

// newCIMDEnvWith is newCIMDEnv with the authorization server configured by ocfg.
func newCIMDEnvWith(t *testing.T, ocfg oauth.Config, configure ...func(*Config)) (*oauthEnv, *metadataDocs) {
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
	ocfg.MetadataTransport = tr
	return newOAuthEnvWith(t, ocfg, configure...), d
}

func clientDoc(id, name string, redirects ...string) map[string]any {
	return map[string]any{"client_id": id, "client_name": name, "redirect_uris": redirects,
		"client_uri": "https://" + docHost, "token_endpoint_auth_method": "none",
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}}
}

// wantNoClientRow checks that no client is stored under id.
func wantNoClientRow(t *testing.T, env *oauthEnv, id string) {
	t.Helper()
	if c, err := env.db.OAuthClient(context.Background(), id); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("client %s: %+v, %v; want none stored", id, c, err)
	}
}

// storedClient is the client row stored under id.
func storedClient(t *testing.T, env *oauthEnv, id string) oauth.Client {
	t.Helper()
	c, err := env.db.OAuthClient(context.Background(), id)
	if err != nil {
		t.Fatalf("client %s: %v", id, err)
	}
	return c
}

func TestOAuthClientMetadataDocument(t *testing.T) {
	env, docs := newCIMDEnv(t)
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.SignIn(u)

	id := "https://" + docHost + "/oauth/client.json"
	docs.set("/oauth/client.json", jsonDoc(clientDoc(id, "Doc Client", testRedirect, "https://example.com/cb")))
	a := newAuthRequest(id)
	a.redirectURI = "http://127.0.0.1:50505/callback" // loopback: any port, as for registered clients
	page := consent(b, a)
	if !page.Contains("Doc Client") || !page.Contains("<strong>example.com</strong> says this app is") {
		t.Fatalf("the consent page does not show the name and the document's host:\n%s", page.Body)
	}
	// Until the person approves, the document is only in memory.
	wantNoClientRow(t, env, id)
	wantOAuthError(t, env.postForm(t, oauth.TokenPath, url.Values{"grant_type": {"authorization_code"}, "code": {"x"},
		"code_verifier": {a.verifier}, "client_id": {id}}), http.StatusUnauthorized, "invalid_client")

	x := decide(b, a, page, "approve", "finance:read")
	if x.Status != http.StatusSeeOther {
		t.Fatalf("approve: status %d: %s", x.Status, x.Body)
	}
	stored := storedClient(t, env, id)
	want := oauth.Client{ID: id, Name: "Doc Client", RedirectURIs: []string{testRedirect, "https://example.com/cb"},
		GrantTypes: []string{"authorization_code", "refresh_token"}, MetadataDocument: true}
	if diff := cmp.Diff(want, stored, cmpopts.IgnoreFields(oauth.Client{}, "CreatedAt", "FetchedAt")); diff != "" || stored.FetchedAt == nil {
		t.Errorf("client stored at approval (-want +got):\n%s\nfetched at %v", diff, stored.FetchedAt)
	}
	code := x.Location(t).Query().Get("code")
	tx := env.redeem(t, a, code)
	if tx.Status != http.StatusOK {
		t.Fatalf("token: status %d: %s", tx.Status, tx.Body)
	}
	var tok oauth.TokenResponse
	tx.JSON(t, &tok)
	if env.health(t, tok.AccessToken) != http.StatusOK {
		t.Error("access token refused")
	}
	if rx := env.refresh(t, id, tok.RefreshToken); rx.Status != http.StatusOK {
		t.Errorf("refresh: status %d: %s", rx.Status, rx.Body)
	}
	if grants, err := env.oauth.ListGrants(context.Background(), u.ID); err != nil || len(grants) != 1 || grants[0].ClientName != "Doc Client" {
		t.Errorf("grants = %+v, %v", grants, err)
	}

	// Within the cache time the document is not fetched again. After it, it
	// is, and the stored client follows it only when the person approves
	// again: showing the consent page changes nothing stored.
	docs.set("/oauth/client.json", jsonDoc(clientDoc(id, "Renamed Client", testRedirect)))
	if page := consent(b, newAuthRequest(id)); !page.Contains("Doc Client") {
		t.Errorf("the cached document was not used:\n%s", page.Body)
	}
	env.clock.Advance(6 * time.Minute)
	again := newAuthRequest(id)
	page = consent(b, again)
	if !page.Contains("Renamed Client") {
		t.Errorf("the document was not fetched again:\n%s", page.Body)
	}
	if got := storedClient(t, env, id); got.Name != "Doc Client" || len(got.RedirectURIs) != 2 {
		t.Errorf("a consent page refreshed the stored client: %+v", got)
	}
	if x := decide(b, again, page, "approve", "finance:read"); x.Status != http.StatusSeeOther {
		t.Fatalf("approve again: status %d: %s", x.Status, x.Body)
	}
	if got := storedClient(t, env, id); got.Name != "Renamed Client" || !slices.Equal(got.RedirectURIs, []string{testRedirect}) ||
		!got.CreatedAt.Equal(stored.CreatedAt) {
		t.Errorf("after the second approval: %+v; want the renamed document, stored since the first", got)
	}

	// Denying stores nothing either.
	denied := "https://" + docHost + "/oauth/denied.json"
	docs.set("/oauth/denied.json", jsonDoc(clientDoc(denied, "Denied Client", testRedirect)))
	d := newAuthRequest(denied)
	if x := decide(b, d, consent(b, d), "deny"); x.Status != http.StatusSeeOther || x.Location(t).Query().Get("error") != "access_denied" {
		t.Errorf("deny: %d to %q", x.Status, x.Header.Get("Location"))
	}
	wantNoClientRow(t, env, denied)

	// A metadata document URL that never went through authorization has no client row.
	wantOAuthError(t, env.postForm(t, oauth.TokenPath, url.Values{"grant_type": {"authorization_code"}, "code": {"x"},
		"code_verifier": {a.verifier}, "client_id": {"https://" + docHost + "/never.json"}}), http.StatusUnauthorized, "invalid_client")
}

// metadataRefused is what a person is told about every metadata document
// that could not be fetched or used, whatever went wrong with it.
const metadataRefused = "The app's client_id is a metadata document URL, and the document there could not be fetched " +
	"or is not a client metadata document this server accepts."

func TestOAuthClientMetadataDocumentRefused(t *testing.T) {
	env, docs := newCIMDEnv(t)
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.SignIn(u)
	blockUntil := t.Context()

	good := func(path string) string { return "https://" + docHost + path }
	status := func(code int) func(w http.ResponseWriter, r *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) }
	}
	// Every failure of the fetch or of the document reads the same, so
	// that the page tells nothing about a host it was pointed at; only
	// what is wrong with the request itself is named.
	cases := []struct {
		name, path string
		clientID   string // default: the document's URL
		handler    func(w http.ResponseWriter, r *http.Request)
		redirect   string // default: testRedirect
		want       string // default: metadataRefused
	}{
		{name: "client_id mismatch", path: "/mismatch.json",
			handler: jsonDoc(clientDoc(good("/other.json"), "Mismatch", testRedirect))},
		{name: "oversize", path: "/big.json", handler: func(w http.ResponseWriter, r *http.Request) {
			doc := clientDoc(good("/big.json"), strings.Repeat("x", 6000), testRedirect)
			jsonDoc(doc)(w, r)
		}},
		{name: "timeout", path: "/slow.json", handler: func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-blockUntil.Done():
			}
		}},
		{name: "not JSON", path: "/html.json", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html></html>"))
		}},
		{name: "invalid JSON", path: "/broken.json", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte("{"))
		}},
		{name: "a redirect", path: "/moved.json", handler: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://"+docHost+"/listed.json", http.StatusFound)
		}},
		{name: "not found", path: "/missing.json"},
		{name: "forbidden", path: "/forbidden.json", handler: status(http.StatusForbidden)},
		{name: "server error", path: "/error.json", handler: status(http.StatusInternalServerError)},
		{name: "client secret", path: "/secret.json", handler: func(w http.ResponseWriter, r *http.Request) {
			doc := clientDoc(good("/secret.json"), "Secret", testRedirect)
			doc["token_endpoint_auth_method"] = "client_secret_basic"
			jsonDoc(doc)(w, r)
		}},
		{name: "a refused redirect URI in the document", path: "/scheme.json",
			handler: jsonDoc(clientDoc(good("/scheme.json"), "Scheme", "javascript:alert(1)"))},
		// Nothing is fetched for a URL that cannot name a document.
		{name: "http URL", path: "/plain.json", clientID: "http://" + docHost + "/plain.json",
			handler: jsonDoc(clientDoc("http://"+docHost+"/plain.json", "Plain", testRedirect)), want: "must be an https URL"},
		// The document is fine; the request is not.
		{name: "redirect URI not listed", path: "/listed.json",
			handler:  jsonDoc(clientDoc(good("/listed.json"), "Listed", "https://example.com/cb")),
			redirect: "https://evil.example/cb", want: "not listed in the app's metadata document"},
	}
	var neutral []byte
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
			x := b.Get(oauth.AuthorizePath + "?" + a.query().Encode())
			if tt.want != "" {
				wantRefusalPage(t, x, tt.want)
				return
			}
			wantRefusalPage(t, x, metadataRefused)
			if neutral == nil {
				neutral = x.Body
			} else if !bytes.Equal(neutral, x.Body) {
				t.Errorf("the page differs from the first failure's:\n%s\nfirst:\n%s", x.Body, neutral)
			}
			wantNoClientRow(t, env, id)
		})
	}
	wantNoGrant(t, env, u)
}

// TestOAuthMetadataAuthorizeFlood: anonymous authorization requests, each
// naming another metadata document, are limited per client IP before any
// fetch, and the documents fetched are kept in memory only.
func TestOAuthMetadataAuthorizeFlood(t *testing.T) {
	env, docs := newCIMDEnv(t, func(c *Config) { c.AuthorizeRateLimit = Rate{Count: 20, Window: time.Hour, Burst: 20} })
	var fetched atomic.Int32
	var ids []string
	for i := range 300 {
		path := fmt.Sprintf("/flood/%d.json", i)
		ids = append(ids, docs.set(path, func(w http.ResponseWriter, r *http.Request) {
			fetched.Add(1)
			jsonDoc(clientDoc("https://"+docHost+path, "Flood", testRedirect))(w, r)
		}))
	}
	anonymous := env.browser(t)
	var allowed, limited int
	for _, id := range ids {
		x := anonymous.Get(oauth.AuthorizePath + "?" + newAuthRequest(id).query().Encode())
		switch {
		case x.Status == http.StatusSeeOther && x.Location(t).Path == web.LoginPath:
			allowed++
		case x.Status == http.StatusTooManyRequests:
			limited++
			if s, err := strconv.Atoi(x.Header.Get("Retry-After")); err != nil || s < 1 || s > 180 {
				t.Fatalf("Retry-After %q, want 1 to 180 seconds", x.Header.Get("Retry-After"))
			}
			if !x.Contains("Too many attempts from your network") || !strings.HasPrefix(x.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("the refusal is not the page that says so:\n%s", x.Body)
			}
		default:
			t.Fatalf("%s: status %d: %s", id, x.Status, x.Body)
		}
	}
	if allowed != 20 || limited != 280 || fetched.Load() != 20 {
		t.Errorf("%d sent to sign in, %d limited, %d documents fetched; want 20, 280, 20", allowed, limited, fetched.Load())
	}
	// The fallback path is the same endpoint, with the same count.
	if x := anonymous.Get(oauth.FallbackAuthorizePath + "?" + newAuthRequest(ids[0]).query().Encode()); x.Status != http.StatusTooManyRequests {
		t.Errorf("%s after the limit: status %d", oauth.FallbackAuthorizePath, x.Status)
	}
	for _, id := range ids {
		wantNoClientRow(t, env, id)
	}
}

// TestOAuthMetadataFetchesInFlightAreCapped: at the cap of fetches in
// flight, a request that needs another fetch is refused at once with a
// page that says the server is busy; one served from the cache is not.
func TestOAuthMetadataFetchesInFlightAreCapped(t *testing.T) {
	env, docs := newCIMDEnvWith(t, oauth.Config{MetadataFetches: 1, MetadataTimeout: time.Minute})
	entered, release := make(chan struct{}), make(chan struct{})
	slow := docs.set("/slow.json", func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		jsonDoc(clientDoc("https://"+docHost+"/slow.json", "Slow", testRedirect))(w, r)
	})
	quick := docs.set("/quick.json", jsonDoc(clientDoc("https://"+docHost+"/quick.json", "Quick", testRedirect)))
	b := env.browser(t)
	done := make(chan testkit.Exchange)
	go func() { done <- b.Get(oauth.AuthorizePath + "?" + newAuthRequest(slow).query().Encode()) }()
	<-entered
	x := b.Get(oauth.AuthorizePath + "?" + newAuthRequest(quick).query().Encode())
	close(release)
	if x.Status != http.StatusServiceUnavailable || x.Header.Get("Retry-After") != "10" || x.Header.Get("Location") != "" {
		t.Errorf("at the cap: status %d, Retry-After %q, Location %q; want 503, 10 and no redirect",
			x.Status, x.Header.Get("Retry-After"), x.Header.Get("Location"))
	}
	if !x.Contains("The server is busy") || !x.Contains("try again in a few seconds") {
		t.Errorf("the refusal does not say the server is busy:\n%s", x.Body)
	}
	if first := <-done; first.Status != http.StatusSeeOther {
		t.Errorf("the fetch in flight: status %d: %s", first.Status, first.Body)
	}
	// With the slot free, the refused request goes through; and the slow
	// document is now served from the cache.
	for _, id := range []string{quick, slow} {
		if x := b.Get(oauth.AuthorizePath + "?" + newAuthRequest(id).query().Encode()); x.Status != http.StatusSeeOther {
			t.Errorf("%s after the cap: status %d: %s", id, x.Status, x.Body)
		}
	}
}
