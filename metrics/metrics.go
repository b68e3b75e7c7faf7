// Package metrics is the service's Prometheus metrics: one registry of its
// own (never the client's global one), the Go runtime's and the process's
// collectors, and the finance_ metrics the other packages report to.
//
// The other packages do not import this one: each declares the one-method
// port it reports to (server.RequestObserver, store.CommitObserver,
// mcpserver.ToolCallObserver, ai.CallObserver) and the composition root
// hands them a *Metrics. Every label value comes from a closed set (route
// patterns, tool names, the kinds and outcomes those packages name), never
// from a user id, a record's id, a raw path or an amount.
//
// The methods of a nil *Metrics count nothing, so the composition root passes
// the same value to every package whether metrics are on or off.
package metrics

import (
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds the registry and every metric of the service.
type Metrics struct {
	reg *prometheus.Registry
	log *slog.Logger
	now func() time.Time // the backups' age is counted to it (tests set it)

	requests        *prometheus.CounterVec   // route, method, code
	requestDuration *prometheus.HistogramVec // route, method, status_class
	// seen caches the series of each route, method and status met so far;
	// see series.
	seen    atomic.Pointer[map[seriesKey]requestSeries]
	seenAdd sync.Mutex

	writesPerCommit prometheus.Histogram
	commitDuration  prometheus.Histogram
	toolCalls       *prometheus.CounterVec // tool, outcome
	aiCalls         *prometheus.CounterVec // kind, outcome
	reminders       *prometheus.CounterVec // channel, outcome
}

// Buckets. Requests: most answer in a millisecond or two, a write waits for
// an fsync, reports take longer, an import's commit up to tens of seconds.
// Commits: an fsync takes from well under a millisecond (an SSD) to tens of
// milliseconds (a busy SD card). Writes per commit: the group commit takes at
// most 64 at once (store's maxCommitBatch).
var (
	requestBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}
	commitBuckets  = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1}
	batchBuckets   = []float64{1, 2, 4, 8, 16, 32, 64}
)

// New returns the metrics of a service of the given version, with the Go
// runtime's and the process's collectors registered. A failed scrape is
// logged to log.
func New(version string, log *slog.Logger) *Metrics {
	if log == nil {
		log = slog.Default()
	}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		log: log,
		now: time.Now,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "finance_http_requests_total",
			Help: "HTTP requests answered, by route pattern (unmatched for a path no route has), method and status code.",
		}, []string{"route", "method", "code"}),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "finance_http_request_duration_seconds",
			Help:    "Time from a request's arrival to the end of its answer, by route pattern, method and status class (2xx, 4xx, 5xx).",
			Buckets: requestBuckets,
		}, []string{"route", "method", "status_class"}),
		writesPerCommit: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "finance_database_writes_per_commit",
			Help:    "Writes committed together in one database transaction (group commit).",
			Buckets: batchBuckets,
		}),
		commitDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "finance_database_commit_duration_seconds",
			Help:    "Time the database took to commit a write transaction durably (its fsync).",
			Buckets: commitBuckets,
		}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "finance_mcp_tool_calls_total",
			Help: "MCP tool calls, by tool and outcome (ok, client_error, server_error).",
		}, []string{"tool", "outcome"}),
		aiCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "finance_ai_calls_total",
			Help: "Calls to the AI service and runs of the OCR program, by kind (text, vision, chat, ocr) and outcome (ok, error).",
		}, []string{"kind", "outcome"}),
		reminders: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "finance_reminders_total",
			Help: "Reminders delivered, by channel (telegram; home for a user with no linked chat) and outcome (sent, failed).",
		}, []string{"channel", "outcome"}),
	}
	empty := map[seriesKey]requestSeries{}
	m.seen.Store(&empty)
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name:        "finance_build_info",
			Help:        "Always 1; the version label is the running server's version.",
			ConstLabels: prometheus.Labels{"version": version},
		}, func() float64 { return 1 }),
		m.requests, m.requestDuration, m.writesPerCommit, m.commitDuration, m.toolCalls, m.aiCalls, m.reminders,
	)
	return m
}

// Path is where the metrics are served.
const Path = "/metrics"

// Handler serves the metrics in Prometheus's text format (or another the
// scraper asks for). A collector that fails is logged and left out; the
// rest are served.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(m.log.Handler(), slog.LevelWarn),
		ErrorHandling: promhttp.ContinueOnError,
	})
}

