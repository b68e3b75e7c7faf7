// Package fxrates fetches the reference exchange rates a server shares with
// all its users (docs/domain.md "Exchange rates"): the European Central
// Bank's daily XML, or a self-hosted Frankfurter instance. It reads a
// source into finance's rates and leaves storing them to its caller's port;
// it knows nothing of routing, storage, MCP or the CLI.
package fxrates

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/finance-app/finance/finance"
)

// Default addresses of the ECB's files: the latest day's rates, and the
// last 90 days' beside it, which the first fetch after a start reads so a
// server that was off for a while fills its gap.
const (
	ECBDailyURL   = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"
	ecbHistory90d = "eurofxref-hist-90d.xml"
)

// Limits of one fetch: the ECB's 90-day file is about 100 KB and a
// Frankfurter time series of 90 days about the same, so 4 MiB is far more
// than any honest answer; 30 s is far more than either takes.
const (
	DefaultTimeout = 30 * time.Second
	MaxBody        = 4 << 20
)

// historyDays is how far back the first fetch of a Frankfurter source reads,
// as the ECB's 90-day file does.
const historyDays = 90

// Fetcher reads one source's rates.
type Fetcher struct {
	Source string // finance.RateSourceECB or finance.RateSourceFrankfurter
	// URL is the ECB's daily file, or a Frankfurter instance's base URL.
	URL    string
	Client *http.Client // with its timeout; DefaultTimeout when nil
	// Now is the clock of the Frankfurter history's first day.
	Now func() time.Time
}

// New returns a fetcher of source at url (the ECB's daily file when empty
// and source is ecb). A Frankfurter source needs its instance's URL.
func New(source, rawURL string) (*Fetcher, error) {
	switch source {
	case finance.RateSourceECB:
		if rawURL == "" {
			rawURL = ECBDailyURL
		}
	case finance.RateSourceFrankfurter:
		if rawURL == "" {
			return nil, errors.New("a frankfurter source needs the URL of its instance, such as http://frankfurter.lan:8080")
		}
	default:
		return nil, fmt.Errorf("unknown source %q: want ecb or frankfurter", source)
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http or https URL", rawURL)
	}
	return &Fetcher{Source: source, URL: rawURL, Client: &http.Client{Timeout: DefaultTimeout}, Now: time.Now}, nil
}

// Fetch reads the source's latest rates, or with history its last 90 days'.
// An answer that cannot be read whole is an error and gives no rates: a
// fetch writes all it read or nothing.
func (f *Fetcher) Fetch(ctx context.Context, history bool) ([]finance.ExchangeRate, error) {
	var (
		rates []finance.ExchangeRate
		err   error
	)
	switch f.Source {
	case finance.RateSourceECB:
		rates, err = f.fetchECB(ctx, history)
	default:
		rates, err = f.fetchFrankfurter(ctx, history)
	}
	if err != nil {
		return nil, err
	}
	if len(rates) == 0 {
		return nil, errors.New("the answer holds no rates")
	}
	return rates, nil
}

// get reads the body of a 200 answer of u, at most MaxBody bytes.
func (f *Fetcher) get(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	client := f.Client
	if client == nil {
		client = &http.Client{Timeout: DefaultTimeout}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if len(body) > MaxBody {
		return nil, fmt.Errorf("GET %s: the answer is larger than %d bytes", u, MaxBody)
	}
	return body, nil
}

// ecbEnvelope is the ECB's eurofxref XML: days of (currency, rate) against EUR.
type ecbEnvelope struct {
	XMLName xml.Name `xml:"Envelope"`
	Days    []struct {
		Time  string `xml:"time,attr"`
		Rates []struct {
			Currency string `xml:"currency,attr"`
			Rate     string `xml:"rate,attr"`
		} `xml:"Cube"`
	} `xml:"Cube>Cube"`
}

func (f *Fetcher) fetchECB(ctx context.Context, history bool) ([]finance.ExchangeRate, error) {
	u := f.URL
	if history {
		u = beside(f.URL, ecbHistory90d)
	}
	body, err := f.get(ctx, u)
	if err != nil {
		return nil, err
	}
	var doc ecbEnvelope
	if err := xml.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("GET %s: not the ECB's XML: %w", u, err)
	}
	var rates []finance.ExchangeRate
	for _, day := range doc.Days {
		for _, r := range day.Rates {
			rate, ok, err := f.rate(day.Time, r.Currency, r.Rate)
			if err != nil {
				return nil, fmt.Errorf("GET %s: %w", u, err)
			}
			if ok {
				rates = append(rates, rate)
			}
		}
	}
	return rates, nil
}

