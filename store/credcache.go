package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/oauth"
)

// credentialCache keeps the credentials that authenticate requests (API keys
// by public id, OAuth tokens by hash, users with their plan and credential
// epoch) in memory, so an authenticated request runs no credential query in
// the common case. The profile of POST /expenses showed those lookups at 18%
// of its CPU: they ran on readers whose page cache the last write had reset.
//
// Freshness does not rest on a query per request. Every change to a
// credential moves the credentials generation row on, in the change's own
// transaction (triggers, see the credential_generation migration). Two
// things watch that row:
//
//   - This process's own writes: the writer reads the row before each commit
//     (one prepared read per transaction, not per request), and when a
//     transaction moved it, bumps an in-process counter once it committed
//     (processChanges). Every cached read first compares that counter, an
//     atomic load: a revocation, plan or password change made through this
//     process is seen by the very next request.
//   - Other processes (the CLI while the server runs): a check at most every
//     credentialRecheck runs PRAGMA data_version on a connection of its own
//     (it changes when another connection committed) and reads the row only
//     then. A key revoked by the CLI is therefore refused from at most
//     credentialRecheck after its commit on, well within a second.
//
// Callers still verify what they are handed (the key's secret in constant
// time against its hash, expiry against the clock); the cache only saves
// the reads.
type credentialCache struct {
	watch       *sql.DB // one query-only connection: data_version is per connection
	versionStmt *sql.Stmt
	genStmt     *sql.Stmt
	local       *processChanges // this process's credential changes
	// generationOnly: the check reads the generation every time, as there
	// is no data_version to tell that another connection committed
	// (Postgres); every check then counts as a commit seen.
	generationOnly bool
	// commitSeen is told when a check finds that some connection committed
	// since the last one (lookups.go drops what it keeps); nil for none.
	commitSeen func()

	mu          sync.Mutex
	checked     *sync.Cond // broadcast when a check ends
	checking    bool       // a check runs (outside mu)
	started     uint64     // checks started
	completed   uint64     // the sequence number of the last successful check
	known       bool       // dataVersion and generation have been read once
	dataVersion int64      // PRAGMA data_version at the last check
	generation  int64      // credential_generation.n at the last check
	localSeen   uint64     // local.credentials when the entries were last dropped
	epoch       uint64     // moves on each time the entries are dropped
	lastBegan   int64      // when the last successful check began (monoSince)
	keys        map[string]cachedEntry[auth.APIKey]
	users       map[string]cachedEntry[auth.Identity]
	tokens      map[string]cachedEntry[cachedToken]

	// queries counts the credential lookups that went to the database, for
	// tests that the cache is used.
	queries atomic.Int64
	// answered is when the last successful check started, on the monotonic
	// clock (nanoseconds since monoBase): the database answered a read
	// begun then. See ReadAnsweredSince.
	answered atomic.Int64
}

// credentialRecheck is how long the database's answer about other
// processes' credential changes stands: a request arriving later checks
// again first. It bounds how long a key revoked by the CLI keeps working in
// a running server (the README promises within a second); this process's
// own changes are seen at once, whatever it is.
const credentialRecheck = 500 * time.Millisecond

// monoBase is the origin of the cache's monotonic timestamps.
var monoBase = time.Now()

func monoSince(t time.Time) int64 { return int64(t.Sub(monoBase)) }

// processChanges counts the commits of this process that changed what the
// in-memory caches hold. Every handle on one database file in the process
// shares it (the server opens one; a test opens a second as the CLI would),
// so a change written through any of them is seen by the others' next read.
// Each cache compares the counter it last saw, one atomic load per read.
type processChanges struct {
	credentials atomic.Uint64 // commits that moved the credentials generation
	lookups     atomic.Uint64 // writes of what lookups.go keeps (cards, statements, card rows, categories)
}

// changesByPath holds the processChanges of each database file opened in
// this process, by absolute path.
var changesByPath sync.Map

func changesFor(path string) *processChanges {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	v, _ := changesByPath.LoadOrStore(path, new(processChanges))
	return v.(*processChanges)
}

type cachedToken struct {
	token oauth.Token
	grant oauth.Grant
}

type cachedEntry[T any] struct {
	value T
	at    time.Time
}

// Bounds on the cache. They keep memory small, not the data fresh: the
// generation does that. An entry older than credentialCacheAge is read again
// so that a credential no longer used leaves the cache.
const (
	credentialCacheSize = 10_000
	credentialCacheAge  = 5 * time.Minute
)

func newCredentialCache(path, common string, local *processChanges, ids *idSwitch) (*credentialCache, error) {
	w := openSQLite(path+"?"+common+"&_pragma=query_only(1)", ids)
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	return newCredentialCacheOn(w, local), nil
}

