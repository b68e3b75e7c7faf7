package main

// make bench-replicas: two `finance serve` replicas on one database behind a
// small reverse proxy, and the proofs that they serve as one service
// (replica_proofs.go). Each replica has a data directory of its own, as on
// machines of their own: they share the database only, the SQLite file of
// the run's data directory (sqlite:PATH) or the -database-url.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/finance-app/finance/store"
)

// Every listener of the run (the proxy and the replicas) takes a port drawn
// at random from this range, so that runs beside other servers on a shared
// machine do not collide with fixed ports.
const (
	portFirst = 18000
	portLast  = 18999
)

// The users of the run, each with a part of their own, so that one proof's
// writes (and the statement generation they set off) never touch another's.
const (
	payerEmail = "bench-payer@example.com" // proof 3: the statement paid in parallel
	// proof 5: the statements generated once, a user for each of its rounds
	cycleEmail     = "bench-cycle-%d@example.com"
	cycleRounds    = 5
	benchPassword  = "bench-password-123"
	replicaStartBy = 30 * time.Second
)

// replicaSet is the run's replicas of finance serve on one database and the
// proxy in front of them.
type replicaSet struct {
	bin, dir, data string
	// databaseURL is the -database-url flag: empty for the SQLite database
	// of the data directory.
	databaseURL string
	replicas    []*replica
	proxy       *balancer
	proxyURL    string
	proxyServer *http.Server
}

// replica is one `finance serve` process.
type replica struct {
	name string // A, B
	cmd  *exec.Cmd
	url  string // its own address, not the proxy's
	log  string // the file its standard error goes to
	// exited is closed when the process has been waited for.
	exited chan struct{}
}

// runReplicas starts n replicas (two unless told otherwise) on one database
// behind the proxy and runs the proofs, printing each as a row with
// pass or fail; it fails when a proof does.
func runReplicas(bin, databaseURL string, n, writes int) error {
	if n < 1 {
		return fmt.Errorf("-replicas %d: at least 1", n)
	}
	b, err := newBenchRun("finance-bench-replicas-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(b.dir)
	rs := &replicaSet{bin: bin, dir: b.dir, data: b.data, databaseURL: databaseURL}

	// Users and keys first, with the CLI on the same database (which also
	// creates and migrates it).
	keys := map[string]string{}
	users := []string{email, payerEmail}
	var cycleKeys []string
	for i := range cycleRounds {
		users = append(users, fmt.Sprintf(cycleEmail, i+1))
	}
	for _, e := range users {
		if _, err := rs.cli(strings.NewReader(benchPassword+"\n"), "users", "create", "--email", e, "--password-stdin"); err != nil {
			return err
		}
		k, err := rs.cli(nil, "keys", "create", "--user", e, "--name", "bench", "--scopes", "all")
		if err != nil {
			return err
		}
		keys[e] = strings.TrimSpace(k)
		if strings.HasPrefix(e, "bench-cycle-") {
			cycleKeys = append(cycleKeys, keys[e])
		}
	}
	// The key proof 4 revokes, with its id (the web page's revoke form names it).
	out, err := rs.cli(nil, "keys", "create", "--user", email, "--name", "revoked by the proof", "--scopes", "finance:read", "--json")
	if err != nil {
		return err
	}
	var revocable struct{ Key, ID string }
	if err := json.Unmarshal([]byte(out), &revocable); err != nil {
		return fmt.Errorf("keys create --json: %w: %s", err, out)
	}

	if err := rs.start(n); err != nil {
		return errors.Join(err, rs.stop())
	}
	defer rs.stop()
	b.add("replicas: database", "%s", rs.describeDatabase())
	b.add("replicas: processes", "%d × finance serve (%s) behind a net/http/httputil reverse proxy at %s, round robin; "+
		"a replica that refuses connections is skipped for 1 s", len(rs.replicas), rs.replicaURLs(), rs.proxyURL)

	type proof struct {
		name string
		run  func() (bool, error)
	}
	proofs := []proof{
		{"creates", func() (bool, error) { return rs.proveCreates(b, keys[email], writes) }},
		{"payments", func() (bool, error) { return rs.provePayments(b, keys[payerEmail]) }},
		{"revocation", func() (bool, error) { return rs.proveRevocation(b, revocable.Key, revocable.ID) }},
		{"statements", func() (bool, error) { return rs.proveStatementsOnce(b, cycleKeys) }},
	}
	if n > 1 {
		// Settings before the kill, which leaves one replica.
		proofs = append(proofs, proof{"settings", func() (bool, error) { return rs.proveSettings(b, keys[payerEmail]) }},
			proof{"stateless", func() (bool, error) { return rs.proveStateless(b, keys[payerEmail]) }},
			proof{"kill -9", func() (bool, error) { return rs.proveKill(b, keys[email], writes) }})
	}
	var failed []string
	counted := 0
	for _, p := range proofs {
		fmt.Fprintf(os.Stderr, "proof: %s...\n", p.name)
		ok, err := p.run()
		if err != nil {
			rs.printLogs()
			return fmt.Errorf("proof %s: %w", p.name, err)
		}
		counted++
		if !ok {
			failed = append(failed, p.name)
		}
	}
	if len(failed) > 0 {
		rs.printLogs()
	}
	if n == 1 {
		b.add("replicas (2) kill -9 under load", "not run: one replica")
	}
	b.add("replicas: proofs passed", "%d of %d%s", counted-len(failed), counted, failedList(failed))
	writeTable(b.table)
	if len(failed) > 0 {
		return fmt.Errorf("%d proofs failed: %s", len(failed), strings.Join(failed, ", "))
	}
	return nil
}

func failedList(failed []string) string {
	if len(failed) == 0 {
		return ""
	}
	return " (failed: " + strings.Join(failed, ", ") + ")"
}

// verdict is a proof row's ending.
func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "**FAIL**"
}

