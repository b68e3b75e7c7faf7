package main

// The proofs of make bench-replicas. Each prints one or more rows of the
// bench table, with its figures and PASS or FAIL, and reads back what the
// database holds afterwards through a replica (never from the file), so the
// same proof holds whatever database the replicas run on.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/finance-app/finance/finance"
)

// answer is one HTTP answer as the proofs read it.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// envelope is the part of the API's answers the proofs read.
type envelope struct {
	Data  json.RawMessage `json:"data"`
	Error struct {
		Code string `json:"code"`
	} `json:"error"`
}

func (a answer) envelope() envelope {
	var e envelope
	_ = json.Unmarshal(a.body, &e)
	return e
}

// code is the error code of a failed answer ("" when it has none).
func (a answer) code() string { return a.envelope().Error.Code }

// data decodes the answer's data into out.
func (a answer) data(out any) error {
	if err := json.Unmarshal(a.envelope().Data, out); err != nil {
		return fmt.Errorf("answer %d: %w: %.300s", a.status, err, a.body)
	}
	return nil
}

// id is the id of the record an answer carries.
func (a answer) id() string {
	var d struct{ ID string }
	_ = a.data(&d)
	return d.ID
}

// call sends one request with the key and the headers given.
func call(hc *http.Client, method, url, key, body string, headers ...string) (answer, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return answer{}, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := hc.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: b}, err
}

// must is call for the setup steps: anything but want is an error.
func must(hc *http.Client, want int, method, url, key, body string) (answer, error) {
	a, err := call(hc, method, url, key, body)
	if err == nil && a.status != want {
		err = fmt.Errorf("%s %s: %d, want %d: %.300s", method, url, a.status, want, a.body)
	}
	return a, err
}

func newHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}, Timeout: 60 * time.Second}
}

// totalItems is the pagination total of a list answer.
func totalItems(a answer) (int, error) {
	var page struct {
		Pagination struct {
			TotalItems int `json:"total_items"`
		} `json:"pagination"`
	}
	err := a.data(&page)
	return page.Pagination.TotalItems, err
}

// (1) Creates through the proxy at 1 to 16 writers: every one answered 201,
// and the database holds every one of them afterwards.
func (rs *replicaSet) proveCreates(b *benchRun, key string, writes int) (bool, error) {
	c := &client{base: rs.proxyURL + "/api/v1", key: key, http: newHTTPClient()}
	rs.proxy.counts()
	ok, sent := true, 0
	for _, writers := range []int{1, 2, 4, 8, 16} {
		r := c.load(writes, writers, postExpense)
		served, rerouted, failures := rs.proxy.counts()
		sent += writes
		pass := r.errors == 0 && len(failures) == 0
		ok = ok && pass
		b.add(fmt.Sprintf("replicas (1) POST /expenses through the proxy, %d writers", writers),
			"%.0f /s, p50 %s, p99 %s, errors %d of %s (answered by %s; rerouted %d) — %s",
			r.rate, ms(r.p50), ms(r.p99), r.errors, humanInt(writes), rs.split(served), rerouted, verdict(pass))
	}
	a, err := must(c.http, http.StatusOK, "GET", rs.replicas[0].url+"/api/v1/expenses?limit=1&dateFrom=2026-01-01&dateTo=2026-01-31", key, "")
	if err != nil {
		return false, err
	}
	stored, err := totalItems(a)
	if err != nil {
		return false, err
	}
	pass := stored == sent
	b.add("replicas (1) expenses in the database afterwards (read through A)", "%s of %s sent — %s", humanInt(stored), humanInt(sent), verdict(pass))
	return ok && pass, nil
}

