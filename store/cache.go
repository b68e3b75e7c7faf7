package store

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// Page caches. SQLite keeps the pages it read or changed in a cache per
// connection, and its memory stays with the process until the connection
// closes. The writer's cache used to be 64 MiB at all times, for the rare
// transaction that rewrites tens of thousands of rows (a statement backlog),
// and a server that had done that kept the memory for good. The writer now
// keeps a few MiB and takes the large cache only for such work
// (largeCache), then gives it back. Each reader keeps readerCacheKiB: a
// read is a list page or a summary over indexes whose pages the system's
// file cache holds anyway, and the pool holds up to 2 readers per CPU.
const (
	// writerCacheKiB is the writer's page cache outside large work.
	writerCacheKiB = 4 << 10
	// largeCacheKiB is the writer's page cache while it generates a
	// statement backlog: spilling pages to temporary files and reading them
	// back costs more than the work itself.
	largeCacheKiB = 64 << 10
	// spillPages is how many pages a transaction may change before SQLite
	// writes some of them to the log ahead of its commit. It is larger than
	// the cache, so a large write (an import of thousands of rows) never
	// spills: its changed pages stay in memory, beyond the cache's size,
	// until it commits, and are freed after, when the cache is over its size.
	spillPages = largeCacheKiB / 4
	// readerCacheKiB is each reader's page cache, half SQLite's default.
	readerCacheKiB = 1 << 10
)

// readerCachePragmas is the cache setting in the readers' connection string.
var readerCachePragmas = fmt.Sprintf("&_pragma=cache_size(%d)", -readerCacheKiB)

// writerCachePragmas are the cache settings in the writer's connection string.
var writerCachePragmas = fmt.Sprintf("&_pragma=cache_size(%d)&_pragma=cache_spill(%d)", -writerCacheKiB, spillPages)

// largeCache gives the writer connection conn (a write transaction) the
// large page cache, and returns the function that sets it back to its
// normal size, to call when the large work is done, in the same
// transaction (one line at the work's start: defer largeCache(ctx, conn)()).
// Pages beyond the normal size that the work changed stay until the
// transaction ends; the rest are freed when the cache is set back. The size
// only bears on speed and memory, so a failure to set it is left to the
// statements that follow, which fail the same way.
func largeCache(ctx context.Context, conn bun.IConn) (restore func()) {
	if db, ok := conn.(bun.IDB); ok && dialectOf(db) == postgresDialect {
		return func() {} // Postgres's shared buffers are the server's to size
	}
	_, _ = conn.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = %d", -largeCacheKiB))
	return func() { _, _ = conn.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = %d", -writerCacheKiB)) }
}
