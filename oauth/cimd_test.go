package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

func TestPublicAddress(t *testing.T) {
	refused := []string{
		"127.0.0.1", "127.8.9.10", "::1", "10.0.0.1", "10.255.1.2", "172.16.0.1", "192.168.1.1",
		"169.254.169.254", "169.254.0.1", "fe80::1", "fc00::1", "fd12:3456::1", "0.0.0.0", "::",
		"224.0.0.1", "239.1.2.3", "ff02::1", "ff05::2", "255.255.255.255", "100.64.0.1", "0.1.2.3",
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a00:1", "2002:a00:1::1",
		"2001:db8::1", "192.0.2.10", "198.18.0.1",
	}
	for _, s := range refused {
		if PublicAddress(netip.MustParseAddr(s)) {
			t.Errorf("PublicAddress(%s) = true, want false", s)
		}
		if err := guardDial("tcp", netip.AddrPortFrom(netip.MustParseAddr(s), 443).String(), nil); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("guardDial(%s) = %v, want ErrForbiddenAddress", s, err)
		}
	}
	for _, s := range []string{"93.184.216.34", "1.1.1.1", "2606:2800:220:1:248:1893:25c8:1946", "2a00:1450:4001::200e"} {
		if !PublicAddress(netip.MustParseAddr(s)) {
			t.Errorf("PublicAddress(%s) = false, want true", s)
		}
		if err := guardDial("tcp", netip.AddrPortFrom(netip.MustParseAddr(s), 443).String(), nil); err != nil {
			t.Errorf("guardDial(%s) = %v", s, err)
		}
	}
	if err := guardDial("udp", "1.1.1.1:443", nil); err == nil {
		t.Error("guardDial accepted udp")
	}
}

// TestMetadataFetcherRefusesLoopback runs the production transport against
// a local TLS server: the dial guard refuses it before any byte is sent.
func TestMetadataFetcherRefusesLoopback(t *testing.T) {
	hit := false
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit = true }))
	defer srv.Close()
	f := newMetadataFetcher(nil, 0, 0, time.Now)
	f.wait = func(context.Context, time.Duration) {}
	for _, u := range []string{srv.URL + "/client.json", "https://[::1]:1/client.json", "https://10.0.0.1:1/client.json",
		"https://169.254.169.254/latest/client.json"} {
		_, err := f.resolve(context.Background(), u)
		if !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("resolve(%s) = %v, want ErrForbiddenAddress", u, err)
		}
	}
	if hit {
		t.Error("the local server was reached")
	}
}

func TestCheckClientIDURL(t *testing.T) {
	for _, ok := range []string{"https://app.example/client.json", "https://app.example:8443/oauth/client"} {
		if why := checkClientIDURL(ok); why != "" {
			t.Errorf("checkClientIDURL(%q) = %q", ok, why)
		}
	}
	for _, bad := range []string{"http://app.example/client.json", "https://app.example", "https://app.example/",
		"https://u@app.example/c", "https://app.example/c#f", "https://app.example/a/../c", "https:///c", "HTTPS://app.example/c"} {
		if why := checkClientIDURL(bad); why == "" {
			t.Errorf("checkClientIDURL(%q) accepted", bad)
		}
	}
}

// roundTripFunc answers fetches without a network.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestMetadataFailuresTakeTheTimeout: a failure that comes back at once
// (here a 404) is held until the fetch's timeout has passed since it began,
// as a fetch that timed out would be; a document that is fine is not held.
func TestMetadataFailuresTakeTheTimeout(t *testing.T) {
	const timeout = time.Minute
	status := http.StatusNotFound
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		body := `{"client_id":"` + r.URL.String() + `","redirect_uris":["https://app.example/cb"]}`
		return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	})
	f := newMetadataFetcher(rt, timeout, 0, time.Now)
	var waited []time.Duration
	f.wait = func(_ context.Context, d time.Duration) { waited = append(waited, d) }

	_, err := f.resolve(context.Background(), "https://app.example/missing.json")
	var me *MetadataError
	if !errors.As(err, &me) || len(waited) != 1 || waited[0] <= 0 || waited[0] > timeout {
		t.Fatalf("a 404: %v, waited %v; want a MetadataError after waiting out the rest of %s", err, waited, timeout)
	}
	status = http.StatusOK
	if _, err := f.resolve(context.Background(), "https://app.example/client.json"); err != nil || len(waited) != 1 {
		t.Errorf("a good document: %v, waited %v; want no wait", err, waited)
	}
}

