// Command bench measures the real binary: it starts `finance serve` on a fresh
// data directory, drives it over HTTP and prints a table of rates, latencies
// and memory next to the storage ceiling (raw single-row SQLite commits with
// the service's pragmas) and a bare net/http + SQLite baseline, then a
// summary of the figures with their targets and whether each is
// met. Run it with `make bench`; docs/benchmarks.md says how each figure is
// measured.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/store"
)

func main() {
	bin := flag.String("bin", "bin/finance", "the finance binary to measure")
	large := flag.Int("rows", 1_000_000, "expenses in the large list measurement")
	writes := flag.Int("writes", 3000, "POST /expenses requests in each write measurement")
	reads := flag.Int("reads", 300, "requests in each read measurement")
	only := flag.String("only", "", `run one part alone: "auth" (authenticated health and creates against the baseline, with server CPU and WAL pages per create, about a minute), "start" (start to the first health answer, idle memory, binary size, seconds), "import" (a 10,000-row bank CSV previewed, committed and reverted, in seconds), "bills" (bills and loans), "reports" (the dashboard and reports over five years of history), "lists" (the expense list at 100,000 and -rows expenses, its page's body size, memory after, then the bytes per expense), "size" (bytes per expense and per B-tree after loading -rows expenses), "statements" (a card's five-year statement backlog, median of three) or "replicas" (two finance serve replicas on one database behind a reverse proxy: creates at 1-16 writers with -writes each, parallel payments on one statement, a key revoked on one replica and refused by the other, statements generated once, and kill -9 of one replica under load)`)
	replicas := flag.Int("replicas", 2, "with -only replicas: how many finance serve replicas run behind the proxy (1 measures the proxy in front of one server; the kill proof needs 2)")
	databaseURL := flag.String("database-url", "", `with -only replicas: the database the replicas share, passed to them as --database-url and FINANCE_DATABASE_URL (empty: the SQLite database of one data directory)`)
	baselineDir := flag.String("baseline", "", "serve the baseline in this directory (the program starts itself so)")
	baselineHealth := flag.String("baseline-health", "", "the file of health bytes the baseline answers with")
	flag.Parse()
	var err error
	if *baselineDir != "" {
		err = serveBaseline(*baselineDir, *baselineHealth)
	} else if *only == "replicas" {
		err = runReplicas(*bin, *databaseURL, *replicas, *writes)
	} else if *databaseURL != "" {
		err = errors.New("-database-url is for -only replicas; the other parts measure the SQLite database of a data directory")
	} else if *only == "reports" {
		err = runReports(*bin, *reads)
	} else {
		err = run(*bin, *large, *writes, *reads, *only)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

const email = "bench@example.com"

type row struct{ name, value string }

// healthReads is the number of authenticated health requests measured.
const healthReads = 20_000

// newUser creates the bench user in the data directory data (migrating a
// new database) and returns an API key with every scope.
func newUser(bin, data string) (string, error) {
	if _, err := cli(bin, data, strings.NewReader("bench-password-123\n"), "users", "create", "--email", email, "--password-stdin"); err != nil {
		return "", err
	}
	key, err := cli(bin, data, nil, "keys", "create", "--user", email, "--name", "bench", "--scopes", "all")
	return strings.TrimSpace(key), err
}

func run(bin string, large, writes, reads int, only string) error {
	ctx := context.Background()
	b, err := newBenchRun("finance-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(b.dir)
	dir, data, add := b.dir, b.data, b.add

	key, err := newUser(bin, data)
	if err != nil {
		return err
	}
	today := finance.DateOf(time.Now())
	httpClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	switch only {
	case "":
	case "start":
		if err := measureStart(b, bin, data, key); err != nil {
			return err
		}
		b.print()
		return nil
	case "auth":
		srv, err := start(bin, data)
		if err != nil {
			return err
		}
		defer srv.stop()
		c := &client{base: srv.url + "/api/v1", key: key, http: httpClient}
		if _, err := measureAuthAndCreates(ctx, b, srv, c, writes, healthReads); err != nil {
			return err
		}
		b.print()
		return nil
	case "import":
		srv, err := start(bin, data)
		if err != nil {
			return err
		}
		defer srv.stop()
		c := &client{base: srv.url + "/api/v1", key: key, http: httpClient}
		accountID, err := createBenchAccount(c)
		if err != nil {
			return err
		}
		if err := measureImport(c, accountID, add); err != nil {
			return err
		}
		b.print()
		return nil
	case "bills":
		c := &client{key: key, http: httpClient}
		if err := measureBillsAndLoans(ctx, bin, data, c, today, reads, add); err != nil {
			return err
		}
		b.print()
		return nil
	case "statements":
		if err := measureStatements(ctx, b, bin, today, reads); err != nil {
			return err
		}
		b.print()
		return nil
	case "lists":
		c := &client{key: key, http: httpClient}
		if err := measureListsAndSize(ctx, b, bin, data, c, large, reads, today); err != nil {
			return err
		}
		b.print()
		return nil
	case "size":
		if err := measureSize(ctx, b, data, large, today); err != nil {
			return err
		}
		b.print()
		return nil
	default:
		return fmt.Errorf("-only %q: the parts are: auth, bills, import, lists, replicas, reports, size, start, statements", only)
	}

	if err := measureStart(b, bin, data, key); err != nil {
		return err
	}

	fmt.Fprintln(os.Stderr, "measuring raw SQLite commits...")
	raw, err := rawCommitRate(ctx, filepath.Join(dir, "raw.db"), writes)
	if err != nil {
		return err
	}
	add("raw single-row committed inserts (same pragmas)", "%.0f /s", raw)

	srv, err := start(bin, data)
	if err != nil {
		return err
	}
	c := &client{base: srv.url + "/api/v1", key: key, http: httpClient}

	created, err := measureAuthAndCreates(ctx, b, srv, c, writes, healthReads)
	if err != nil {
		return err
	}

	accountID, err := createBenchAccount(c)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "measuring an import of a 10,000-row bank file...")
	if err := measureImport(c, accountID, add); err != nil {
		return err
	}
	rss := srv.peakRSS()
	if err := srv.stop(); err != nil {
		return err
	}

	seed := func(total int) error { return loadExpenses(ctx, data, total, today) }
	measureLists := func(rows int) error {
		srv, err = start(bin, data)
		if err != nil {
			return err
		}
		c.base = srv.url + "/api/v1"
		if err := measureListRequests(b, c, reads, today, rows, rows == large); err != nil {
			return err
		}
		rss = max(rss, srv.peakRSS())
		return nil
	}

	fmt.Fprintln(os.Stderr, "seeding 100,000 expenses and 100,000 account lines...")
	if err := seed(100_000 - created); err != nil {
		return err
	}
	{
		db, err := store.Open(filepath.Join(data, store.FileName))
		if err != nil {
			return err
		}
		err = seedAccountLines(ctx, db, accountID, 100_000, today)
		db.Close()
		if err != nil {
			return err
		}
	}
	if err := measureLists(100_000); err != nil {
		return err
	}
	r := c.load(reads, 1, get("/accounts/"+accountID))
	add("(d) GET /accounts/{id} balance, 100,000 lines", "p50 %s, p99 %s, errors %d", ms(r.p50), ms(r.p99), r.errors)
	if err := srv.stop(); err != nil {
		return err
	}

	fmt.Fprintf(os.Stderr, "seeding up to %d expenses...\n", large)
	if err := seed(large - 100_000); err != nil {
		return err
	}
	if err := measureLists(large); err != nil {
		return err
	}
	b.recordLoaded(fmt.Sprintf("the list runs at %s expenses", humanInt(large)), srv.rss(), 0)
	measureCheapReadsUnderLoad(c, reads, add)
	rss = max(rss, srv.peakRSS())
	if err := srv.stop(); err != nil {
		return err
	}
	if size, err := databaseBytes(data); err == nil {
		perExpense := float64(size) / float64(large)
		add(fmt.Sprintf("database bytes per expense at %s expenses (all tables)", humanInt(large)), "%.0f (target <= %d)", perExpense, bytesPerExpenseTarget)
		b.target(figBytes, fmt.Sprintf("Bytes on disk per expense at %s (all tables)", humanInt(large)), "", fmt.Sprintf("%.0f", perExpense),
			fmt.Sprintf("≤ %d", bytesPerExpenseTarget), perExpense <= bytesPerExpenseTarget)
	} else {
		return err
	}

	if err := measureStatements(ctx, b, bin, today, reads); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "seeding 50 loans and ten years of monthly bills...")
	if err := measureBillsAndLoans(ctx, bin, data, c, today, reads, add); err != nil {
		return err
	}
	add("(e) peak RSS of the server", "%.1f MB", float64(rss)/1024)
	writeTable(b.table)
	if err := runReports(bin, reads); err != nil {
		return err
	}
	writeTargets(b.targets)
	return nil
}

// createBenchAccount creates the checking account the list and import
// measurements use.
func createBenchAccount(c *client) (string, error) {
	var acct struct {
		Data struct{ ID string } `json:"data"`
	}
	if err := c.do("POST", "/accounts", `{"name":"Bench checking","type":"checking","opening_balance":1000}`, &acct); err != nil {
		return "", fmt.Errorf("create account: %w", err)
	}
	return acct.Data.ID, nil
}

// benchRun is one run's scratch directory (removed by the caller) and the
// table of its measurements, which add also echoes to stderr as they come.
type benchRun struct {
	dir, data string
	table     []row
	// targets are the figures measured so far, for the summary.
	targets []target
	// loaded and baselineLoaded are the largest resident sets (KiB) read
	// after load so far.
	loaded, baselineLoaded int
}

// print writes the run's table, then the summary of the figures
// it measured.
func (b *benchRun) print() {
	writeTable(b.table)
	writeTargets(b.targets)
}

func newBenchRun(prefix string) (*benchRun, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, err
	}
	return &benchRun{dir: dir, data: filepath.Join(dir, "data")}, nil
}