// Committed counts one committed write transaction: how many writes it held
// and how long its commit took (store.CommitObserver).
func (m *Metrics) Committed(writes int, took time.Duration) {
	if m == nil {
		return
	}
	m.writesPerCommit.Observe(float64(writes))
	m.commitDuration.Observe(took.Seconds())
}

// The outcomes of an MCP tool call.
const (
	OutcomeOK          = "ok"
	OutcomeClientError = "client_error" // the call's arguments or the REST route refused it (4xx)
	OutcomeServerError = "server_error" // the server failed (5xx)
)

// ToolCall counts one MCP tool call by its tool and the HTTP status of the
// REST route it called (mcpserver.ToolCallObserver).
func (m *Metrics) ToolCall(tool string, status int) {
	if m == nil {
		return
	}
	outcome := OutcomeOK
	switch {
	case status >= 500:
		outcome = OutcomeServerError
	case status >= 400:
		outcome = OutcomeClientError
	}
	m.toolCalls.WithLabelValues(tool, outcome).Inc()
}

// AICall counts one call to the AI service or one OCR run (ai.CallObserver).
func (m *Metrics) AICall(kind, outcome string) {
	if m == nil {
		return
	}
	m.aiCalls.WithLabelValues(kind, outcome).Inc()
}

// Reminder counts one reminder's delivery.
func (m *Metrics) Reminder(channel, outcome string) {
	if m == nil {
		return
	}
	m.reminders.WithLabelValues(channel, outcome).Inc()
}

// WatchDatabase has every scrape read the database's size on disk: size
// returns the bytes of its file and of its write-ahead log (the newest
// writes, until a checkpoint moves them into the file).
func (m *Metrics) WatchDatabase(size func() (file, wal int64)) {
	if m == nil {
		return
	}
	m.reg.MustRegister(databaseSize{size: size,
		file: prometheus.NewDesc("finance_database_size_bytes", "Size of the database file on disk.", nil, nil),
		wal: prometheus.NewDesc("finance_database_wal_size_bytes",
			"Size of the database's write-ahead log on disk: the newest writes, until a checkpoint moves them into the file.", nil, nil),
	})
}

// databaseSize reads the database's size at each scrape: two stat calls,
// never a query that could wait on the database.
type databaseSize struct {
	size      func() (file, wal int64)
	file, wal *prometheus.Desc
}

func (c databaseSize) Describe(ch chan<- *prometheus.Desc) { ch <- c.file; ch <- c.wal }

func (c databaseSize) Collect(ch chan<- prometheus.Metric) {
	file, wal := c.size()
	ch <- prometheus.MustNewConstMetric(c.file, prometheus.GaugeValue, float64(file))
	ch <- prometheus.MustNewConstMetric(c.wal, prometheus.GaugeValue, float64(wal))
}

// BackupStatus is what the metrics read of the scheduled backups, the same
// source health reports from.
type BackupStatus interface {
	// LastSuccess is when the newest whole backup was taken; zero when
	// there is none.
	LastSuccess() time.Time
	// Interval is how often one is taken.
	Interval() time.Duration
}

// WatchBackups has every scrape report the scheduled backups: their
// interval, and the newest one's time and age once there is one (like
// health's last_success_at and age_seconds, absent before the first).
func (m *Metrics) WatchBackups(b BackupStatus) {
	if m == nil {
		return
	}
	m.reg.MustRegister(backups{status: b, now: func() time.Time { return m.now() },
		last: prometheus.NewDesc("finance_backup_last_success_timestamp_seconds",
			"When the newest whole scheduled backup was taken, in seconds since 1970; absent before the first.", nil, nil),
		age: prometheus.NewDesc("finance_backup_age_seconds",
			"Age of the newest whole scheduled backup; absent before the first.", nil, nil),
		interval: prometheus.NewDesc("finance_backup_interval_seconds", "How often a scheduled backup is taken (--backup-interval).", nil, nil),
	})
}

type backups struct {
	status              BackupStatus
	now                 func() time.Time
	last, age, interval *prometheus.Desc
}

func (c backups) Describe(ch chan<- *prometheus.Desc) { ch <- c.last; ch <- c.age; ch <- c.interval }

func (c backups) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(c.interval, prometheus.GaugeValue, c.status.Interval().Seconds())
	last := c.status.LastSuccess()
	if last.IsZero() {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.last, prometheus.GaugeValue, float64(last.UnixMilli())/1e3)
	ch <- prometheus.MustNewConstMetric(c.age, prometheus.GaugeValue, max(0, c.now().Sub(last).Seconds()))
}