// newCredentialCacheOn is the cache checking through watch.
func newCredentialCacheOn(w *sql.DB, local *processChanges) *credentialCache {
	c := &credentialCache{watch: w, local: local}
	c.localSeen = local.credentials.Load()
	c.answered.Store(math.MinInt64) // nothing answered yet
	c.checked = sync.NewCond(&c.mu)
	return c
}

// prepare makes the check's statements, once (the table exists only after
// Migrate). Only the one running check calls it.
func (c *credentialCache) prepare(ctx context.Context) error {
	if c.genStmt != nil {
		return nil
	}
	if c.generationOnly {
		g, err := c.watch.PrepareContext(ctx, "SELECT n FROM credential_generation WHERE id = 1")
		c.genStmt = g
		return err
	}
	v, err := c.watch.PrepareContext(ctx, "PRAGMA data_version")
	if err != nil {
		return err
	}
	g, err := c.watch.PrepareContext(ctx, "SELECT n FROM credential_generation WHERE id = 1")
	if err != nil {
		return errors.Join(err, v.Close())
	}
	c.versionStmt, c.genStmt = v, g
	return nil
}

// fresh drops the cache when a credential changed and returns the epoch
// that entries read from now on belong to. A change this process committed
// is seen at once; the database is asked about other processes' changes
// only when its last answer is older than credentialRecheck.
//
// Concurrent callers share checks: a caller that needs one is answered by
// the first check that starts after it arrived (one already running may have
// read the database before the caller's request began, so it does not
// count). Under load one check thus serves many requests.
func (c *credentialCache) fresh(ctx context.Context) (uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.syncLocal()
	if c.known && monoSince(time.Now())-c.lastBegan < int64(credentialRecheck) {
		return c.epoch, nil
	}
	target := c.started + 1
	for c.completed < target {
		if c.checking {
			c.checked.Wait()
			continue
		}
		c.checking = true
		c.started++
		seq := c.started
		known, lastVersion := c.known, c.dataVersion
		began := monoSince(time.Now())
		c.mu.Unlock()
		v, g, changed, err := c.check(ctx, known, lastVersion)
		c.mu.Lock()
		c.checking = false
		c.checked.Broadcast()
		if err != nil {
			// Waiters run a check of their own, with their own context.
			return 0, fmt.Errorf("store: credential cache: %w", err)
		}
		c.completed = seq
		if changed && (!c.known || g != c.generation) {
			c.drop()
			c.generation = g
		}
		if changed && c.commitSeen != nil {
			c.commitSeen()
		}
		c.known, c.dataVersion, c.lastBegan = true, v, began
		c.answered.Store(began)
	}
	c.syncLocal()
	return c.epoch, nil
}

// syncLocal drops the entries when this process committed a credential
// change since they were read. Callers hold mu.
func (c *credentialCache) syncLocal() {
	if n := c.local.credentials.Load(); n != c.localSeen {
		c.localSeen = n
		c.drop()
	}
}

// drop empties the cache and moves its epoch on. Callers hold mu.
func (c *credentialCache) drop() {
	c.keys, c.users, c.tokens = nil, nil, nil
	c.epoch++
}

// check reads data_version and, when it moved since lastVersion (or
// nothing is known yet), the generation.
//
// The two statements take microseconds, so they run without the caller's
// cancellation: with a cancellable context the driver starts a goroutine
// per statement to watch it, which cost more than the statement itself on
// every authenticated request. A busy database still ends them (busy_timeout).
func (c *credentialCache) check(ctx context.Context, known bool, lastVersion int64) (version, generation int64, changed bool, err error) {
	ctx = context.WithoutCancel(ctx)
	if err := c.prepare(ctx); err != nil {
		return 0, 0, false, err
	}
	if c.generationOnly {
		version = lastVersion + 1
	} else if err := c.versionStmt.QueryRowContext(ctx).Scan(&version); err != nil {
		return 0, 0, false, err
	}
	if known && version == lastVersion {
		return version, 0, false, nil
	}
	if err := c.genStmt.QueryRowContext(ctx).Scan(&generation); err != nil {
		return 0, 0, false, err
	}
	return version, generation, true, nil
}

func cacheGet[T any](c *credentialCache, m map[string]cachedEntry[T], key string) (T, bool) {
	e, ok := m[key]
	if !ok || time.Since(e.at) > credentialCacheAge {
		var zero T
		return zero, false
	}
	return e.value, true
}

