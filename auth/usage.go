package auth

import (
	"context"
	"sync"
	"time"
)

// UsageRecorder batches "last used" times (of API keys, of OAuth grants) in
// memory, so that authenticating a request never waits for a write; Flush
// writes the batch in one call. last_used_at is therefore at most one flush
// interval stale.
type UsageRecorder struct {
	write   func(ctx context.Context, lastUsed map[string]time.Time) error
	mu      sync.Mutex
	pending map[string]time.Time
}

// NewUsageRecorder returns a recorder whose Flush hands batches to write.
func NewUsageRecorder(write func(ctx context.Context, lastUsed map[string]time.Time) error) *UsageRecorder {
	return &UsageRecorder{write: write, pending: map[string]time.Time{}}
}

// Record remembers that id was used at. Concurrent requests may record out
// of order; the latest time is kept.
func (u *UsageRecorder) Record(id string, at time.Time) {
	u.mu.Lock()
	u.keepLatest(id, at)
	u.mu.Unlock()
}

func (u *UsageRecorder) keepLatest(id string, at time.Time) {
	if cur, ok := u.pending[id]; !ok || cur.Before(at) {
		u.pending[id] = at
	}
}

// Flush writes the pending times. On failure the batch is put back (newer
// records win), so a transient error loses nothing.
func (u *UsageRecorder) Flush(ctx context.Context) error {
	u.mu.Lock()
	batch := u.pending
	u.pending = map[string]time.Time{}
	u.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	if err := u.write(ctx, batch); err != nil {
		u.mu.Lock()
		for id, t := range batch {
			u.keepLatest(id, t)
		}
		u.mu.Unlock()
		return err
	}
	return nil
}
