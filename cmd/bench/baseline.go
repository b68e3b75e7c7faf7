package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// The baseline is a bare net/http + SQLite server measured in the same run
// as finance, so every figure can be read as a ratio that compares across
// machines. It runs in a process of its own (this program started again with
// -baseline), like the finance server, so neither shares a heap or garbage
// collector with the load generator. It answers:
//
//   - POST /api/v1/expenses: decodes the same JSON body and commits one row,
//     one transaction per request, on a connection opened exactly like
//     finance's writer (WAL, synchronous=FULL, BEGIN IMMEDIATE);
//   - GET /api/v1/health: the bytes finance's health route answered with.
//
// It does no authentication, validation, routing beyond two paths,
// envelope or logging: it is the floor of what HTTP plus a durable commit costs.

// serveBaseline is the baseline process: it serves until stdin closes.
func serveBaseline(dir, healthFile string) error {
	ctx := context.Background()
	health, err := os.ReadFile(healthFile)
	if err != nil {
		return err
	}
	w, err := openBaselineWriter(ctx, filepath.Join(dir, "baseline.db"))
	if err != nil {
		return err
	}
	defer w.close()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/health", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		_, _ = rw.Write(health)
	})
	mux.HandleFunc("POST /api/v1/expenses", func(rw http.ResponseWriter, r *http.Request) {
		var body struct {
			Amount      json.Number `json:"amount"`
			Date        string      `json:"date"`
			Description string      `json:"description"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		if err := w.insert(r.Context(), int64(len(body.Amount)), body.Date, body.Description); err != nil {
			http.Error(rw, err.Error(), http.StatusInternalServerError)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(rw, `{"success":true}`)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "baseline listening url=http://%s\n", ln.Addr())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		_ = ln.Close()
	}()
	err = http.Serve(ln, mux)
	if _, ok := err.(*net.OpError); ok {
		return nil // stdin closed: the parent is done
	}
	return err
}

// baselineServer is the running baseline process.
type baselineServer struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	url, dir string
	// began is the moment just before the exec.
	began time.Time
}

// startBaseline starts the baseline in dir, answering health with health.
func startBaseline(dir string, health []byte) (*baselineServer, error) {
	healthFile := filepath.Join(dir, "baseline-health.json")
	if err := os.WriteFile(healthFile, health, 0o600); err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-baseline", dir, "-baseline-health", healthFile)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
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
			go io.Copy(os.Stderr, stderr)
			return &baselineServer{cmd: cmd, stdin: stdin, url: m[1], dir: dir, began: began}, nil
		}
	}
	_ = cmd.Process.Kill()
	return nil, fmt.Errorf("baseline exited before listening")
}

func (b *baselineServer) stop() error {
	_ = b.stdin.Close()
	return b.cmd.Wait()
}

// healthBody returns what GET /api/v1/health answers with.
func (c *client) healthBody() ([]byte, error) {
	req, err := http.NewRequest(http.MethodGet, c.base+"/health", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET /health: %d %s", resp.StatusCode, b)
	}
	return b, err
}

// writerCounts are the concurrent writer counts of the create measurements.
var writerCounts = []int{1, 2, 4, 8, 16}

// measureAuthAndCreates runs the request-cost figures against the
// finance server srv (at c) and the baseline side by side: authenticated
// health with 8 connections; creates with 1 to 16 writers, each level with
// the server CPU per create (user and system time of the server process
// from /proc/PID/stat across the level's run, over its creates); the
// resident memory after them; and the WAL pages per create
// (walPagesPerCreate). Rates are printed as ratios to the baseline, and
// the create rates also to finance's own 1-writer rate, which group commit
// is to raise. It returns how many expenses it created through c.
func measureAuthAndCreates(ctx context.Context, b *benchRun, srv *server, c *client, writes, healthReads int) (int, error) {
	add := b.add
	health, err := c.healthBody()
	if err != nil {
		return 0, err
	}
	base, err := startBaseline(b.dir, health)
	if err != nil {
		return 0, err
	}
	defer base.stop()
	bc := &client{base: base.url + "/api/v1", key: c.key, http: c.http}
	pid, basePID := srv.cmd.Process.Pid, base.cmd.Process.Pid

	fmt.Fprintln(os.Stderr, "measuring authenticated health...")
	c.load(healthReads/10, 8, get("/health")) // warm both
	bc.load(healthReads/10, 8, get("/health"))
	fh := c.load(healthReads, 8, get("/health"))
	bh := bc.load(healthReads, 8, get("/health"))
	add("GET /health with a key, 8 connections", "%.0f /s, p50 %s, p99 %s, errors %d", fh.rate, ms(fh.p50), ms(fh.p99), fh.errors)
	add("baseline: GET /health (same bytes), 8 connections", "%.0f /s, p50 %s, p99 %s, errors %d", bh.rate, ms(bh.p50), ms(bh.p99), bh.errors)
	add(fmt.Sprintf("GET /health ratio to baseline (target >= %.2f)", healthRatioTarget), "%.2f", fh.rate/bh.rate)
	b.target(figHealth, "Authenticated health, 8 connections", fmt.Sprintf("%.0f /s", bh.rate),
		fmt.Sprintf("%.0f /s, %.2f of the baseline, %d errors", fh.rate, fh.rate/bh.rate, fh.errors),
		fmt.Sprintf("≥ %.2f of the baseline", healthRatioTarget), fh.rate/bh.rate >= healthRatioTarget && fh.errors == 0)

	fmt.Fprintln(os.Stderr, "measuring creates...")
	// timed is one load with the CPU time the process pid used meanwhile,
	// per request.
	timed := func(c *client, pid, n int) (result, time.Duration, error) {
		before, err := cpuTime(pid)
		if err != nil {
			return result{}, 0, err
		}
		r := c.load(writes, n, postExpense)
		after, err := cpuTime(pid)
		return r, (after - before) / time.Duration(writes), err
	}
	var one, baseOne result
	for _, n := range writerCounts {
		f, fcpu, err := timed(c, pid, n)
		if err != nil {
			return 0, err
		}
		bw, bcpu, err := timed(bc, basePID, n)
		if err != nil {
			return 0, err
		}
		if n == 1 {
			one, baseOne = f, bw
		}
		add(fmt.Sprintf("POST /expenses (Cash), %d writers", n), "%.0f /s, p50 %s, p99 %s, errors %d; %.2fx 1 writer",
			f.rate, ms(f.p50), ms(f.p99), f.errors, f.rate/one.rate)
		add(fmt.Sprintf("baseline: one insert per commit, %d writers", n), "%.0f /s, p50 %s, p99 %s, errors %d",
			bw.rate, ms(bw.p50), ms(bw.p99), bw.errors)
		add(fmt.Sprintf("POST /expenses ratio to baseline, %d writers", n), "%.2f%s", f.rate/bw.rate,
			map[bool]string{true: fmt.Sprintf(" (target >= %.2f)", sequentialRatioTarget)}[n == 1])
		add(fmt.Sprintf("server CPU per create, %d writers (finance / baseline)", n), "%s / %s%s", micros(fcpu), micros(bcpu),
			map[bool]string{true: fmt.Sprintf(" (target <= %d µs)", cpuPerCreateTarget)}[n == 1])
		switch n {
		case 1:
			b.target(figSequential, "Sequential creates", fmt.Sprintf("%.0f /s", bw.rate),
				fmt.Sprintf("%.0f /s, %.2f of the baseline, %d errors", f.rate, f.rate/bw.rate, f.errors),
				fmt.Sprintf("≥ %.2f of the baseline", sequentialRatioTarget), f.rate/bw.rate >= sequentialRatioTarget && f.errors == 0)
			b.target(figCPU, "Server CPU per create (1 writer)", micros(bcpu), micros(fcpu),
				fmt.Sprintf("≤ %d µs", cpuPerCreateTarget), fcpu <= cpuPerCreateTarget*time.Microsecond)
		case 8:
			b.target(figWriters, "Creates with 8 writers ÷ 1 writer", fmt.Sprintf("%.2fx", bw.rate/baseOne.rate),
				fmt.Sprintf("%.2fx, %d errors", f.rate/one.rate, f.errors+one.errors),
				fmt.Sprintf("≥ %.1fx, 0 errors", writersRatioTarget), f.rate/one.rate >= writersRatioTarget && f.errors+one.errors == 0)
		}
	}
	b.recordLoaded("the creates", srv.rss(), procStatusKB(basePID, "VmRSS"))

	fmt.Fprintf(os.Stderr, "counting WAL pages over %d creates...\n", walCreates)
	first := len(writerCounts) * writes
	pages, made, err := walPagesPerCreate(ctx, c, pid, databaseFile(srv.data), walCreates, first)
	if err != nil {
		return 0, err
	}
	basePages, _, err := walPagesPerCreate(ctx, bc, basePID, filepath.Join(base.dir, "baseline.db"), walCreates, first)
	if err != nil {
		return 0, err
	}
	add(fmt.Sprintf("WAL pages per create, %d sequential creates (finance / baseline)", walCreates), "%.1f / %.1f (target <= %d)",
		pages.pages, basePages.pages, walPagesTarget)
	add("  write system calls per create meanwhile (finance / baseline)", "%.1f / %.1f", pages.syscalls, basePages.syscalls)
	b.target(figWAL, "Disk writes per create (WAL pages)", fmt.Sprintf("%.1f (%.1f write calls)", basePages.pages, basePages.syscalls),
		fmt.Sprintf("%.1f (%.1f write calls)", pages.pages, pages.syscalls),
		fmt.Sprintf("≤ %d", walPagesTarget), pages.pages <= walPagesTarget)
	return first + made, nil
}

// measureCheapReadsUnderLoad times GET /accounts while 64 clients keep
// asking for expense summaries and text searches, the starvation
// figure.
func measureCheapReadsUnderLoad(c *client, reads int, add func(string, string, ...any)) {
	heavy := []string{"/expenses/summary", "/expenses?search=bench&page=1&limit=50"}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var done atomic.Int64
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if c.do("GET", heavy[i%len(heavy)], "", nil) == nil {
					done.Add(1)
				}
			}
		}()
	}
	began := time.Now()
	r := c.load(reads, 1, get("/accounts"))
	close(stop)
	wg.Wait()
	add("GET /accounts while 64 clients run summaries and searches", "p50 %s, p99 %s, errors %d (target p99 < 50 ms)",
		ms(r.p50), ms(r.p99), r.errors)
	add("  the 64 clients' summaries and searches meanwhile", "%.0f /s", float64(done.Load())/time.Since(began).Seconds())
}
