package store

import (
	"context"
	"testing"
	"time"
)

// Warm opens what the first request would otherwise open: a reader, and the
// credential check's connection with its statements, whose check then
// stands as an answered read.
func TestWarmOpensTheFirstRequestsConnections(t *testing.T) {
	ctx := context.Background()
	db, _ := openPrepared(t)
	before := time.Now()
	db.Warm(ctx)
	if n := db.reader.DB.Stats().OpenConnections; n != 1 {
		t.Errorf("readers open after Warm: %d, want 1", n)
	}
	if n := db.creds.watch.Stats().OpenConnections; n != 1 {
		t.Errorf("credential check connections open after Warm: %d, want 1", n)
	}
	if db.creds.genStmt == nil || db.creds.versionStmt == nil {
		t.Error("the credential check's statements are not prepared after Warm")
	}
	if !db.ReadAnsweredSince(before) {
		t.Error("Warm's check is not an answered read")
	}
}

// Each reader keeps a page cache of readerCacheKiB, not SQLite's default.
func TestReadersKeepASmallPageCache(t *testing.T) {
	db, _ := openPrepared(t)
	var size int
	if err := db.reader.QueryRowContext(context.Background(), "PRAGMA cache_size").Scan(&size); err != nil {
		t.Fatal(err)
	}
	if size != -readerCacheKiB {
		t.Errorf("a reader's cache_size = %d, want %d (KiB)", size, -readerCacheKiB)
	}
}