// describeDatabase names the database the replicas ran on, for the table.
func (rs *replicaSet) describeDatabase() string {
	if rs.databaseURL == "" {
		return "SQLite: one file (sqlite:" + store.FileName + ") shared by every replica, each with a data directory of its own; CPUs: " + cpuCount()
	}
	shown := rs.databaseURL
	if u, err := url.Parse(rs.databaseURL); err == nil {
		shown = u.Redacted()
	}
	return "--database-url " + shown + ", each replica with a data directory of its own; CPUs: " + cpuCount()
}

func cpuCount() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "?"
	}
	return fmt.Sprint(bytes.Count(b, []byte("\nprocessor")) + 1)
}

func (rs *replicaSet) replicaURLs() string {
	urls := make([]string, len(rs.replicas))
	for i, r := range rs.replicas {
		urls[i] = r.name + " " + r.url
	}
	return strings.Join(urls, ", ")
}

// databaseArgs are the flags and environment that point a finance command at
// the run's database from the data directory dataDir: the database URL
// when one was given, otherwise the SQLite file of the run's data
// directory. The replicas share nothing else: the database holds the
// signing key and the profile pictures.
func (rs *replicaSet) databaseArgs(dataDir string) (args, env []string) {
	dbURL := rs.databaseURL
	if dbURL == "" {
		dbURL = "sqlite:" + filepath.Join(rs.data, store.FileName)
	}
	// A database URL in the bench's own environment must not move the
	// replicas off the database the run says it measures.
	env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "FINANCE_DATABASE_URL=") })
	return []string{"--data-dir", dataDir, "--database-url", dbURL}, append(env, "FINANCE_DATABASE_URL="+dbURL)
}

// cli runs a finance command on the run's database and returns its standard
// output.
func (rs *replicaSet) cli(stdin io.Reader, args ...string) (string, error) {
	dbArgs, env := rs.databaseArgs(rs.data)
	cmd := exec.Command(rs.bin, append(args, dbArgs...)...)
	cmd.Env, cmd.Stdin = env, stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %v: %w: %s", rs.bin, args, err, errb.String())
	}
	return out.String(), nil
}

// start opens the proxy's listener, then starts n replicas one after the
// other (each waits for the one before to listen), each told the proxy's
// address as its base URL, as behind any load balancer.
func (rs *replicaSet) start(n int) error {
	ln, err := listenInRange()
	if err != nil {
		return err
	}
	rs.proxyURL = "http://" + ln.Addr().String()
	for i := range n {
		r, err := rs.startReplica(string(rune('A' + i)))
		if err != nil {
			ln.Close()
			return err
		}
		rs.replicas = append(rs.replicas, r)
	}
	backends := make([]*url.URL, n)
	for i, r := range rs.replicas {
		backends[i], _ = url.Parse(r.url)
	}
	rs.proxy = newBalancer(backends)
	rs.proxyServer = &http.Server{Handler: rs.proxy.handler(), ReadHeaderTimeout: 10 * time.Second}
	go rs.proxyServer.Serve(ln)
	return nil
}

// startReplica starts one `finance serve` on a random port of the range
// and waits for its listening line; a port another program took in the
// meantime is tried again with another.
func (rs *replicaSet) startReplica(name string) (*replica, error) {
	var lastErr error
	for range 5 {
		r, err := rs.tryReplica(name)
		if err == nil {
			return r, nil
		}
		lastErr = err
		if !strings.Contains(err.Error(), "address already in use") {
			break
		}
	}
	return nil, lastErr
}

func (rs *replicaSet) tryReplica(name string) (*replica, error) {
	return rs.replicaAt(name, fmt.Sprintf("127.0.0.1:%d", portFirst+rand.IntN(portLast-portFirst+1)))
}

