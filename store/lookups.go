package store

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/finance-app/finance/finance"
)

// lookupCache keeps three answers that most requests need and that rarely
// change, so that a request reads none of them from the database:
//
//   - each user's statement cursors (StatementCursors), which the check for
//     due statements reads on every request under the card, expense, bill,
//     dashboard and report routes (3% of the CPU of POST /expenses);
//   - categories by kind and name (ActiveCategoryByName), which every
//     expense write resolves (3.6%);
//   - each user's app settings (AppSettings): their timezone decides the
//     user's today on every request that dates anything.
//
// What it holds is dropped, for every user at once (a household is a few
// people), when:
//
//   - a write of this process changes it: the store's writers of cards,
//     card rows, statements, categories and settings call changed, in the writing
//     transaction, and the committer bumps the counter again once that
//     transaction ended (see ended), so a read that ran in between cannot
//     put back what the commit replaced;
//   - a credential changed (a user deleted, say), through writeWatch;
//   - the credentials' freshness check (credcache.go, at most every
//     credentialRecheck) finds that any connection committed since its last
//     look: another process's writes (the CLI, a restore) are seen from then
//     on, and a writer that forgot to call changed is covered within the
//     same bound.
//
// Entries are put with the epoch read before the database was: an entry
// read before a drop is refused (the same rule as credentialCache), and so
// is one read while a write that changes them is uncommitted.
type lookupCache struct {
	local   *processChanges
	pending atomic.Bool // a write of the running transaction called changed

	mu         sync.Mutex
	seen       uint64 // local.lookups when the entries were last dropped
	epoch      uint64
	cursors    map[string][]finance.StatementCursor
	categories map[categoryKey]finance.Category
	settings   map[string]finance.AppSettings
}

type categoryKey struct {
	userID string
	kind   finance.CategoryKind
	name   string // nameKey
}

// lookupCacheSize bounds each map; a full map is emptied, not evicted from.
const lookupCacheSize = 10_000

func newLookupCache(local *processChanges) *lookupCache {
	return &lookupCache{local: local, seen: local.lookups.Load()}
}

// changed is called by a write, in its transaction, that changes what the
// cache holds.
func (c *lookupCache) changed() {
	c.pending.Store(true)
	c.local.lookups.Add(1)
}

// ended is called by the committer when a write transaction ended.
func (c *lookupCache) ended() {
	if c.pending.Swap(false) {
		c.local.lookups.Add(1)
	}
}

// drop empties the cache; commitSeen of the credentials' check.
func (c *lookupCache) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLocked()
}

func (c *lookupCache) dropLocked() {
	c.cursors, c.categories, c.settings = nil, nil, nil
	c.epoch++
}

// sync drops the entries when this process changed them since. Callers hold mu.
func (c *lookupCache) sync() {
	if n := c.local.lookups.Load(); n != c.seen {
		c.seen = n
		c.dropLocked()
	}
}

// lookup returns the entry of k in the map of c that m names, and the
// epoch to put one under when there is none.
func lookup[K comparable, V any](c *lookupCache, m func(*lookupCache) *map[K]V, k K) (V, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sync()
	v, ok := (*m(c))[k]
	return v, c.epoch, ok
}

// put keeps v under k in the map of c that m names, unless the entries were
// dropped since epoch or a write that changes them is running.
func put[K comparable, V any](c *lookupCache, m func(*lookupCache) *map[K]V, epoch uint64, k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sync()
	if c.epoch != epoch || c.pending.Load() {
		return
	}
	if *m(c) == nil || len(*m(c)) >= lookupCacheSize {
		*m(c) = make(map[K]V)
	}
	(*m(c))[k] = v
}

func cursorsOf(c *lookupCache) *map[string][]finance.StatementCursor { return &c.cursors }
func categoriesOf(c *lookupCache) *map[categoryKey]finance.Category  { return &c.categories }
func settingsOf(c *lookupCache) *map[string]finance.AppSettings      { return &c.settings }

// cachedRead answers read's value of k from the map of the lookups that m
// names, and reads it (keeping it, unless read failed: a name that matches
// nothing is not kept) when they do not hold it. It reads the database
// directly when the freshness check could not run.
func cachedRead[K comparable, V any](ctx context.Context, l ledger, m func(*lookupCache) *map[K]V, k K,
	read func() (V, error)) (V, error) {
	if !l.lookupsFresh(ctx) {
		return read()
	}
	lk := l.owner.lookups
	v, epoch, ok := lookup(lk, m, k)
	if ok {
		return v, nil
	}
	v, err := read()
	if err == nil {
		put(lk, m, epoch, k, v)
	}
	return v, err
}

// lookupsFresh runs the credentials' freshness check, which drops the
// lookups when another connection committed since its last look; false
// when the database did not answer (then the caller reads it directly).
func (l ledger) lookupsFresh(ctx context.Context) bool {
	if l.owner == nil {
		return false
	}
	_, err := l.owner.creds.fresh(ctx)
	return err == nil
}

// changed tells the lookups that this write changes what they hold.
func (l ledger) changed() {
	if l.owner != nil {
		l.owner.lookups.changed()
	}
}

// StatementCursors returns the user's statement cursors. On the read pool
// (the check for due statements of every request under the card, expense,
// bill, dashboard and report routes) it answers from the lookups once they
// hold the user's; in a write transaction it reads the transaction's own
// state, and since statement generation reads it there and bills rows, such
// a transaction drops the cached cursors when it ends.
func (l ledger) StatementCursors(ctx context.Context, userID string) ([]finance.StatementCursor, error) {
	if l.reads == nil {
		l.changed()
		return l.readStatementCursors(ctx, userID)
	}
	// The kept slice never leaves the cache: the caller gets a copy.
	v, err := cachedRead(ctx, l, cursorsOf, userID, func() ([]finance.StatementCursor, error) {
		return l.readStatementCursors(ctx, userID)
	})
	return slices.Clone(v), err
}

// cachedCategory is ActiveCategoryByName, answered from the lookups when
// they hold the name. A name that matches nothing is not kept: a category
// created under it must be found at once.
func (l ledger) cachedCategory(ctx context.Context, userID string, kind finance.CategoryKind, name string) (finance.Category, error) {
	return cachedRead(ctx, l, categoriesOf, categoryKey{userID: userID, kind: kind, name: nameKey(name)},
		func() (finance.Category, error) { return l.readActiveCategoryByName(ctx, userID, kind, name) })
}