// frankfurterAnswer is Frankfurter's latest (date, rates) or time series
// (rates by date), with rates read as exact decimal text.
type frankfurterAnswer struct {
	Base  string                     `json:"base"`
	Date  string                     `json:"date"`
	Rates map[string]json.RawMessage `json:"rates"`
}

func (f *Fetcher) fetchFrankfurter(ctx context.Context, history bool) ([]finance.ExchangeRate, error) {
	base := strings.TrimSuffix(f.URL, "/")
	u := base + "/latest?base=" + finance.CrossCurrency
	if history {
		from := finance.DateOf(f.Now().UTC()).AddDays(-historyDays)
		u = base + "/" + from.String() + "..?base=" + finance.CrossCurrency
	}
	body, err := f.get(ctx, u)
	if err != nil {
		return nil, err
	}
	var ans frankfurterAnswer
	if err := json.Unmarshal(body, &ans); err != nil || ans.Base != finance.CrossCurrency {
		return nil, fmt.Errorf("GET %s: not a Frankfurter answer with base EUR", u)
	}
	days := map[string]map[string]json.RawMessage{}
	if ans.Date != "" {
		day := map[string]json.RawMessage{}
		for code, raw := range ans.Rates {
			day[code] = raw
		}
		days[ans.Date] = day
	} else {
		for date, raw := range ans.Rates {
			var day map[string]json.RawMessage
			if err := json.Unmarshal(raw, &day); err != nil {
				return nil, fmt.Errorf("GET %s: the rates of %s are not an object", u, date)
			}
			days[date] = day
		}
	}
	var rates []finance.ExchangeRate
	for date, day := range days {
		for code, raw := range day {
			rate, ok, err := f.rate(date, code, string(raw))
			if err != nil {
				return nil, fmt.Errorf("GET %s: %w", u, err)
			}
			if ok {
				rates = append(rates, rate)
			}
		}
	}
	return rates, nil
}

// rate reads one published rate of EUR → code. A currency the service does
// not keep is skipped (ok false); a bad date or rate spoils the answer.
func (f *Fetcher) rate(date, code, value string) (finance.ExchangeRate, bool, error) {
	d, err := finance.ParseDate(date)
	if err != nil {
		return finance.ExchangeRate{}, false, fmt.Errorf("the date %q is not a date", date)
	}
	cur, ok := finance.LookupCurrency(code)
	if !ok || cur.Code == finance.CrossCurrency {
		return finance.ExchangeRate{}, false, nil
	}
	r, err := finance.ParseFXRate(strings.TrimSpace(value))
	if err != nil {
		return finance.ExchangeRate{}, false, fmt.Errorf("the rate %q of %s on %s: %w", value, code, date, err)
	}
	return finance.ExchangeRate{ID: finance.NewID(), Base: finance.CrossCurrency, Quote: cur.Code, Date: d, Rate: r,
		Source: f.Source, CreatedAt: f.Now().UTC().Truncate(time.Second)}, true, nil
}

// beside is the URL of file in the same folder as u.
func beside(u, file string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return u
	}
	dir := parsed.Path[:strings.LastIndex(parsed.Path, "/")+1]
	parsed.Path, parsed.RawQuery = dir+file, ""
	return parsed.String()
}

// Saver stores fetched rates, skipping those already stored.
type Saver interface {
	SaveFetchedRates(ctx context.Context, rates []finance.ExchangeRate) (int, error)
}

// Run fetches every interval until ctx ends, the first time at once and
// with history: a restarted server fills the days it missed, and what it
// already has is skipped. A failed fetch is logged and the next one tries
// again; the server goes on.
func (f *Fetcher) Run(ctx context.Context, save Saver, interval time.Duration, log *slog.Logger) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for history := true; ; history = false {
		f.Once(ctx, save, history, log)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Once fetches and saves one time, logging the outcome; it reports whether
// the rates were saved.
func (f *Fetcher) Once(ctx context.Context, save Saver, history bool, log *slog.Logger) bool {
	rates, err := f.Fetch(ctx, history)
	if err == nil {
		var added int
		if added, err = save.SaveFetchedRates(ctx, rates); err == nil {
			log.Info("exchange rates fetched", "source", f.Source, "read", len(rates), "added", added)
			return true
		}
	}
	if ctx.Err() == nil {
		log.Warn("exchange rates fetch failed", "source", f.Source, "error", err)
	}
	return false
}