// TestClientCacheBounds: the cache drops the least recently used document
// when it holds too many, or too many bytes, and forgets expired ones.
func TestClientCacheBounds(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	client := func(n int, name string) Client {
		return Client{ID: fmt.Sprintf("https://app.example/%d.json", n), Name: name,
			RedirectURIs: []string{"https://app.example/cb"}, GrantTypes: []string{"authorization_code"}}
	}
	has := func(c *clientCache, at time.Time, ns ...int) []int {
		var got []int
		for _, n := range ns {
			if _, ok := c.get(client(n, "").ID, at); ok {
				got = append(got, n)
			}
		}
		return got
	}

	byEntries := newClientCache(time.Minute, 3, 1<<20)
	for n := range 3 {
		byEntries.put(client(n, "app"), t0)
	}
	byEntries.get(client(0, "").ID, t0) // 0 is used again, so 1 is now the least recently used
	byEntries.put(client(3, "app"), t0)
	if diff := cmp.Diff([]int{0, 2, 3}, has(byEntries, t0, 0, 1, 2, 3)); diff != "" {
		t.Errorf("bounded by entries (-want +got):\n%s", diff)
	}

	big := strings.Repeat("x", 1000)
	size := clientSize(client(0, big))
	byBytes := newClientCache(time.Minute, 100, 2*size+size/2)
	for n := range 3 {
		byBytes.put(client(n, big), t0)
	}
	if diff := cmp.Diff([]int{1, 2}, has(byBytes, t0, 0, 1, 2)); diff != "" || byBytes.bytes > byBytes.maxBytes {
		t.Errorf("bounded by bytes (-want +got), %d of %d bytes:\n%s", byBytes.bytes, byBytes.maxBytes, diff)
	}

	if got := has(byBytes, t0.Add(time.Minute), 1, 2); len(got) != 0 || byBytes.order.Len() != 0 || byBytes.bytes != 0 {
		t.Errorf("after the TTL: %v kept, %d entries, %d bytes; want none", got, byBytes.order.Len(), byBytes.bytes)
	}
}

// codeStore is the one method of Store that Approve uses.
type codeStore struct {
	Store
	codes   []Code
	clients []*Client
}

func (s *codeStore) CreateOAuthCode(_ context.Context, c Code, client *Client) error {
	s.codes, s.clients = append(s.codes, c), append(s.clients, client)
	return nil
}

// TestApproveStoresTheMetadataClientChecked: Approve stores a metadata
// document client with its code, after the same checks the document
// passed when fetched, and stores nothing for a client that fails them.
func TestApproveStoresTheMetadataClientChecked(t *testing.T) {
	st := &codeStore{}
	s := New(st, Config{Issuer: "https://finance.example"})
	fetched := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := Client{ID: "https://app.example/client.json", Name: "App", RedirectURIs: []string{"https://app.example/cb"},
		GrantTypes: []string{"authorization_code", "refresh_token"}, MetadataDocument: true, CreatedAt: fetched, FetchedAt: &fetched}
	req := func(c Client) *AuthorizeRequest {
		return &AuthorizeRequest{Client: c, RedirectURI: "https://app.example/cb", Challenge: strings.Repeat("a", 43),
			Resource: s.Resource(), Offered: []auth.Scope{auth.ScopeRead}}
	}
	pro := finance.User{ID: "u1", Plan: finance.PlanPro}
	if _, err := s.Approve(context.Background(), req(c), pro, []auth.Scope{auth.ScopeRead}); err != nil {
		t.Fatal(err)
	}
	if len(st.clients) != 1 || st.clients[0] == nil || st.clients[0].Name != "App" || st.codes[0].ClientID != c.ID {
		t.Fatalf("stored %+v with %+v; want the client with its code", st.clients, st.codes)
	}

	for name, edit := range map[string]func(*Client){
		"a redirect URI refused":  func(c *Client) { c.RedirectURIs = []string{"javascript:alert(1)"} },
		"no redirect URI":         func(c *Client) { c.RedirectURIs = nil },
		"a grant type":            func(c *Client) { c.GrantTypes = []string{"client_credentials"} },
		"a client_id not https":   func(c *Client) { c.ID = "http://app.example/client.json" },
		"a name with a line feed": func(c *Client) { c.Name = "App\nAdmin" },
	} {
		bad := c
		bad.RedirectURIs, bad.GrantTypes = slices.Clone(c.RedirectURIs), slices.Clone(c.GrantTypes)
		edit(&bad)
		_, err := s.Approve(context.Background(), req(bad), pro, []auth.Scope{auth.ScopeRead})
		var ae *AuthorizeError
		if !errors.As(err, &ae) || ae.Description != MetadataRefused {
			t.Errorf("%s: %v, want the metadata refusal", name, err)
		}
	}
	if len(st.codes) != 1 {
		t.Errorf("%d codes stored; want only the first", len(st.codes))
	}

	// A registered client is stored by registration, never with a code.
	reg := Client{ID: "registered", Name: "Reg", RedirectURIs: []string{"https://app.example/cb"}, GrantTypes: []string{"authorization_code"}}
	if _, err := s.Approve(context.Background(), req(reg), pro, nil); err != nil || len(st.clients) != 2 || st.clients[1] != nil {
		t.Errorf("registered client: %v, stored %+v; want its code alone", err, st.clients)
	}
}
