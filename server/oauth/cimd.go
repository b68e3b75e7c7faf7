package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document,
// recommended by the 2025-11-25 MCP authorization spec): a client_id that is
// an https URL names a JSON document in which the client describes itself.
// The server fetches it instead of asking the client to register. The fetch
// is a request to a URL chosen by whoever sends the authorization request, so
// it is held to strict limits: https only, no redirects, a small body, a short
// time, and no address that is not on the public internet (checked on the
// address actually dialled, so a name that resolves differently the second
// time cannot reach the local network).

// Limits of a metadata document fetch.
const (
	MetadataMaxBytes = 5 << 10 // 5 KiB
	MetadataTimeout  = 5 * time.Second
	// metadataCacheTTL is how long a fetched document is used before it is
	// fetched again; metadataCacheSize bounds the number kept.
	metadataCacheTTL  = 5 * time.Minute
	metadataCacheSize = 256
	maxClientIDURLLen = 512
)

// IsMetadataClientID reports whether clientID names a metadata document
// rather than a registered client. Registered client ids are never URLs.
// An http URL is taken as one too, so that it is refused for what it is.
func IsMetadataClientID(clientID string) bool {
	lower := strings.ToLower(clientID[:min(len(clientID), 8)])
	return strings.HasPrefix(lower, "https://") || strings.HasPrefix(lower, "http://")
}

