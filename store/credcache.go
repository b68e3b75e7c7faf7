package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/finance-app/finance/server/auth"
	"github.com/finance-app/finance/server/oauth"
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
	known       bool  // dataVersion and generation have been read once
	dataVersion int64 // PRAGMA data_version at the last check
	generation  int64 // credential_generation.n at the last check
	keys        map[string]cachedEntry[auth.APIKey]
	users       map[string]cachedEntry[auth.Identity]
	tokens      map[string]cachedEntry[cachedToken]

	// queries counts the credential lookups that went to the database, for
	// tests that the cache is used.
	queries atomic.Int64
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

func newCredentialCache(path, common string) (*credentialCache, error) {
	w, err := sql.Open("sqlite", path+"?"+common+"&_pragma=query_only(1)")
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	return &credentialCache{watch: w}, nil
}

// prepare makes the check's statements, once (the table exists only after Migrate).
func (c *credentialCache) prepareLocked(ctx context.Context) error {
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
func (c *credentialCache) fresh(ctx context.Context) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.prepareLocked(ctx); err != nil {
		return 0, fmt.Errorf("store: credential cache: %w", err)
	}
	var v int64
	if err := c.versionStmt.QueryRowContext(ctx).Scan(&v); err != nil {
		return 0, fmt.Errorf("store: credential cache: %w", err)
	}
	if c.known && v == c.dataVersion {
		return c.generation, nil
	}
	var g int64
	if err := c.genStmt.QueryRowContext(ctx).Scan(&g); err != nil {
		return 0, fmt.Errorf("store: credential cache: %w", err)
	}
	if !c.known || g != c.generation {
		c.keys, c.users, c.tokens = nil, nil, nil
	}
	c.known, c.dataVersion, c.generation = true, v, g
	return g, nil
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
