package fxrates_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/fxrates"
	"github.com/finance-app/finance/internal/testkit"
)

// ecbStandIn serves the recorded ECB files at the ECB's paths, and answer
// in place of the daily file when set.
func ecbStandIn(t *testing.T, answer http.HandlerFunc) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	for _, name := range []string{"eurofxref-daily.xml", "eurofxref-hist-90d.xml"} {
		body, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		mux.HandleFunc("/stats/eurofxref/"+name, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/xml")
			w.Write(body)
		})
	}
	if answer != nil {
		mux.HandleFunc("/bad/eurofxref-daily.xml", answer)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// fetcherOf is an ECB fetcher of the stand-in's file at path.
func fetcherOf(t *testing.T, srv *httptest.Server, path string, timeout time.Duration) *fxrates.Fetcher {
	t.Helper()
	f, err := fxrates.New(finance.RateSourceECB, srv.URL+path)
	if err != nil {
		t.Fatal(err)
	}
	f.Client = &http.Client{Timeout: timeout}
	f.Now = func() time.Time { return time.Date(2026, 11, 20, 16, 30, 0, 0, time.UTC) }
	return f
}

// storedRates is what the database holds of the server's rates, as one
// line per rate "date base→quote rate source".
func storedRates(t *testing.T, svc *finance.Service, userID string) []string {
	t.Helper()
	page, err := svc.ListExchangeRates(context.Background(), userID, finance.ExchangeRateFilter{},
		finance.ListParams{Page: 1, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(page.Items))
	for i, r := range page.Items {
		out[i] = r.Date.String() + " " + r.Base + "→" + r.Quote + " " + r.Rate.String() + " " + r.Source
	}
	return out
}

func newLedger(t *testing.T) (*finance.Service, string) {
	t.Helper()
	db := testkit.OpenDB(t)
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	u := finance.User{ID: finance.NewID(), Email: "fx@example.com", Name: "Fx", Plan: finance.PlanPro, CreatedAt: at, UpdatedAt: at}
	if err := db.CreateUser(context.Background(), u, "hash"); err != nil {
		t.Fatal(err)
	}
	return finance.NewService(db), u.ID
}

func logTo(buf *bytes.Buffer) *slog.Logger { return slog.New(slog.NewTextHandler(buf, nil)) }

func TestFetchECBHistoryThenDailyDoublesNothing(t *testing.T) {
	srv := ecbStandIn(t, nil)
	svc, user := newLedger(t)
	f := fetcherOf(t, srv, "/stats/eurofxref/eurofxref-daily.xml", 5*time.Second)
	var log bytes.Buffer

	// The first fetch reads the 90-day file beside the daily one.
	if !f.Once(context.Background(), svc, true, logTo(&log)) {
		t.Fatalf("history fetch failed: %s", log.String())
	}
	got := storedRates(t, svc, user)
	if len(got) != 6*30 {
		t.Fatalf("%d rates stored, want 6 days of 30", len(got))
	}
	for _, want := range []string{"2026-11-20 EUR→PHP 68.115 ecb", "2026-11-19 EUR→JPY 175.02 ecb",
		"2026-11-20 EUR→USD 1.1579 ecb", "2026-11-20 EUR→IDR 19321.55 ecb", "2026-11-13 EUR→PHP 68.558 ecb"} {
		if !contains(got, want) {
			t.Errorf("stored rates lack %q", want)
		}
	}
	if !strings.Contains(log.String(), "read=180 added=180") {
		t.Errorf("log: %s", log.String())
	}

	// The daily file repeats the latest day: nothing is added, twice.
	for range 2 {
		log.Reset()
		if !f.Once(context.Background(), svc, false, logTo(&log)) || !strings.Contains(log.String(), "read=30 added=0") {
			t.Errorf("daily fetch: %s", log.String())
		}
	}
	if n := len(storedRates(t, svc, user)); n != 180 {
		t.Errorf("%d rates after repeated fetches, want 180", n)
	}

	// And the conversion reads them.
	c, err := svc.Convert(context.Background(), user, finance.ConversionRequest{Amount: "12345", From: "JPY", To: "PHP", Date: "2026-11-22"})
	if err != nil || c.Converted.String() != "4766.62" {
		t.Errorf("convert: %+v, %v", c, err)
	}
}

func TestFetchECBRefusesBadAnswersWritingNothing(t *testing.T) {
	daily, _ := os.ReadFile("testdata/eurofxref-daily.xml")
	tests := []struct {
		name    string
		answer  http.HandlerFunc
		timeout time.Duration
		inLog   string
	}{
		{"malformed XML", func(w http.ResponseWriter, _ *http.Request) {
			w.Write(daily[:len(daily)/2]) // cut off mid-answer
		}, 5 * time.Second, "not the ECB's XML"},
		{"a bad rate spoils the whole answer", func(w http.ResponseWriter, _ *http.Request) {
			w.Write(bytes.Replace(daily, []byte("rate='68.115'"), []byte("rate='6.8115e1'"), 1))
		}, 5 * time.Second, `the rate \"6.8115e1\" of PHP on 2026-11-20`},
		{"no rates at all", func(w http.ResponseWriter, _ *http.Request) {
			w.Write([]byte(`<?xml version="1.0"?><gesmes:Envelope xmlns:gesmes="x"><Cube></Cube></gesmes:Envelope>`))
		}, 5 * time.Second, "the answer holds no rates"},
		{"an error status", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		}, 5 * time.Second, "503 Service Unavailable"},
		{"too large", func(w http.ResponseWriter, _ *http.Request) {
			w.Write(bytes.Repeat([]byte(" "), fxrates.MaxBody+1))
		}, 5 * time.Second, "larger than"},
		{"slow", func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // answers only when the client gives up
		}, 200 * time.Millisecond, "Client.Timeout exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ecbStandIn(t, tt.answer)
			svc, user := newLedger(t)
			var log bytes.Buffer
			var saved atomic.Bool
			if fetcherOf(t, srv, "/bad/eurofxref-daily.xml", tt.timeout).Once(context.Background(), svc, false, logTo(&log)) {
				saved.Store(true)
			}
			if saved.Load() || !strings.Contains(log.String(), "exchange rates fetch failed") || !strings.Contains(log.String(), tt.inLog) {
				t.Errorf("saved %v; log: %s", saved.Load(), log.String())
			}
			if got := storedRates(t, svc, user); len(got) != 0 {
				t.Errorf("stored %d rates after a bad answer", len(got))
			}
		})
	}
}