// cachePut stores v read under epoch, unless the cache has moved to another
// epoch meanwhile (v may then be stale). Callers hold mu.
func cachePut[T any](c *credentialCache, m *map[string]cachedEntry[T], epoch uint64, key string, v T) {
	c.syncLocal()
	if c.epoch != epoch {
		return
	}
	if *m == nil || len(*m) >= credentialCacheSize {
		*m = make(map[string]cachedEntry[T])
	}
	(*m)[key] = cachedEntry[T]{value: v, at: time.Now()}
}

func (c *credentialCache) key(publicID string) (auth.APIKey, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := cacheGet(c, c.keys, publicID)
	return cloneKey(k), ok
}

func (c *credentialCache) putKey(gen uint64, k auth.APIKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cachePut(c, &c.keys, gen, k.PublicID, cloneKey(k))
}

func (c *credentialCache) user(id string) (auth.Identity, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return cacheGet(c, c.users, id)
}

func (c *credentialCache) putUser(gen uint64, u auth.Identity) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cachePut(c, &c.users, gen, u.ID, u)
}

func (c *credentialCache) token(hash []byte) (oauth.Token, oauth.Grant, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := cacheGet(c, c.tokens, string(hash))
	return cloneToken(t.token), cloneGrant(t.grant), ok
}

func (c *credentialCache) putToken(gen uint64, t oauth.Token, g oauth.Grant) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cachePut(c, &c.tokens, gen, string(t.Hash), cachedToken{token: cloneToken(t), grant: cloneGrant(g)})
}

// The clones keep callers from changing cached values through shared slices.
func cloneKey(k auth.APIKey) auth.APIKey {
	k.SecretHash, k.Scopes = slices.Clone(k.SecretHash), slices.Clone(k.Scopes)
	return k
}

func cloneToken(t oauth.Token) oauth.Token {
	t.Hash, t.Scopes = slices.Clone(t.Hash), slices.Clone(t.Scopes)
	return t
}

func cloneGrant(g oauth.Grant) oauth.Grant {
	g.Scopes = slices.Clone(g.Scopes)
	return g
}

func (c *credentialCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	if c.versionStmt != nil {
		errs = append(errs, c.versionStmt.Close())
	}
	if c.genStmt != nil {
		errs = append(errs, c.genStmt.Close())
	}
	c.versionStmt, c.genStmt = nil, nil
	return errors.Join(append(errs, c.watch.Close())...)
}

// writeWatch is the writer's side of the in-memory caches: it tells, for
// each write transaction, whether the transaction changed what they hold,
// and bumps this process's counters once it ended.
//
// Credentials: the triggers move the credentials generation in the
// changing transaction itself, so reading the row before the commit (one
// prepared read per transaction, on the writer's own cache) finds every
// credential change, whatever code path wrote it. The lookups (lookups.go)
// are marked by the writes that change them.
type writeWatch struct {
	local   *processChanges
	lookups *lookupCache
	genStmt *sql.Stmt // prepared on the writer, outside any transaction
	last    int64     // the generation the last transaction left
	known   bool      // last was read
	moved   bool      // the transaction running moved the generation (or it could not be read)
	pg      pgWatchState
}

// prepare makes the generation read on the writer, once; the committer calls
// it before it begins a transaction, while the writer's one connection is
// free. A failure (no schema yet) leaves every transaction counted as a
// credential change until it succeeds.
func (w *writeWatch) prepare(writer *sql.DB) {
	if w.genStmt != nil {
		return
	}
	if st, err := writer.Prepare("SELECT n FROM credential_generation WHERE id = 1"); err == nil {
		w.genStmt = st
	}
}

// beforeCommit reads the generation in tx, just before its commit.
func (w *writeWatch) beforeCommit(ctx context.Context, tx *sql.Tx) {
	if w.genStmt == nil {
		w.moved = true
		return
	}
	var n int64
	if err := tx.StmtContext(ctx, w.genStmt).QueryRowContext(ctx).Scan(&n); err != nil {
		w.moved, w.known = true, false
		return
	}
	if !w.known || n != w.last {
		w.moved = true
	}
	w.last, w.known = n, true
}

// ended bumps the counters of what the transaction that just ended
// changed. A rolled-back transaction may bump them too: the caches then read
// again what had not changed, which costs a read and is never wrong.
func (w *writeWatch) ended() {
	if w.moved {
		w.moved = false
		w.local.credentials.Add(1)
		// A user deleted or disabled leaves nothing of theirs worth keeping.
		w.local.lookups.Add(1)
	}
	w.lookups.ended()
}

func (w *writeWatch) close() error {
	if w.genStmt == nil {
		return nil
	}
	return w.genStmt.Close()
}
