package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
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
// Freshness does not rest on a time limit. Every change to a credential
// moves the credentials generation row on, in the change's own transaction
// (triggers, see the credential_generation migration), and every cached read
// first checks that counter: a revocation, plan change or password change
// committed by this process or any other (the CLI) before a request starts
// is seen by that request. The check is cheap: PRAGMA data_version on a
// connection of its own tells whether anything at all was committed since
// the last check, and only then is the counter read.
//
// Callers still verify what they are handed (the key's secret in constant
// time against its hash, expiry against the clock); the cache only saves
// the reads.
type credentialCache struct {
	watch       *sql.DB // one query-only connection: data_version is per connection
	versionStmt *sql.Stmt
	genStmt     *sql.Stmt

	mu          sync.Mutex
	checked     *sync.Cond // broadcast when a check ends
	checking    bool       // a check runs (outside mu)
	started     uint64     // checks started
	completed   uint64     // the sequence number of the last successful check
	known       bool       // dataVersion and generation have been read once
	dataVersion int64      // PRAGMA data_version at the last check
	generation  int64      // credential_generation.n at the last check
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

// monoBase is the origin of the cache's monotonic timestamps.
var monoBase = time.Now()

func monoSince(t time.Time) int64 { return int64(t.Sub(monoBase)) }

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

func newCredentialCache(path, common string) (*credentialCache, error) {
	w, err := sql.Open("sqlite", path+"?"+common+"&_pragma=query_only(1)")
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	c := &credentialCache{watch: w}
	c.answered.Store(math.MinInt64) // nothing answered yet
	c.checked = sync.NewCond(&c.mu)
	return c, nil
}

// prepare makes the check's statements, once (the table exists only after
// Migrate). Only the one running check calls it.
func (c *credentialCache) prepare(ctx context.Context) error {
	if c.genStmt != nil {
		return nil
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

// fresh drops the cache when a credential changed since the last check and
// returns the generation that entries read from now on belong to.
//
// Concurrent callers share checks: a caller is answered by the first check
// that starts after it arrived (one already running may have read the
// database before the caller's request began, so it does not count). Under
// load one check thus serves many requests, and each still sees every
// change committed before it called.
func (c *credentialCache) fresh(ctx context.Context) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
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
			c.keys, c.users, c.tokens = nil, nil, nil
			c.generation = g
		}
		c.known, c.dataVersion = true, v
		c.answered.Store(began)
	}
	return c.generation, nil
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
	if err := c.versionStmt.QueryRowContext(ctx).Scan(&version); err != nil {
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

// cachePut stores v read under generation gen, unless the cache has moved
// to another generation meanwhile (v may then be stale).
func cachePut[T any](c *credentialCache, m *map[string]cachedEntry[T], gen int64, key string, v T) {
	if c.generation != gen {
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

func (c *credentialCache) putKey(gen int64, k auth.APIKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cachePut(c, &c.keys, gen, k.PublicID, cloneKey(k))
}

func (c *credentialCache) user(id string) (auth.Identity, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return cacheGet(c, c.users, id)
}

func (c *credentialCache) putUser(gen int64, u auth.Identity) {
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

func (c *credentialCache) putToken(gen int64, t oauth.Token, g oauth.Grant) {
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
	if c.genStmt != nil {
		errs = append(errs, c.versionStmt.Close(), c.genStmt.Close())
		c.versionStmt, c.genStmt = nil, nil
	}
	return errors.Join(append(errs, c.watch.Close())...)
}
