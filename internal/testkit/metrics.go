package testkit

import (
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Scrape is one answer of /metrics, read by Prometheus's own text parser.
type Scrape map[string]*dto.MetricFamily

// ParseScrape parses text in the Prometheus text format, failing the test on
// anything the parser refuses (names included: the classic rules, which
// every scraper takes).
func ParseScrape(t testing.TB, text io.Reader) Scrape {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	families, err := p.TextToMetricFamilies(text)
	if err != nil {
		t.Fatalf("the metrics do not parse: %v", err)
	}
	return families
}

// Value is the value of the sample of name whose labels are exactly labels
// (name, value, name, value…): a counter's or a gauge's value, a
// histogram's count. It reports false when there is no such sample.
func (s Scrape) Value(name string, labels ...string) (float64, bool) {
	m := s.sample(name, labels)
	switch {
	case m == nil:
		return 0, false
	case m.Counter != nil:
		return m.Counter.GetValue(), true
	case m.Gauge != nil:
		return m.Gauge.GetValue(), true
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount()), true
	case m.Untyped != nil:
		return m.Untyped.GetValue(), true
	}
	return 0, false
}

// Check fails t unless the sample of name with exactly labels has the
// value want (a histogram's: its count).
func (s Scrape) Check(t testing.TB, want float64, name string, labels ...string) {
	t.Helper()
	got, ok := s.Value(name, labels...)
	if !ok {
		t.Errorf("no sample %s%v; families: %s", name, labels, s)
	} else if got != want {
		t.Errorf("%s%v = %v, want %v", name, labels, got, want)
	}
}

// Requests is how many requests finance_http_requests_total counts for one
// route pattern, method and status code.
type Requests struct {
	N                   float64
	Route, Method, Code string
}

// CheckRequests fails t for each count of want the scrape does not hold.
func (s Scrape) CheckRequests(t testing.TB, want ...Requests) {
	t.Helper()
	for _, r := range want {
		s.Check(t, r.N, "finance_http_requests_total", "route", r.Route, "method", r.Method, "code", r.Code)
	}
}

// Sum is the sum of the histogram sample of name with exactly labels.
func (s Scrape) Sum(name string, labels ...string) (float64, bool) {
	m := s.sample(name, labels)
	if m == nil || m.Histogram == nil {
		return 0, false
	}
	return m.Histogram.GetSampleSum(), true
}

// LabelValues lists the values label takes across the samples of name.
func (s Scrape) LabelValues(name, label string) []string {
	seen := map[string]bool{}
	if f := s[name]; f != nil {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label {
					seen[l.GetValue()] = true
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

func (s Scrape) sample(name string, labels []string) *dto.Metric {
	f := s[name]
	if f == nil {
		return nil
	}
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		if maps.Equal(got, want) {
			return m
		}
	}
	return nil
}

// String lists the families' names, for a failure's message.
func (s Scrape) String() string {
	return strings.Join(slices.Sorted(maps.Keys(s)), ", ")
}
