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
// time cannot reach the local network). Only a few fetches run at once,
// server wide. A document is kept in a bounded memory cache until a person
// approves the client on the consent page; only then is the client stored.
// Every failure reads the same to whoever sent the request, and takes as
// long as a fetch that timed out, so that the server cannot be used to
// probe other hosts (whether they answer, with what status, how fast).

// Limits of a metadata document fetch.
const (
	MetadataMaxBytes = 5 << 10 // 5 KiB
	MetadataTimeout  = 5 * time.Second
	// MaxMetadataFetches is how many documents are fetched at once, server
	// wide, unless Config.MetadataFetches says otherwise; a request that
	// needs one more is refused with ErrMetadataBusy.
	MaxMetadataFetches = 8
	// MetadataBusyRetryAfter is how long a request refused with
	// ErrMetadataBusy is told to wait: about as long as a slow fetch.
	MetadataBusyRetryAfter = 10 * time.Second
	// metadataCacheTTL is how long a fetched document is used before it is
	// fetched again. The cache holds at most metadataCacheEntries documents
	// and metadataCacheBytes of them (a document is at most 5 KiB).
	metadataCacheTTL     = 5 * time.Minute
	metadataCacheEntries = 256
	metadataCacheBytes   = 1 << 20
	maxClientIDURLLen    = 512
)

// ErrMetadataBusy refuses a request whose metadata document would be one
// fetch more than the server runs at once.
var ErrMetadataBusy = errors.New("oauth: as many client metadata documents are being fetched as the server allows")

// MetadataRefused is what a person is told about every metadata document
// that could not be fetched or used, whatever went wrong: the reason is
// logged for the server's operator, never shown.
const MetadataRefused = "The app's client_id is a metadata document URL, and the document there could not be fetched " +
	"or is not a client metadata document this server accepts."

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
// reason, for the log, never repeats the document; people are shown
// MetadataRefused instead.
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
	cache  *clientCache
	// slots holds one token per fetch running.
	slots chan struct{}
	// wait sleeps for d or until ctx ends: the time that makes a failure
	// as long as a timeout. Tests of the fetcher alone skip it.
	wait func(ctx context.Context, d time.Duration)
}

func newMetadataFetcher(rt http.RoundTripper, timeout time.Duration, fetches int, now func() time.Time) *metadataFetcher {
	if rt == nil {
		rt = metadataTransport()
	}
	if timeout <= 0 {
		timeout = MetadataTimeout
	}
	if fetches <= 0 {
		fetches = MaxMetadataFetches
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
		cache: newClientCache(metadataCacheTTL, metadataCacheEntries, metadataCacheBytes),
		slots: make(chan struct{}, fetches),
		wait:  sleep,
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
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

// resolve returns the client the document at clientID (a URL that passed
// checkClientIDURL) describes: from the cache when it was fetched in the
// last few minutes, else fetched now in one of the server's fetch slots
// (ErrMetadataBusy when none is free). A failure is a *MetadataError,
// returned once the fetcher's timeout has passed since the fetch began.
func (f *metadataFetcher) resolve(ctx context.Context, clientID string) (Client, error) {
	now := f.now()
	if c, ok := f.cache.get(clientID, now); ok {
		return c, nil
	}
	select {
	case f.slots <- struct{}{}:
	default:
		return Client{}, ErrMetadataBusy
	}
	start := time.Now()
	c, err := func() (Client, error) {
		defer func() { <-f.slots }()
		return f.fetch(ctx, clientID, now)
	}()
	if err != nil {
		// Outside the slot: waiting costs a goroutine, not a fetch.
		f.wait(ctx, f.client.Timeout-time.Since(start))
		return Client{}, err
	}
	f.cache.put(c, now)
	return c, nil
}

// fetch downloads and validates the document at clientID.
func (f *metadataFetcher) fetch(ctx context.Context, clientID string, now time.Time) (Client, error) {
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
		return Client{}, metadataErr(fmt.Sprintf("the app's metadata document was answered with HTTP %d", resp.StatusCode), nil)
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
	c := Client{
		ID: clientID, Name: cleanClientName(doc.ClientName),
		RedirectURIs: slices.Compact(slices.Clone(doc.RedirectURIs)), GrantTypes: grantTypes,
		CreatedAt: at, MetadataDocument: true, FetchedAt: &at,
	}
	if why := c.metadataProblem(); why != "" {
		return Client{}, metadataErr("the app's metadata document "+why, nil)
	}
	return c, nil
}

// metadataProblem says what is wrong with a client taken from a metadata
// document, or "". The same checks run when the document is fetched and
// again on the client stored at approval.
func (c Client) metadataProblem() string {
	switch {
	case !c.MetadataDocument:
		return "is not a metadata document client"
	case checkClientIDURL(c.ID) != "":
		return "has a refused client_id URL: " + checkClientIDURL(c.ID)
	case c.Name != cleanClientName(c.Name):
		return "has a client_name that is not clean"
	case len(c.RedirectURIs) == 0 || len(c.RedirectURIs) > maxRedirectURIs:
		return "must list 1 to 10 redirect_uris"
	case !slices.Equal(c.GrantTypes, []string{"authorization_code"}) &&
		!slices.Equal(c.GrantTypes, []string{"authorization_code", "refresh_token"}):
		return "has grant types other than authorization_code and refresh_token"
	}
	for _, u := range c.RedirectURIs {
		if why := checkRedirectURI(u); why != "" {
			return "lists a refused redirect URI: " + why
		}
	}
	return ""
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