// restart starts replica i again at its address, once it has exited.
func (rs *replicaSet) restart(i int) error {
	old := rs.replicas[i]
	<-old.exited
	r, err := rs.replicaAt(old.name, strings.TrimPrefix(old.url, "http://"))
	if err != nil {
		return err
	}
	rs.replicas[i] = r
	return nil
}

// replicaAt starts a replica listening at addr and waits until it listens.
func (rs *replicaSet) replicaAt(name, addr string) (*replica, error) {
	// A data directory of the replica's own, as on a machine of its own:
	// nothing the replicas share is in it.
	if err := os.MkdirAll(rs.replicaDataDir(name), 0o700); err != nil {
		return nil, err
	}
	dbArgs, env := rs.databaseArgs(rs.replicaDataDir(name))
	args := append([]string{"serve", "--addr", addr, "--base-url", rs.proxyURL,
		"--rate-limit", "off", "--access-log=false", "--backup-interval", "off", "--reminder-interval", "0"}, dbArgs...)
	cmd := exec.Command(rs.bin, args...)
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(rs.dir, "replica-"+name+".log")
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600) // a restart's lines follow the ones before
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	r := &replica{name: name, cmd: cmd, url: "http://" + addr, log: logPath, exited: make(chan struct{})}
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		told := false
		for sc.Scan() {
			fmt.Fprintln(logFile, sc.Text())
			if !told && strings.Contains(sc.Text(), "finance listening") {
				told = true
				close(listening)
			}
		}
		logFile.Close()
		cmd.Wait()
		close(r.exited)
	}()
	select {
	case <-listening:
		return r, nil
	case <-r.exited:
		return nil, fmt.Errorf("replica %s exited before listening: %s", name, tail(logPath, 5))
	case <-time.After(replicaStartBy):
		_ = cmd.Process.Kill()
		<-r.exited
		return nil, fmt.Errorf("replica %s did not listen within %s: %s", name, replicaStartBy, tail(logPath, 5))
	}
}

// replicaDataDir is the data directory of the replica called name.
func (rs *replicaSet) replicaDataDir(name string) string {
	return filepath.Join(rs.dir, "data-"+name)
}

// kill ends the replica with SIGKILL: no shutdown, no flush, as a crash or
// an out-of-memory kill would.
func (r *replica) kill() {
	_ = r.cmd.Process.Signal(syscall.SIGKILL)
	<-r.exited
}

// stop asks every replica still running to stop and waits for it, then
// closes the proxy.
func (rs *replicaSet) stop() error {
	var errs []error
	for _, r := range rs.replicas {
		select {
		case <-r.exited:
			continue
		default:
		}
		_ = r.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-r.exited:
		case <-time.After(15 * time.Second):
			_ = r.cmd.Process.Kill()
			<-r.exited
			errs = append(errs, fmt.Errorf("replica %s did not stop within 15 s", r.name))
		}
	}
	rs.replicas = nil
	if rs.proxyServer != nil {
		errs = append(errs, rs.proxyServer.Close())
		rs.proxyServer = nil
	}
	return errors.Join(errs...)
}

// printLogs writes the last lines of each replica's log, for a failed run.
func (rs *replicaSet) printLogs() {
	for _, r := range rs.replicas {
		fmt.Fprintf(os.Stderr, "--- replica %s (%s), last lines of its log:\n%s\n", r.name, r.url, tail(r.log, 20))
	}
}

// tail is the last n lines of the file at path.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// listenInRange listens on loopback at a random free port of the range.
func listenInRange() (net.Listener, error) {
	var lastErr error
	for range 50 {
		port := portFirst + rand.IntN(portLast-portFirst+1)
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			return ln, nil
		}
		lastErr = err
	}
	return nil, fmt.Errorf("no free port in %d-%d: %w", portFirst, portLast, lastErr)
}

// balancer is the load balancer in front of the replicas: a
// net/http/httputil.ReverseProxy whose transport sends each request to the
// next replica in turn. A replica that refuses the connection (the request
// never reached it, so sending it elsewhere is safe, a POST included) is
// skipped for downFor and the request goes to the next one, as a load
// balancer's passive health check does. A request that fails once it was
// sent (the replica died while serving it) is answered 502, unless it
// carries an Idempotency-Key: net/http's transport resends such a request
// when its connection fails before the first byte of the answer (see
// Request.isReplayable in net/http), the dead replica refuses the resend,
// and the request goes on to the next replica like any refused one, where
// its key makes the second sending safe. Those are counted as inFlight.
type balancer struct {
	backends  []*url.URL
	transport *http.Transport
	next      atomic.Uint64

	mu        sync.Mutex
	downUntil []time.Time
	// served counts the answers each replica gave; rerouted the requests a
	// refused connection sent to another replica; failures the requests
	// answered 502, by what went wrong.
	served   []atomic.Int64
	rerouted atomic.Int64
	failures map[string]int
	// inFlight counts the requests that had been sent to a replica which
	// died before answering, and that went on to another replica.
	inFlight atomic.Int64
}

