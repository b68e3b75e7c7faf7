package store

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/finance-app/finance/finance"
)

// lookupCache keeps two answers that most requests need and that rarely
// change, so that a request reads neither from the database:
//
//   - each user's statement cursors (StatementCursors), which the check for
//     due statements reads on every request under the card, expense, bill,
//     dashboard and report routes (3% of the CPU of POST /expenses);
//   - categories by kind and name (ActiveCategoryByName), which every
//     expense write resolves (3.6%).
//
// What it holds is dropped, for every user at once (a household is a few
// people), when:
//
//   - a write of this process changes it: the store's writers of cards,
//     card rows, statements and categories call changed, in the writing
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
	c.cursors, c.categories = nil, nil
	c.epoch++
}

// sync drops the entries when this process changed them since. Callers hold mu.
func (c *lookupCache) sync() {
	if n := c.local.lookups.Load(); n != c.seen {
		c.seen = n
		c.dropLocked()
	}
}

// statementCursors returns the user's cached cursors and the epoch to put
// them under when there are none.
func (c *lookupCache) statementCursors(userID string) ([]finance.StatementCursor, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sync()
	v, ok := c.cursors[userID]
	return v, c.epoch, ok
}

func (c *lookupCache) putStatementCursors(epoch uint64, userID string, v []finance.StatementCursor) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sync()
	if c.epoch != epoch || c.pending.Load() {
		return
	}
	if c.cursors == nil || len(c.cursors) >= lookupCacheSize {
		c.cursors = make(map[string][]finance.StatementCursor)
	}
	c.cursors[userID] = v
}

func (c *lookupCache) category(k categoryKey) (finance.Category, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sync()
	v, ok := c.categories[k]
	return v, c.epoch, ok
}

func (c *lookupCache) putCategory(epoch uint64, k categoryKey, v finance.Category) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sync()
	if c.epoch != epoch || c.pending.Load() {
		return
	}
	if c.categories == nil || len(c.categories) >= lookupCacheSize {
		c.categories = make(map[categoryKey]finance.Category)
	}
	c.categories[k] = v
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
	if !l.lookupsFresh(ctx) {
		return l.readStatementCursors(ctx, userID)
	}
	lk := l.owner.lookups
	v, epoch, ok := lk.statementCursors(userID)
	if ok {
		return slices.Clone(v), nil
	}
	v, err := l.readStatementCursors(ctx, userID)
	if err != nil {
		return nil, err
	}
	lk.putStatementCursors(epoch, userID, slices.Clone(v))
	return v, nil
}

// cachedCategory is ActiveCategoryByName, answered from the lookups when
// they hold the name. A name that matches nothing is not kept: a category
// created under it must be found at once.
func (l ledger) cachedCategory(ctx context.Context, userID string, kind finance.CategoryKind, name string) (finance.Category, error) {
	if !l.lookupsFresh(ctx) {
		return l.readActiveCategoryByName(ctx, userID, kind, name)
	}
	lk := l.owner.lookups
	k := categoryKey{userID: userID, kind: kind, name: nameKey(name)}
	c, epoch, ok := lk.category(k)
	if ok {
		return c, nil
	}
	c, err := l.readActiveCategoryByName(ctx, userID, kind, name)
	if err != nil {
		return c, err
	}
	lk.putCategory(epoch, k, c)
	return c, nil
}