func (b *benchRun) add(name, format string, args ...any) {
	b.table = append(b.table, row{name, fmt.Sprintf(format, args...)})
	fmt.Fprintf(os.Stderr, "  %-62s %s\n", name, fmt.Sprintf(format, args...))
}

// writeTable prints the measurements as a Markdown table.
func writeTable(table []row) {
	fmt.Println("| measurement | result |")
	fmt.Println("|---|---|")
	for _, r := range table {
		fmt.Printf("| %s | %s |\n", r.name, r.value)
	}
}

// reportVolume is each user's history in the reports measurement.
var reportVolume = historyVolume{Expenses: 1_000_000, CardRows: 100_000, Bills: 5_000, Loans: 50}

// runReports measures the dashboard, the expense summary and every report on a fresh data
// directory where two users each have five years of history (reportVolume):
// the second user's rows sit in the same tables and indexes, so the figures
// show that every query reads one user's part only.
func runReports(bin string, reads int) error {
	ctx := context.Background()
	b, err := newBenchRun("finance-bench-reports-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(b.dir)
	data, add := b.data, b.add
	const other = "bench-other@example.com"
	for _, e := range []string{email, other} {
		if _, err := cli(bin, data, strings.NewReader("bench-password-123\n"), "users", "create", "--email", e, "--password-stdin"); err != nil {
			return err
		}
	}
	key, err := cli(bin, data, nil, "keys", "create", "--user", email, "--name", "bench", "--scopes", "all")
	if err != nil {
		return err
	}
	today := finance.DateOf(time.Now())
	db, err := store.Open(filepath.Join(data, store.FileName))
	if err != nil {
		return err
	}
	for _, e := range []string{email, other} {
		fmt.Fprintf(os.Stderr, "seeding five years for %s: %d expenses, %d card rows, %d bills, %d loans...\n",
			e, reportVolume.Expenses, reportVolume.CardRows, reportVolume.Bills, reportVolume.Loans)
		began := time.Now()
		if err := seedReportData(ctx, db, e, reportVolume, today); err != nil {
			db.Close()
			return err
		}
		add("seeding one user's five years (with the daily-total triggers)", "%.1f s", time.Since(began).Seconds())
	}
	db.Close()

	srv, err := start(bin, data)
	if err != nil {
		return err
	}
	defer srv.stop()
	c := &client{base: srv.url + "/api/v1", key: strings.TrimSpace(key), http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	monthFrom, monthTo := finance.MonthAdd(today, 0, 1), today
	yearFrom := today.AddDays(-364)
	fiveFrom := finance.MonthAdd(today, -60, today.Day()).AddDays(1)
	ranges := []struct{ label, query string }{
		{"one month", "dateFrom=" + monthFrom.String() + "&dateTo=" + monthTo.String()},
		{"one year", "dateFrom=" + yearFrom.String() + "&dateTo=" + today.String()},
		{"five years", "dateFrom=" + fiveFrom.String() + "&dateTo=" + today.String()},
	}
	measure := func(name, path string) {
		r := c.load(reads, 1, get(path))
		add("(h) "+name, "p50 %s, p99 %s, errors %d", ms(r.p50), ms(r.p99), r.errors)
	}
	measure("GET /dashboard (this month)", "/dashboard")
	for _, rg := range ranges {
		measure("GET /expenses/summary, "+rg.label, "/expenses/summary?"+rg.query)
	}
	for _, spec := range finance.Reports {
		if spec.Range != finance.RangeFigures { // one month or today's balances, whatever the range
			measure("GET /reports/"+spec.Name+" (as of today)", "/reports/"+spec.Name)
			continue
		}
		for _, rg := range ranges {
			measure("GET /reports/"+spec.Name+", "+rg.label, "/reports/"+spec.Name+"?"+rg.query)
		}
	}
	add("(h) peak RSS of the server", "%.1f MB", float64(srv.peakRSS())/1024)
	writeTable(b.table)
	return nil
}

// statementRounds is how many times the statement backlog is generated,
// each on a data directory of its own; the median is reported.
const statementRounds = 3

// measureStatements times statement generation: one request that generates
// a card's whole backlog (five years, 100,000 purchases), statementRounds
// times on fresh data directories, and in the last of them the requests
// afterwards and the check every later request makes when nothing is due.
func measureStatements(ctx context.Context, b *benchRun, bin string, today finance.Date, reads int) error {
	times := make([]time.Duration, 0, statementRounds)
	statements := 0
	for round := range statementRounds {
		fmt.Fprintf(os.Stderr, "seeding a card with 5 years of history, 100,000 unbilled purchases (round %d of %d)...\n", round+1, statementRounds)
		data := filepath.Join(b.dir, fmt.Sprintf("statements-%d", round))
		key, err := newUser(bin, data)
		if err != nil {
			return err
		}
		c := &client{key: key, http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
		took, n, err := statementBacklog(ctx, bin, data, c, today, reads, b.add, round == statementRounds-1)
		if err != nil {
			return err
		}
		times, statements = append(times, took), n
		if err := os.RemoveAll(data); err != nil {
			return err
		}
	}
	sorted := slices.Sorted(slices.Values(times))
	median := sorted[len(sorted)/2]
	runs := make([]string, len(times))
	for i, t := range times {
		runs[i] = ms(t)
	}
	b.add("(f) first request after 5 years, 100,000 purchases: generates the backlog", "median %s of %d (%s), %d statements",
		ms(median), len(times), strings.Join(runs, ", "), statements)
	b.target(figStatements, "Statement backlog, 5 years, 100k purchases", "",
		fmt.Sprintf("median %s (%s-%s)", ms(median), ms(sorted[0]), ms(sorted[len(sorted)-1])), fmt.Sprintf("≤ %d ms", statementsTarget.Milliseconds()), median <= statementsTarget)
	return nil
}

// statementBacklog creates a card with cycle_start_date five years back in
// the data directory data, loads 100,000 unbilled purchases and times the
// first request, which generates the backlog; with after, it then measures
// the requests that find nothing due and the is-anything-due check.
func statementBacklog(ctx context.Context, bin, data string, c *client, today finance.Date, reads int, add func(string, string, ...any), after bool) (time.Duration, int, error) {
	srv, err := start(bin, data)
	if err != nil {
		return 0, 0, err
	}
	c.base = srv.url + "/api/v1"
	cycleStart := finance.MonthAdd(today, -60, today.Day()).AddDays(1)
	var card struct {
		Data struct{ ID string } `json:"data"`
	}
	body := fmt.Sprintf(`{"name":"Bench card","credit_limit":999999999,"statement_day":15,"due_day":5,"cycle_start_date":%q}`, cycleStart)
	if err := c.do("POST", "/credit-cards", body, &card); err != nil {
		return 0, 0, errors.Join(fmt.Errorf("create card: %w", err), srv.stop())
	}
	if err := srv.stop(); err != nil {
		return 0, 0, err
	}
	db, err := store.Open(filepath.Join(data, store.FileName))
	if err != nil {
		return 0, 0, err
	}
	err = seedCardPurchases(ctx, db, card.Data.ID, 100_000, cycleStart, today.AddDays(-1))
	db.Close()
	if err != nil {
		return 0, 0, err
	}

	if srv, err = start(bin, data); err != nil {
		return 0, 0, err
	}
	c.base = srv.url + "/api/v1"
	var counts struct {
		Data struct{ Total int } `json:"data"`
	}
	began := time.Now()
	if err := c.do("GET", "/credit-cards/soa/counts?cardId="+card.Data.ID, "", &counts); err != nil {
		return 0, 0, errors.Join(err, srv.stop())
	}
	took := time.Since(began)
	if !after {
		return took, counts.Data.Total, srv.stop()
	}
	r := c.load(reads, 1, get("/credit-cards/soa?cardId="+card.Data.ID))
	add("(f) GET /credit-cards/soa afterwards (nothing due)", "p50 %s, p99 %s, errors %d", ms(r.p50), ms(r.p99), r.errors)
	if err := srv.stop(); err != nil {
		return 0, 0, err
	}
	if db, err = store.Open(filepath.Join(data, store.FileName)); err != nil {
		return 0, 0, err
	}
	defer db.Close()
	check, err := statementCheckCost(ctx, db, email, 1000)
	if err != nil {
		return 0, 0, err
	}
	add("(f) the is-anything-due check each card request makes", "%s", ms(check))
	return took, counts.Data.Total, nil
}

// measureListRequests measures the expense list requests of (c) on the
// running server c points at, with rows expenses loaded; with record, the
// first page's p50 and body size are the list figures.
func measureListRequests(b *benchRun, c *client, reads int, today finance.Date, rows int, record bool) error {
	from, to := today.AddDays(-90), today
	label := humanInt(rows)
	for i, q := range []struct{ name, path string }{
		{"GET /expenses?page=1&limit=50", "/expenses?page=1&limit=50"},
		{"GET /expenses filtered (90 days, category, sortBy=amount)", "/expenses?dateFrom=" + from.String() + "&dateTo=" + to.String() +
			"&category=Groceries&sortBy=amount&sortOrder=desc&page=1&limit=50"},
		{"GET /expenses?sortBy=amount, page 3", "/expenses?sortBy=amount&page=3&limit=50"},
		{"GET /expenses?sortBy=description&sortOrder=asc", "/expenses?sortBy=description&sortOrder=asc&limit=50"},
		{"GET /expenses?sortBy=created_at", "/expenses?sortBy=created_at&limit=50"},
	} {
		r := c.load(reads, 1, get(q.path))
		b.add(fmt.Sprintf("(c) %s, %s rows", q.name, label), "p50 %s, p99 %s, errors %d", ms(r.p50), ms(r.p99), r.errors)
		if i > 0 {
			continue
		}
		body, err := c.body(q.path)
		if err != nil {
			return err
		}
		b.add(fmt.Sprintf("(c) body of GET /expenses?page=1&limit=50, %s rows", label), "%s bytes", humanInt(len(body)))
		if record {
			b.target(figListPage, fmt.Sprintf("List page at %s rows (p50)", label), "", ms(r.p50),
				fmt.Sprintf("hold: %s (met within +25%%: ≤ %s)", ms(listPageHold), ms(listPageMax)), r.p50 <= listPageMax && r.errors == 0)
			b.target(figListBody, "List page body, 50 items", "", fmt.Sprintf("%s bytes (%.1f KB)", humanInt(len(body)), float64(len(body))/1024),
				fmt.Sprintf("≤ %d KB", listBodyTargetBytes/1024), len(body) <= listBodyTargetBytes)
		}
	}
	return nil
}

// measureListsAndSize loads expenses as the full run does, measures the
// list requests of (c) at 100,000 and at n of them, the server's memory
// after them, and then the bytes per expense and per B-tree.
func measureListsAndSize(ctx context.Context, b *benchRun, bin, data string, c *client, n, reads int, today finance.Date) error {
	seeded := 0
	for _, total := range []int{100_000, n} {
		fmt.Fprintf(os.Stderr, "seeding up to %d expenses...\n", total)
		if err := loadExpenses(ctx, data, total-seeded, today); err != nil {
			return err
		}
		seeded = total
		srv, err := start(bin, data)
		if err != nil {
			return err
		}
		c.base = srv.url + "/api/v1"
		err = measureListRequests(b, c, reads, today, total, total == n)
		if total == n {
			b.recordLoaded(fmt.Sprintf("the list runs at %s expenses", humanInt(n)), srv.rss(), 0)
		}
		if err := errors.Join(err, srv.stop()); err != nil {
			return err
		}
	}
	return measureBytes(ctx, b, data, n)
}

// measureSize loads n expenses as the full run does (Cash, spread over the
// categories and three years of days) into the fresh data directory and
// reports their bytes.
func measureSize(ctx context.Context, b *benchRun, data string, n int, today finance.Date) error {
	fmt.Fprintf(os.Stderr, "seeding %d expenses...\n", n)
	if err := loadExpenses(ctx, data, n, today); err != nil {
		return err
	}
	return measureBytes(ctx, b, data, n)
}

func loadExpenses(ctx context.Context, data string, n int, today finance.Date) error {
	db, err := store.Open(filepath.Join(data, store.FileName))
	if err != nil {
		return err
	}
	return errors.Join(seedExpenses(ctx, db, email, n, today), db.Close())
}

// measureBytes reports the bytes per expense (n of them) of the database
// file and of each B-tree that holds more than 1% of it.
func measureBytes(ctx context.Context, b *benchRun, data string, n int) error {
	add := b.add
	db, err := store.Open(filepath.Join(data, store.FileName))
	if err != nil {
		return err
	}
	trees, err := bTreeSizes(ctx, db)
	if err := errors.Join(err, db.Close()); err != nil {
		return err
	}
	size, err := databaseBytes(data)
	if err != nil {
		return err
	}
	perExpense := float64(size) / float64(n)
	add(fmt.Sprintf("(j) database bytes per expense at %s expenses (all tables)", humanInt(n)), "%.0f", perExpense)
	b.target(figBytes, fmt.Sprintf("Bytes on disk per expense at %s", humanInt(n)), "", fmt.Sprintf("%.0f", perExpense),
		fmt.Sprintf("≤ %d", bytesPerExpenseTarget), perExpense <= bytesPerExpenseTarget)
	for _, t := range trees {
		if t.Bytes*100 >= size {
			add("(j) "+t.Name, "%.0f bytes per expense", float64(t.Bytes)/float64(n))
		}
	}
	return nil
}

// databaseBytes is the size of the database on disk, its WAL included.
func databaseBytes(data string) (int64, error) {
	var total int64
	for _, suffix := range []string{"", "-wal"} {
		fi, err := os.Stat(filepath.Join(data, store.FileName+suffix))
		if errors.Is(err, os.ErrNotExist) && suffix != "" {
			continue
		} else if err != nil {
			return 0, err
		}
		total += fi.Size()
	}
	return total, nil
}

func humanInt(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func cli(bin, data string, stdin io.Reader, args ...string) (string, error) {
	cmd := exec.Command(bin, append(args, "--data-dir", data)...)
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %v: %w: %s", bin, args, err, errb.String())
	}
	return out.String(), nil
}

type server struct {
	cmd       *exec.Cmd
	url, data string
	// began is the moment just before the exec.
	began time.Time
}

var urlRE = regexp.MustCompile(`url=(http://[^ ]+)`)

func start(bin, data string) (*server, error) {
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", data, "--rate-limit", "off", "--access-log=false")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	began := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if m := urlRE.FindStringSubmatch(sc.Text()); m != nil {
			go io.Copy(io.Discard, stderr)
			return &server{cmd: cmd, url: m[1], data: data, began: began}, nil
		}
	}
	_ = cmd.Process.Kill()
	return nil, fmt.Errorf("server exited before listening")
}

// peakRSS is the server's high-water resident set size in KiB (Linux).
func (s *server) peakRSS() int { return procStatusKB(s.cmd.Process.Pid, "VmHWM") }

// rss is the server's resident set size now, in KiB (Linux).
func (s *server) rss() int { return procStatusKB(s.cmd.Process.Pid, "VmRSS") }

func (s *server) stop() error {
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	return s.cmd.Wait()
}

type client struct {
	base, key string
	http      *http.Client
}

// body is the body of a GET of path that answered 200, as the server sent
// it (the client asks for no compression).
func (c *client) body(path string) ([]byte, error) {
	req, err := http.NewRequest(http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return b, err
}

func (c *client) do(method, path, body string, out any) error {
	return c.send(method, path, "application/json", body, out)
}

// send is do with a body of contentType (a file upload's form, say).
func (c *client) send(method, path, contentType, body string, out any) error {
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	if body != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

type request func(c *client, i int) error

func postExpense(c *client, i int) error {
	body := fmt.Sprintf(`{"amount":"%d.%02d","date":"2026-01-%02d","description":"bench %d","category":"Groceries","payment_method":"Cash"}`,
		1+i%5000, i%100, 1+i%28, i)
	return c.do("POST", "/expenses", body, nil)
}

func get(path string) request {
	return func(c *client, _ int) error { return c.do("GET", path, "", nil) }
}

type result struct {
	rate     float64
	p50, p99 time.Duration
	errors   int
}

// load sends n requests from `clients` concurrent workers and reports the
// completed rate and latency percentiles. Failed requests are counted; the
// first failure is printed.
func (c *client) load(n, clients int, req request) result {
	lat := make([]time.Duration, n)
	var (
		mu       sync.Mutex
		errs     int
		firstErr error
		next     int
		wg       sync.WaitGroup
	)
	start := time.Now()
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				t := time.Now()
				err := req(c, i)
				lat[i] = time.Since(t)
				if err != nil {
					mu.Lock()
					errs++
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		fmt.Fprintln(os.Stderr, "  first error:", firstErr)
	}
	slices.Sort(lat)
	return result{rate: float64(n) / elapsed.Seconds(), p50: lat[n/2], p99: lat[n*99/100], errors: errs}
}