// downFor is how long a replica that refused a connection is skipped.
const downFor = time.Second

func newBalancer(backends []*url.URL) *balancer {
	return &balancer{
		backends: backends,
		transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
			MaxIdleConnsPerHost: 64,
			IdleConnTimeout:     90 * time.Second,
		},
		downUntil: make([]time.Time, len(backends)),
		served:    make([]atomic.Int64, len(backends)),
		failures:  map[string]int{},
	}
}

func (b *balancer) handler() http.Handler {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetXForwarded()
			pr.Out.Host = pr.In.Host // the replicas' base URL is the proxy's
			// The transport picks the replica; this only makes the URL absolute.
			pr.Out.URL.Scheme, pr.Out.URL.Host = b.backends[0].Scheme, b.backends[0].Host
		},
		Transport: b,
		ErrorLog:  log.New(io.Discard, "", 0),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			kind := failureKind(err)
			b.mu.Lock()
			b.failures[kind]++
			b.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, `{"success":false,"message":"proxy: %s","error":{"code":"BAD_GATEWAY","message":"proxy: %s"}}`, kind, kind)
		},
	}
}

// RoundTrip sends req to the next replica that is not skipped, and on to
// the next while replicas refuse the connection; a replica that answers is
// no longer skipped.
func (b *balancer) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	var lastErr error
	for _, i := range b.order() {
		out := req.Clone(req.Context())
		out.URL.Scheme, out.URL.Host = b.backends[i].Scheme, b.backends[i].Host
		if body != nil {
			out.Body = io.NopCloser(bytes.NewReader(body))
			out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
			out.ContentLength = int64(len(body))
		}
		var sent atomic.Int32
		out = out.WithContext(httptrace.WithClientTrace(out.Context(), &httptrace.ClientTrace{
			WroteRequest: func(w httptrace.WroteRequestInfo) {
				if w.Err == nil {
					sent.Add(1)
				}
			},
		}))
		resp, err := b.transport.RoundTrip(out)
		if err == nil {
			b.served[i].Add(1)
			b.mu.Lock()
			b.downUntil[i] = time.Time{}
			b.mu.Unlock()
			return resp, nil
		}
		lastErr = err
		if !refused(err) {
			return nil, err
		}
		if sent.Load() > 0 {
			b.inFlight.Add(1)
		}
		b.mu.Lock()
		b.downUntil[i] = time.Now().Add(downFor)
		b.mu.Unlock()
		b.rerouted.Add(1)
	}
	return nil, lastErr
}

// order is the replicas to try for one request: from the next in turn,
// those not skipped first, then the skipped ones (which may be back).
func (b *balancer) order() []int {
	n := len(b.backends)
	first := int(b.next.Add(1) % uint64(n))
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	var up, down []int
	for k := range n {
		i := (first + k) % n
		if now.After(b.downUntil[i]) {
			up = append(up, i)
		} else {
			down = append(down, i)
		}
	}
	return append(up, down...)
}

// refused reports whether err is a failure to connect: the request was
// never sent.
func refused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// failureKind names what made a request fail once it was sent.
func failureKind(err error) string {
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed before the answer (EOF)"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.ECONNREFUSED), refused(err):
		return "connection refused by every replica"
	case errors.Is(err, syscall.EPIPE):
		return "broken pipe"
	}
	return err.Error()
}

// counts returns the answers each replica gave, the refused connections
// sent elsewhere and the failures by kind, and starts counting again.
func (b *balancer) counts() (served []int64, rerouted int64, failures map[string]int) {
	b.inFlight.Store(0)
	served = make([]int64, len(b.backends))
	for i := range b.served {
		served[i] = b.served[i].Swap(0)
	}
	b.mu.Lock()
	failures, b.failures = b.failures, map[string]int{}
	b.mu.Unlock()
	return served, b.rerouted.Swap(0), failures
}

// split describes how many answers each replica gave.
func (rs *replicaSet) split(served []int64) string {
	var total int64
	for _, n := range served {
		total += n
	}
	parts := make([]string, len(served))
	for i, n := range served {
		pct := 0.0
		if total > 0 {
			pct = float64(n) * 100 / float64(total)
		}
		parts[i] = fmt.Sprintf("%s %.0f%%", rs.replicas[i].name, pct)
	}
	return strings.Join(parts, ", ")
}

// failureText lists failures by kind, most frequent first.
func failureText(failures map[string]int) string {
	if len(failures) == 0 {
		return "none"
	}
	kinds := make([]string, 0, len(failures))
	for k := range failures {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int { return failures[b] - failures[a] })
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", failures[k], k)
	}
	return strings.Join(parts, ", ")
}