// (2) kill -9 under load: while writers create through the proxy, replica
// B is killed with SIGKILL after a quarter of the creates, started again
// after half, and A is killed after three quarters, so each replica dies
// with requests in flight and B restarts on a database another process
// died writing. Every other create carries an Idempotency-Key, and its
// writer sends it again if it fails (the replay of a write that did commit
// answers its stored 201 and writes nothing); the creates without a key are
// sent once, as a client that cannot tell whether a failed write was written
// would. Afterwards every create answered 201 is read back by id through
// the survivor, the database holds no create twice, and every keyed create
// was acknowledged.
func (rs *replicaSet) proveKill(b *benchRun, key string, writes int) (bool, error) {
	const writers = 8
	const attempts = 6
	n := writes
	hc := newHTTPClient()
	run := fmt.Sprintf("k%d", time.Now().UnixNano())
	type outcome struct {
		id, description string
		keyed, replayed bool
		tries           int
	}
	outcomes := make([]outcome, n)
	var (
		mu     sync.Mutex
		failed = map[string]int{} // failed attempts, by how they failed
		next   atomic.Int64
		wg     sync.WaitGroup
		// The three events, each set off by a writer reaching its create,
		// run one after the other: kill B, start B again, kill A.
		at      = []int{n / 4, n / 2, 3 * n / 4}
		reached = []chan struct{}{make(chan struct{}), make(chan struct{}), make(chan struct{})}
		once    [3]sync.Once
		when    [3]time.Duration
		done    = make(chan error, 1)
	)
	rs.proxy.counts()
	began := time.Now()
	go func() {
		events := []func() error{
			func() error { rs.replicas[1].kill(); return nil },
			func() error { return rs.restart(1) },
			func() error { rs.replicas[0].kill(); return nil },
		}
		for k, event := range events {
			<-reached[k]
			err := event()
			mu.Lock()
			when[k] = time.Since(began)
			mu.Unlock()
			if err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for range writers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				for k, j := range at {
					if i == j {
						once[k].Do(func() { close(reached[k]) })
					}
				}
				o := &outcomes[i]
				o.description, o.keyed = fmt.Sprintf("%s %d", run, i), i%2 == 0
				body := fmt.Sprintf(`{"amount":"%d.%02d","date":"2026-02-%02d","description":%q,"category":"Groceries","payment_method":"Cash"}`,
					1+i%5000, i%100, 1+i%28, o.description)
				var headers []string
				if o.keyed {
					headers = []string{"Idempotency-Key", run + "-" + fmt.Sprint(i)}
				}
				for o.tries < attempts {
					o.tries++
					a, err := call(hc, "POST", rs.proxyURL+"/api/v1/expenses", key, body, headers...)
					if err == nil && a.status == http.StatusCreated {
						o.id, o.replayed = a.id(), a.header.Get("Idempotent-Replayed") == "true"
						break
					}
					kind := ""
					if err != nil {
						kind = "client: " + failureKind(err)
					} else {
						kind = fmt.Sprintf("%d %s", a.status, a.code())
						if a.status == http.StatusBadGateway {
							var e struct{ Message string }
							_ = json.Unmarshal(a.body, &e)
							kind = "502 from the proxy, " + strings.TrimPrefix(e.Message, "proxy: ")
						}
					}
					if !o.keyed {
						kind += " (no key: not sent again)"
					}
					mu.Lock()
					failed[kind]++
					mu.Unlock()
					if !o.keyed {
						break
					}
					time.Sleep(time.Duration(o.tries) * 20 * time.Millisecond)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(began)
	if err := <-done; err != nil {
		return false, fmt.Errorf("restarting B: %w", err)
	}
	survivor := rs.replicas[1]
	inFlight := rs.proxy.inFlight.Load()
	served, rerouted, _ := rs.proxy.counts()

	// Every acknowledged create, read back by id through the survivor.
	lost, mismatched := 0, 0
	var firstLost string
	var lostMu sync.Mutex
	var next2 atomic.Int64
	var wg2 sync.WaitGroup
	for range 4 {
		wg2.Go(func() {
			for {
				i := int(next2.Add(1) - 1)
				if i >= n {
					return
				}
				o := outcomes[i]
				if o.id == "" {
					continue
				}
				a, err := call(hc, "GET", survivor.url+"/api/v1/expenses/"+o.id, key, "")
				var got struct{ Description string }
				if err == nil && a.status == http.StatusOK {
					err = a.data(&got)
				}
				lostMu.Lock()
				switch {
				case err != nil || a.status != http.StatusOK:
					lost++
					if firstLost == "" {
						firstLost = fmt.Sprintf("%s (%q): %d %v", o.id, o.description, a.status, err)
					}
				case got.Description != o.description:
					mismatched++
				}
				lostMu.Unlock()
			}
		})
	}
	wg2.Wait()
	if firstLost != "" {
		fmt.Fprintln(os.Stderr, "  first acknowledged create not found:", firstLost)
	}
	// Every expense of the run the database holds, by description.
	stored := map[string]int{}
	for page := 1; ; page++ {
		a, err := must(hc, http.StatusOK, "GET", fmt.Sprintf("%s/api/v1/expenses?limit=100&page=%d&dateFrom=2026-02-01&dateTo=2026-02-28",
			survivor.url, page), key, "")
		if err != nil {
			return false, err
		}
		var items struct {
			Items []struct{ Description string }
		}
		if err := a.data(&items); err != nil {
			return false, err
		}
		for _, e := range items.Items {
			stored[e.Description]++
		}
		if len(items.Items) < 100 {
			break
		}
	}
	acknowledged, replayed, retried, keyedUnacknowledged, unkeyedFailed, writtenAnyway, duplicates, strays := 0, 0, 0, 0, 0, 0, 0, 0
	expected := map[string]bool{}
	for _, o := range outcomes {
		expected[o.description] = true
		if stored[o.description] > 1 {
			duplicates += stored[o.description] - 1
		}
		switch {
		case o.id != "":
			acknowledged++
			if o.replayed {
				replayed++
			}
			if o.tries > 1 {
				retried++
			}
		case o.keyed:
			keyedUnacknowledged++
		default:
			unkeyedFailed++
			if stored[o.description] > 0 {
				writtenAnyway++
			}
		}
	}
	total := 0
	for d, k := range stored {
		total += k
		if !expected[d] {
			strays += k
		}
	}
	failedAttempts := 0
	for _, k := range failed {
		failedAttempts += k
	}
	pass := lost == 0 && mismatched == 0 && duplicates == 0 && strays == 0 && keyedUnacknowledged == 0
	b.add("replicas (2) kill -9 under load: creates", "%s creates by %d writers (every other one with an Idempotency-Key) in %.1f s; "+
		"B killed after %s creates (at %.2f s), started again after %s (listening at %.2f s), A killed after %s (at %.2f s); answered by %s",
		humanInt(n), writers, elapsed.Seconds(), humanInt(at[0]), when[0].Seconds(), humanInt(at[1]), when[1].Seconds(),
		humanInt(at[2]), when[2].Seconds(), rs.split(served))
	b.add("replicas (2) kill -9 under load: what failed", "in flight at a replica when it died, with an Idempotency-Key: %d, which the proxy's "+
		"transport (net/http) sent again, the dead replica refused and the proxy sent on to the other (%d answered by replay: the dead one had committed them); "+
		"failed attempts the writers saw: %d (%s); refused connections sent on to the other replica in all: %d; keyed creates sent again by their writers: %d",
		inFlight, replayed, failedAttempts, failureText(failed), rerouted, retried)
	b.add("replicas (2) kill -9 under load: acknowledged writes afterwards", "%s of %s 201s read back by id through B, restarted (lost %d, changed %d); "+
		"%s expenses of the run in the database: duplicates %d, unknown %d; keyed creates never acknowledged %d; "+
		"of the %d unkeyed creates that failed, %d were written all the same — %s",
		humanInt(acknowledged-lost), humanInt(acknowledged), lost, mismatched, humanInt(total), duplicates, strays, keyedUnacknowledged,
		unkeyedFailed, writtenAnyway, verdict(pass))
	return pass, nil
}

// (3) 20 payments against one statement at once, alternating between the
// replicas, that together are more than its balance: never overpaid, as
// many accepted as fit, the rest refused with the contract's codes.
func (rs *replicaSet) provePayments(b *benchRun, key string) (bool, error) {
	const payments = 20
	hc := newHTTPClient()
	base := rs.proxyURL + "/api/v1"
	today := finance.DateOf(time.Now())
	acct, err := must(hc, http.StatusCreated, "POST", base+"/accounts", key, `{"name":"Payer checking","type":"checking","opening_balance":"100000"}`)
	if err != nil {
		return false, err
	}
	soa, balance, err := rs.dueStatement(hc, key, "Payer card", "1000.00", today)
	if err != nil {
		return false, err
	}
	amount := finance.Money(12000) // 120.00: 8 fit in 1,000.00, 12 do not
	body := fmt.Sprintf(`{"amount":"%s","account_id":%q}`, amount, acct.id())
	type paid struct {
		status int
		code   string
	}
	results := make([]paid, payments)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	var errs []error
	var mu sync.Mutex
	for i := range payments {
		r := rs.replicas[i%len(rs.replicas)]
		wg.Go(func() {
			<-gate
			a, err := call(hc, "POST", r.url+"/api/v1/credit-cards/soa/"+soa+"/payments", key, body)
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
				return
			}
			results[i] = paid{a.status, a.code()}
		})
	}
	close(gate)
	wg.Wait()
	if len(errs) > 0 {
		return false, fmt.Errorf("payments: %v", errs[0])
	}
	accepted, refusedCodes, other := 0, map[string]int{}, 0
	for _, p := range results {
		switch {
		case p.status == http.StatusCreated:
			accepted++
		case p.code == "VALIDATION_ERROR" || p.code == "INVALID_STATUS":
			refusedCodes[fmt.Sprintf("%d %s", p.status, p.code)]++
		default:
			other++
			refusedCodes[fmt.Sprintf("%d %s", p.status, p.code)]++
		}
	}
	paidSum := amount * finance.Money(accepted)
	// What the database holds: the statement's figures, its payments, the account.
	var st finance.SOA
	a, err := must(hc, http.StatusOK, "GET", rs.replicas[0].url+"/api/v1/credit-cards/soa/"+soa, key, "")
	if err == nil {
		err = a.data(&st)
	}
	if err != nil {
		return false, err
	}
	a, err = must(hc, http.StatusOK, "GET", rs.replicas[1%len(rs.replicas)].url+"/api/v1/credit-cards/soa/"+soa+"/payments?limit=1", key, "")
	if err != nil {
		return false, err
	}
	listed, err := totalItems(a)
	if err != nil {
		return false, err
	}
	var account finance.Account
	a, err = must(hc, http.StatusOK, "GET", rs.replicas[0].url+"/api/v1/accounts/"+acct.id(), key, "")
	if err == nil {
		err = a.data(&account)
	}
	if err != nil {
		return false, err
	}
	fit := int(balance / amount)
	pass := paidSum <= balance && accepted == fit && other == 0 && st.PaidTotal == paidSum &&
		st.Remaining == balance-paidSum && listed == accepted && account.CurrentBalance == finance.Money(10_000_000)-paidSum
	b.add("replicas (3) 20 parallel payments of "+amount.String()+" on one statement of "+balance.String()+", alternating A and B",
		"%d accepted (%s; %d fit), %d refused (%s); statement paid %s, remaining %s; %d payments listed; account %s — %s",
		accepted, paidSum, fit, payments-accepted, failureText(refusedCodes), st.PaidTotal, st.Remaining, listed, account.CurrentBalance, verdict(pass))
	return pass, nil
}

// dueStatement creates a card whose cycle began 70 days ago (so at least
// two statement dates have passed) and one purchase of amount on its second
// day, which its first statement bills, then lists the card's statements
// and returns that statement's id and balance.
func (rs *replicaSet) dueStatement(hc *http.Client, key, name, amount string, today finance.Date) (string, finance.Money, error) {
	base := rs.proxyURL + "/api/v1"
	start := today.AddDays(-70)
	card, err := rs.cardWithPurchase(hc, rs.proxyURL, key, name, amount, 15, start, start.AddDays(1))
	if err != nil {
		return "", 0, err
	}
	a, err := must(hc, http.StatusOK, "GET", base+"/credit-cards/soa?cardId="+card, key, "")
	if err != nil {
		return "", 0, err
	}
	var page struct{ Items []finance.SOA }
	if err := a.data(&page); err != nil {
		return "", 0, err
	}
	if len(page.Items) != 1 {
		return "", 0, fmt.Errorf("card %s (cycle from %s): %d statements, want 1: %.500s", card, start, len(page.Items), a.body)
	}
	return page.Items[0].ID, page.Items[0].StatementBalance, nil
}

// cardWithPurchase creates, through the server at base, a card whose
// statements start at start and whose statement day is statementDay, and
// one purchase of amount dated on: it returns the card's id.
func (rs *replicaSet) cardWithPurchase(hc *http.Client, base, key, name, amount string, statementDay int, start, on finance.Date) (string, error) {
	a, err := must(hc, http.StatusCreated, "POST", base+"/api/v1/credit-cards", key, fmt.Sprintf(
		`{"name":%q,"credit_limit":"50000","statement_day":%d,"due_day":5,"cycle_start_date":%q}`, name, statementDay, start))
	if err != nil {
		return "", err
	}
	card := a.id()
	_, err = must(hc, http.StatusCreated, "POST", base+"/api/v1/credit-cards/transactions", key, fmt.Sprintf(
		`{"credit_card_id":%q,"type":"purchase","amount":%q,"date":%q,"description":"bench purchase","category":"Groceries"}`, card, amount, on))
	return card, err
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// (4) A key revoked through replica A (its web page, signed in as the key's
// owner) is refused by replica B: how long after A answered the revocation.
func (rs *replicaSet) proveRevocation(b *benchRun, key, keyID string) (bool, error) {
	a, bb := rs.replicas[0], rs.replicas[1%len(rs.replicas)]
	hc := newHTTPClient()
	probe := func(r *replica) (int, error) {
		ans, err := call(hc, "GET", r.url+"/api/v1/accounts", key, "")
		return ans.status, err
	}
	// Both replicas accept the key first (and so hold it as verified).
	for _, r := range []*replica{a, bb} {
		for range 3 {
			if st, err := probe(r); err != nil || st != http.StatusOK {
				return false, fmt.Errorf("the key before revocation on %s: %d %v", r.name, st, err)
			}
		}
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	csrf := func(path string) (string, error) {
		resp, err := browser.Get(a.url + path)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		page, _ := io.ReadAll(resp.Body)
		m := csrfRE.FindSubmatch(page)
		if resp.StatusCode != http.StatusOK || m == nil {
			return "", fmt.Errorf("GET %s on A: %d, no form token", path, resp.StatusCode)
		}
		return string(m[1]), nil
	}
	post := func(path string, form url.Values) error {
		resp, err := browser.PostForm(a.url+path, form)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			return fmt.Errorf("POST %s on A: %d, want 303", path, resp.StatusCode)
		}
		return nil
	}
	token, err := csrf("/login")
	if err != nil {
		return false, err
	}
	if err := post("/login", url.Values{"email": {email}, "password": {benchPassword}, "csrf": {token}, "next": {"/settings/api-keys"}}); err != nil {
		return false, err
	}
	if token, err = csrf("/settings/api-keys"); err != nil {
		return false, err
	}
	if err := post("/settings/api-keys/"+keyID+"/revoke", url.Values{"csrf": {token}}); err != nil {
		return false, err
	}
	revoked := time.Now()
	onA, err := probe(a)
	if err != nil {
		return false, err
	}
	// B is asked again and again until it refuses the key, for at most 5 s.
	var refusedAfter time.Duration
	asked := 0
	for {
		st, err := probe(bb)
		asked++
		if err != nil {
			return false, err
		}
		if st == http.StatusUnauthorized {
			refusedAfter = time.Since(revoked)
			break
		}
		if time.Since(revoked) > 5*time.Second {
			refusedAfter = -1
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	pass := onA == http.StatusUnauthorized && refusedAfter >= 0 && refusedAfter <= time.Second
	after := "still accepted after 5 s"
	if refusedAfter >= 0 {
		after = "refused " + ms(refusedAfter) + " after A's answer"
	}
	b.add("replicas (4) key revoked on A's web page, then used on B", "A: %d on the next request; B: %s (%d requests to B) — %s",
		onA, after, asked, verdict(pass))
	return pass, nil
}

// (5) Statements generated once. A statement falls due when the user's
// day passes its statement date; rather than wait for midnight, each round
// moves the user's day forward: with the user's timezone at UTC-11
// (Pacific/Pago_Pago) a card is created whose statement date is that zone's
// today, with one purchase dated today (unbilled, not yet due); then the
// timezone becomes UTC+14 (Pacific/Kiritimati), where the date is always
// at least one day later, and the statement is due. Then four requests to
// each replica at the same moment list the card's statements (every such
// request first generates what is due). Afterwards the card has exactly one
// statement, billing its purchase once.
//
// Each round is a user of its own that only A has served before the race:
// a replica sees a change of settings made through another one within half
// a second (proveSettings), and the race starts at once, so B must learn
// the timezone fresh, as A has it.
func (rs *replicaSet) proveStatementsOnce(b *benchRun, keys []string) (bool, error) {
	const perReplica = 4
	hc := newHTTPClient()
	ok := true
	statements, sawOne, answers := 0, 0, 0
	var problems []string
	a := rs.replicas[0]
	for round, key := range keys {
		if _, err := must(hc, http.StatusOK, "PUT", a.url+"/api/v1/user-settings/app", key, `{"timezone":"Pacific/Pago_Pago"}`); err != nil {
			return false, err
		}
		today := finance.DateOf(time.Now().In(time.FixedZone("UTC-11", -11*3600)))
		card, err := rs.cardWithPurchase(hc, a.url, key, fmt.Sprintf("Cycle card %d", round+1), "250.00", today.Day(), today.AddDays(-40), today)
		if err != nil {
			return false, err
		}
		if _, err := must(hc, http.StatusOK, "PUT", a.url+"/api/v1/user-settings/app", key, `{"timezone":"Pacific/Kiritimati"}`); err != nil {
			return false, err
		}
		seen := make([]int, perReplica*len(rs.replicas))
		var wg sync.WaitGroup
		gate := make(chan struct{})
		var failed error
		var mu sync.Mutex
		for i := range seen {
			r := rs.replicas[i%len(rs.replicas)]
			wg.Go(func() {
				<-gate
				a, err := call(hc, "GET", r.url+"/api/v1/credit-cards/soa?cardId="+card, key, "")
				if err == nil && a.status != http.StatusOK {
					err = fmt.Errorf("GET statements on %s: %d %.300s", r.name, a.status, a.body)
				}
				var page struct{ Items []finance.SOA }
				if err == nil {
					err = a.data(&page)
				}
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					failed = err
					return
				}
				seen[i] = len(page.Items)
			})
		}
		close(gate)
		wg.Wait()
		if failed != nil {
			return false, failed
		}
		answers += len(seen)
		sawOne += len(slices.DeleteFunc(slices.Clone(seen), func(n int) bool { return n != 1 }))
		// Every statement of the card, whatever its status.
		ans, err := must(hc, http.StatusOK, "GET", a.url+"/api/v1/credit-cards/soa?limit=100&cardId="+card, key, "")
		if err != nil {
			return false, err
		}
		var page struct{ Items []finance.SOA }
		if err := ans.data(&page); err != nil {
			return false, err
		}
		statements += len(page.Items)
		if len(page.Items) != 1 || page.Items[0].TransactionCount != 1 || page.Items[0].StatementBalance != 25000 ||
			page.Items[0].StatementDate != today {
			ok = false
			var got []string
			for _, s := range page.Items {
				got = append(got, fmt.Sprintf("%s %s (%d rows, %s)", s.ID, s.StatementDate, s.TransactionCount, s.StatementBalance))
			}
			problems = append(problems, fmt.Sprintf("card %d (statement date %s): %d statements: %s", round+1, today, len(page.Items), strings.Join(got, "; ")))
		}
	}
	detail := ""
	if len(problems) > 0 {
		detail = "; " + strings.Join(problems, "; ")
	}
	b.add(fmt.Sprintf("replicas (5) statements generated once: %d cards falling due, %d requests to each replica at once per card", len(keys), perReplica),
		"%d statements for %d cards, each billing its purchase once; %d of %d racing answers listed the one statement%s — %s",
		statements, len(keys), sawOne, answers, detail, verdict(ok))
	return ok, nil
}

// proveSettings proves, beyond the five, that a user's app
// settings (here the timezone, which sets the user's today) changed through
// A are what B answers a second later, although B had read them before:
// each replica keeps a user's settings in memory and drops them when it
// sees another process's commit, at most half a second later.
func (rs *replicaSet) proveSettings(b *benchRun, key string) (bool, error) {
	hc := newHTTPClient()
	a, bb := rs.replicas[0], rs.replicas[1]
	timezone := func(r *replica) (string, error) {
		ans, err := must(hc, http.StatusOK, "GET", r.url+"/api/v1/user-settings/app", key, "")
		var st struct{ Timezone string }
		if err == nil {
			err = ans.data(&st)
		}
		return st.Timezone, err
	}
	before, err := timezone(bb)
	if err != nil {
		return false, err
	}
	changed := "America/New_York"
	if before == changed {
		changed = "Europe/Berlin"
	}
	if _, err := must(hc, http.StatusOK, "PUT", a.url+"/api/v1/user-settings/app", key, fmt.Sprintf(`{"timezone":%q}`, changed)); err != nil {
		return false, err
	}
	time.Sleep(1100 * time.Millisecond) // the credential cache's bound for other processes, and then some
	onA, err := timezone(a)
	if err != nil {
		return false, err
	}
	onB, err := timezone(bb)
	if err != nil {
		return false, err
	}
	ok := onA == changed && onB == changed
	result := "seen — PASS"
	if !ok {
		result = "**STALE** — FAIL"
	}
	b.add("replicas (6) app settings changed on A, read on B 1.1 s later", "timezone %s → %s through A; A answers %s, B answers %s: %s",
		before, changed, onA, onB, result)
	return ok, nil
}

// (7) Stateless replicas: the replicas share the database and nothing else
// (each has a data directory of its own). A first-party access token signed
// by A (POST /auth/login) is accepted by B, as is the web session cookie A
// set at its sign-in page; a profile picture uploaded through A is served by
// B with A's bytes, type and ETag; and neither data directory holds a key
// file or a media folder.
func (rs *replicaSet) proveStateless(b *benchRun, key string) (bool, error) {
	hc := newHTTPClient()
	a, bb := rs.replicas[0], rs.replicas[1]
	var problems []string

	// The access token A signs, used on B.
	login, err := must(hc, http.StatusOK, "POST", a.url+"/api/v1/auth/login", "",
		fmt.Sprintf(`{"email":%q,"password":%q}`, payerEmail, benchPassword))
	if err != nil {
		return false, err
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := login.data(&tok); err != nil || tok.AccessToken == "" {
		return false, fmt.Errorf("login on A: no access token: %v %.200s", err, login.body)
	}
	onB, err := call(hc, "GET", bb.url+"/api/v1/user-settings/account", tok.AccessToken, "")
	if err != nil {
		return false, err
	}
	if onB.status != http.StatusOK {
		problems = append(problems, fmt.Sprintf("A's access token on B: %d", onB.status))
	}

	// The web session cookie A sets, on B's pages.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	page, err := browser.Get(a.url + "/login")
	if err != nil {
		return false, err
	}
	body, _ := io.ReadAll(page.Body)
	page.Body.Close()
	m := csrfRE.FindSubmatch(body)
	if m == nil {
		return false, fmt.Errorf("GET /login on A: %d, no form token", page.StatusCode)
	}
	signIn, err := browser.PostForm(a.url+"/login", url.Values{"email": {payerEmail}, "password": {benchPassword}, "csrf": {string(m[1])}})
	if err != nil {
		return false, err
	}
	signIn.Body.Close()
	if signIn.StatusCode != http.StatusSeeOther {
		return false, fmt.Errorf("sign-in on A: %d, want 303", signIn.StatusCode)
	}
	// The jar sends A's cookie to B: both are 127.0.0.1, and cookies ignore ports.
	settings, err := browser.Get(bb.url + "/settings/api-keys")
	if err != nil {
		return false, err
	}
	settings.Body.Close()
	if settings.StatusCode != http.StatusOK {
		problems = append(problems, fmt.Sprintf("A's session cookie on B's pages: %d", settings.StatusCode))
	}

	// A picture uploaded through A, served by B.
	picture := append([]byte("\x89PNG\r\n\x1a\n"), []byte(strings.Repeat("replica picture ", 256))...)
	var form bytes.Buffer
	w := multipart.NewWriter(&form)
	part, _ := w.CreateFormFile("file", "me.png")
	part.Write(picture)
	w.Close()
	up, err := call(hc, "PUT", a.url+"/api/v1/user-settings/account/profile-picture", key, form.String(),
		"Content-Type", w.FormDataContentType())
	if err != nil {
		return false, err
	}
	var acc struct {
		URL *string `json:"profile_picture_url"`
	}
	if up.status != http.StatusOK || up.data(&acc) != nil || acc.URL == nil {
		return false, fmt.Errorf("picture upload on A: %d %.200s", up.status, up.body)
	}
	u, err := url.Parse(*acc.URL)
	if err != nil {
		return false, err
	}
	fromA, err := call(hc, "GET", a.url+u.Path, "", "")
	if err != nil {
		return false, err
	}
	fromB, err := call(hc, "GET", bb.url+u.Path, "", "")
	if err != nil {
		return false, err
	}
	if fromB.status != http.StatusOK || !bytes.Equal(fromB.body, picture) || fromB.header.Get("Content-Type") != "image/png" {
		problems = append(problems, fmt.Sprintf("the picture on B: %d, %d bytes, %q", fromB.status, len(fromB.body), fromB.header.Get("Content-Type")))
	}
	for _, h := range []string{"ETag", "Last-Modified", "Cache-Control"} {
		if fromA.header.Get(h) != fromB.header.Get(h) {
			problems = append(problems, fmt.Sprintf("%s: A %q, B %q", h, fromA.header.Get(h), fromB.header.Get(h)))
		}
	}

	// Nothing of the shared state in the replicas' own directories.
	for _, r := range []*replica{a, bb} {
		for _, f := range []string{"jwt.key", "media"} {
			if _, err := os.Stat(filepath.Join(rs.replicaDataDir(r.name), f)); err == nil {
				problems = append(problems, fmt.Sprintf("%s's data directory holds %s", r.name, f))
			}
		}
	}
	ok := len(problems) == 0
	result := "the picture's bytes, type, ETag, Last-Modified and Cache-Control as A's; neither data directory holds " +
		"jwt.key or media/ — PASS"
	if !ok {
		result = "**FAIL**: " + strings.Join(problems, "; ")
	}
	b.add("replicas (7) stateless: signed by A, used on B; a picture uploaded through A, served by B",
		"data directories %s and %s of their own; A's access token on B: %d; A's session cookie on B's pages: %d; "+
			"%d-byte picture on B: %d %s; %s",
		filepath.Base(rs.replicaDataDir(a.name)), filepath.Base(rs.replicaDataDir(bb.name)), onB.status, settings.StatusCode,
		len(picture), fromB.status, fromB.header.Get("Content-Type"), result)
	return ok, nil
}