func TestFrankfurterLatestAndHistory(t *testing.T) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.RequestURI())
		if r.URL.Path == "/latest" {
			w.Write([]byte(`{"amount":1.0,"base":"EUR","date":"2026-11-20","rates":{"JPY":176.41,"PHP":68.115,"USD":1.1579}}`))
			return
		}
		w.Write([]byte(`{"amount":1.0,"base":"EUR","start_date":"2026-11-19","end_date":"2026-11-20",` +
			`"rates":{"2026-11-19":{"PHP":68.004,"USD":1.1611},"2026-11-20":{"PHP":68.115,"USD":1.1579}}}`))
	}))
	t.Cleanup(srv.Close)
	f, err := fxrates.New(finance.RateSourceFrankfurter, srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	f.Now = func() time.Time { return time.Date(2026, 11, 20, 16, 30, 0, 0, time.UTC) }
	svc, user := newLedger(t)
	var log bytes.Buffer
	if !f.Once(context.Background(), svc, true, logTo(&log)) || !f.Once(context.Background(), svc, false, logTo(&log)) {
		t.Fatalf("fetch failed: %s", log.String())
	}
	if want := []string{"/2026-08-22..?base=EUR", "/latest?base=EUR"}; strings.Join(asked, " ") != strings.Join(want, " ") {
		t.Errorf("asked %v, want %v", asked, want)
	}
	got := storedRates(t, svc, user)
	if len(got) != 5 || !contains(got, "2026-11-20 EUR→JPY 176.41 frankfurter") || !contains(got, "2026-11-19 EUR→USD 1.1611 frankfurter") {
		t.Errorf("stored %v", got)
	}
}

func TestNewRefusesBadSources(t *testing.T) {
	for _, tt := range []struct{ source, url, want string }{
		{"frankfurter", "", "needs the URL of its instance"},
		{"ecb", "ftp://example.com/x.xml", "is not an http or https URL"},
		{"fixer", "", `unknown source "fixer"`},
	} {
		if _, err := fxrates.New(tt.source, tt.url); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%q, %q) = %v, want %q", tt.source, tt.url, err, tt.want)
		}
	}
	if f, err := fxrates.New("ecb", ""); err != nil || f.URL != fxrates.ECBDailyURL {
		t.Errorf("New(ecb) = %+v, %v", f, err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