// metadataDocument is the part of a client metadata document the server uses.
type metadataDocument struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	ClientURI               string   `json:"client_uri"`
	LogoURI                 string   `json:"logo_uri"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod *string  `json:"token_endpoint_auth_method"`
}

// MetadataError is a document that could not be fetched or used. Its
// message never repeats the document or the URL: it is shown to users.
type MetadataError struct {
	Reason string
	Err    error // the underlying failure, for logs; may be nil
}

func (e *MetadataError) Error() string {
	if e.Err != nil {
		return e.Reason + ": " + e.Err.Error()
	}
	return e.Reason
}

func (e *MetadataError) Unwrap() error { return e.Err }

func metadataErr(reason string, err error) *MetadataError {
	return &MetadataError{Reason: reason, Err: err}
}

// ErrForbiddenAddress refuses a connection to an address that is not on the
// public internet.
var ErrForbiddenAddress = errors.New("the address is not a public internet address")

// specialPrefixes are ranges netip does not classify but that never hold a
// client's public web server: shared address space (carrier-grade NAT),
// "this network", benchmarking, IETF protocol assignments, documentation,
// reserved space, NAT64 (which can embed any IPv4 address), 6to4, Teredo,
// discard-only and documentation IPv6.
var specialPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001::/32"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2002::/16"),
}

// PublicAddress reports whether ip may be connected to for a metadata
// document: a global unicast address that is not private (10/8, 172.16/12,
// 192.168/16, fc00::/7), loopback, link-local, unspecified, multicast or
// another special range. IPv4-mapped IPv6 addresses are checked as IPv4.
func PublicAddress(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() ||
		ip.IsUnspecified() || ip.IsMulticast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range specialPrefixes {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// guardDial is the net.Dialer Control of the metadata fetcher: it runs on
// the resolved address of every connection attempt.
func guardDial(network, address string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" && network != "tcp" {
		return ErrForbiddenAddress
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !PublicAddress(ap.Addr()) {
		return ErrForbiddenAddress
	}
	return nil
}

// metadataTransport is the production transport: no proxy (the guard must
// see the real destination), the dial guard, and tight timeouts.
func metadataTransport() http.RoundTripper {
	dialer := &net.Dialer{Timeout: MetadataTimeout, Control: guardDial}
	return &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		TLSHandshakeTimeout:    MetadataTimeout,
		ResponseHeaderTimeout:  MetadataTimeout,
		MaxResponseHeaderBytes: 16 << 10,
		MaxIdleConns:           16,
		IdleConnTimeout:        30 * time.Second,
		ForceAttemptHTTP2:      true,
	}
}

// metadataFetcher fetches and caches client metadata documents.
type metadataFetcher struct {
	client *http.Client
	now    func() time.Time

	mu    sync.Mutex
	cache map[string]cachedClient
}

type cachedClient struct {
	client    Client
	fetchedAt time.Time
}

func newMetadataFetcher(rt http.RoundTripper, timeout time.Duration, now func() time.Time) *metadataFetcher {
	if rt == nil {
		rt = metadataTransport()
	}
	if timeout <= 0 {
		timeout = MetadataTimeout
	}
	return &metadataFetcher{
		client: &http.Client{
			Transport: rt,
			Timeout:   timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return errors.New("redirects are not followed")
			},
		},
		now:   now,
		cache: map[string]cachedClient{},
	}
}

// checkClientIDURL validates a metadata client_id as a URL and returns the
// reason it is refused, or "".
func checkClientIDURL(raw string) string {
	if len(raw) > maxClientIDURLLen {
		return "the client_id URL is too long"
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || !strings.HasPrefix(raw, "https://") || u.Host == "" || u.Hostname() == "":
		return "the client_id URL must be an https URL with a host"
	case u.User != nil || strings.Contains(raw, "#"):
		return "the client_id URL must have no user information or fragment"
	case u.Path == "" || u.Path == "/":
		return "the client_id URL must have a path"
	case slices.ContainsFunc(strings.Split(u.Path, "/"), func(s string) bool { return s == "." || s == ".." }):
		return "the client_id URL must not contain . or .. path segments"
	case strings.ContainsAny(raw, " \t\r\n\\"):
		return "the client_id URL contains spaces or backslashes"
	}
	return ""
}

// client returns the client the document at clientID describes, from the
// cache when it was fetched in the last few minutes; fresh reports a new fetch.
func (f *metadataFetcher) resolve(ctx context.Context, clientID string) (c Client, fresh bool, err error) {
	now := f.now()
	f.mu.Lock()
	if e, ok := f.cache[clientID]; ok && now.Sub(e.fetchedAt) < metadataCacheTTL && !now.Before(e.fetchedAt) {
		f.mu.Unlock()
		return e.client, false, nil
	}
	f.mu.Unlock()
	c, err = f.fetch(ctx, clientID, now)
	if err != nil {
		return Client{}, false, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.cache) >= metadataCacheSize {
		// Drop what expired; if the cache is still full, the oldest entry.
		oldest := ""
		for k, e := range f.cache {
			if now.Sub(e.fetchedAt) >= metadataCacheTTL {
				delete(f.cache, k)
			} else if oldest == "" || e.fetchedAt.Before(f.cache[oldest].fetchedAt) {
				oldest = k
			}
		}
		if len(f.cache) >= metadataCacheSize {
			delete(f.cache, oldest)
		}
	}
	f.cache[clientID] = cachedClient{client: c, fetchedAt: now}
	return c, true, nil
}

// fetch downloads and validates the document at clientID.
func (f *metadataFetcher) fetch(ctx context.Context, clientID string, now time.Time) (Client, error) {
	if why := checkClientIDURL(clientID); why != "" {
		return Client{}, metadataErr(why, nil)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, clientID, nil)
	if err != nil {
		return Client{}, metadataErr("the client_id URL cannot be fetched", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		reason := "the app's metadata document could not be fetched"
		switch {
		case errors.Is(err, ErrForbiddenAddress):
			reason = "the app's metadata document is on an address that is not on the public internet"
		case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
			reason = "the app's metadata document took too long to fetch"
		}
		return Client{}, metadataErr(reason, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Client{}, metadataErr(fmt.Sprintf("fetching the app's metadata document answered HTTP %d", resp.StatusCode), nil)
	}
	mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || (mt != "application/json" && !(strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))) {
		return Client{}, metadataErr("the app's metadata document is not JSON (Content-Type must be application/json)", nil)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MetadataMaxBytes+1))
	if err != nil {
		reason := "the app's metadata document could not be read"
		if isTimeout(err) || errors.Is(err, context.DeadlineExceeded) {
			reason = "the app's metadata document took too long to fetch"
		}
		return Client{}, metadataErr(reason, err)
	}
	if len(body) > MetadataMaxBytes {
		return Client{}, metadataErr(fmt.Sprintf("the app's metadata document is larger than %d bytes", MetadataMaxBytes), nil)
	}
	var doc metadataDocument
	if err := json.Unmarshal(body, &doc); err != nil {
		return Client{}, metadataErr("the app's metadata document is not a valid JSON object", err)
	}
	return clientFromDocument(clientID, doc, now)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// clientFromDocument validates a fetched document as the client clientID.
func clientFromDocument(clientID string, doc metadataDocument, now time.Time) (Client, error) {
	if doc.ClientID != clientID {
		return Client{}, metadataErr("the app's metadata document names another client_id than its own URL", nil)
	}
	if m := doc.TokenEndpointAuthMethod; m != nil && *m != "none" {
		return Client{}, metadataErr("the app's metadata document asks for a token_endpoint_auth_method other than none; "+
			"this server accepts public clients only", nil)
	}
	if len(doc.RedirectURIs) == 0 || len(doc.RedirectURIs) > maxRedirectURIs {
		return Client{}, metadataErr("the app's metadata document must list 1 to 10 redirect_uris", nil)
	}
	for _, u := range doc.RedirectURIs {
		if why := checkRedirectURI(u); why != "" {
			return Client{}, metadataErr("the app's metadata document lists a refused redirect URI: "+why, nil)
		}
	}
	grantTypes := []string{"authorization_code", "refresh_token"}
	if len(doc.GrantTypes) > 0 {
		if !slices.Contains(doc.GrantTypes, "authorization_code") {
			return Client{}, metadataErr("the app's metadata document does not list the authorization_code grant type", nil)
		}
		grantTypes = grantTypes[:1]
		if slices.Contains(doc.GrantTypes, "refresh_token") {
			grantTypes = append(grantTypes, "refresh_token")
		}
	}
	if len(doc.ResponseTypes) > 0 && !slices.Contains(doc.ResponseTypes, "code") {
		return Client{}, metadataErr("the app's metadata document does not list the code response type", nil)
	}
	at := now.UTC().Truncate(time.Second)
	return Client{
		ID: clientID, Name: cleanClientName(doc.ClientName),
		RedirectURIs: slices.Compact(slices.Clone(doc.RedirectURIs)), GrantTypes: grantTypes,
		CreatedAt: at, MetadataDocument: true, FetchedAt: &at,
	}, nil
}

// MetadataHost is the host a metadata document client's description comes
// from, for the consent page ("example.com says it is Foo"); "" for a
// registered client.
func (c Client) MetadataHost() string {
	if !c.MetadataDocument {
		return ""
	}
	u, err := url.Parse(c.ID)
	if err != nil {
		return ""
	}
	return u.Host
}
