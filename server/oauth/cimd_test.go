package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
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
	f := newMetadataFetcher(nil, 0, time.Now)
	for _, u := range []string{srv.URL + "/client.json", "https://[::1]:1/client.json", "https://10.0.0.1:1/client.json",
		"https://169.254.169.254/latest/client.json"} {
		_, _, err := f.resolve(context.Background(), u)
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
