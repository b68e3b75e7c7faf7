package store

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// ProbeWrite commits one small write on the writer, durably, like any
// other (synchronous=FULL). It fails when the database can be read but not
// written: a full disk, a read-only file or directory, a lock held too long.
func (db *DB) ProbeWrite(ctx context.Context) error {
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewRaw("INSERT INTO health_probe (id, checked_at) VALUES (1, ?) "+
			"ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at", time.Now().UTC()).Exec(ctx)
		return err
	})
}
