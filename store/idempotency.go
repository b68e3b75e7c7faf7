package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Idempotent writes (server/idempotency.go) need the response to a write
// stored in the same transaction as the write, so that a crash can never
// keep one without the other. The handler's writes go through the domain's
// Store port, which opens a transaction per use case; a write scope lets the
// server wrap them all in one transaction it commits itself.

// writeScopeKey carries a *writeScope in a context.
type writeScopeKey struct{}

// writeScope is an open write transaction that the writes made under its
// context join.
type writeScope struct {
	db *DB
	tx bun.Tx
	// failed is the first error of a write that joined the scope. The scope
	// then refuses to commit, even if that write's caller carried on: on its
	// own transaction the failed write would have left nothing behind.
	failed error
}

// scope returns the write scope of db that ctx carries, if any.
func (db *DB) scope(ctx context.Context) *writeScope {
	sc, _ := ctx.Value(writeScopeKey{}).(*writeScope)
	if sc == nil || sc.db != db {
		return nil
	}
	return sc
}

// WriteScope runs fn in one IMMEDIATE transaction on the writer, committed
// only when fn returns nil and rolled back otherwise (a panic included).
// Every write of db made under the context fn receives (Write, and every
// other method that writes) joins that transaction instead of opening its
// own: it runs on the same transaction without a nested BEGIN, and its error
// is returned to its caller, which returns it up to fn, which rolls the
// whole scope back.
//
// The writer is one connection, so the scope holds it until fn returns:
// other writes wait, as they wait for any transaction. Reads on the read
// pool go on, but they do not see the scope's writes until it commits.
// Scopes do not nest.
//
// On Postgres the scope is a SERIALIZABLE transaction beside others; when
// Postgres refuses it for a conflict with a concurrent one, the whole scope
// runs again (runPlain), so fn must be safe to run more than once: what it
// keeps outside the transaction, it starts afresh on each run.
func (db *DB) WriteScope(ctx context.Context, fn func(ctx context.Context) error) error {
	if db.scope(ctx) != nil {
		return errors.New("store: write scopes do not nest")
	}
	// Preparing needs the writer's only connection, which the scope is about
	// to hold: prepare the hot statements first, as Write does.
	if err := db.hot.prepare(ctx, db.writer.DB); err != nil {
		return err
	}
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		sc := &writeScope{db: db, tx: tx}
		err := fn(context.WithValue(ctx, writeScopeKey{}, sc))
		if retryable(sc.failed) {
			// Postgres refused a write of the scope for a conflict: fn
			// answered with what followed from it, but the scope runs again.
			return sc.failed
		}
		if err != nil {
			return err
		}
		if sc.failed != nil {
			return fmt.Errorf("store: a write in this scope failed, so none of it commits: %w", sc.failed)
		}
		return nil
	})
}

// idempotencyTTL is how long a stored response is replayed.
const idempotencyTTL = 24 * time.Hour

// idempotentResponseSQL finds a stored response by its primary key.
const idempotentResponseSQL = `SELECT fingerprint, status, content_type, body FROM idempotency_keys
	WHERE user_id = ? AND idempotency_key = ? AND created_at > ?`

// IdempotentResponse returns the response stored for userID's key within
// the 24 hours before now, or finance.ErrNotFound. It reads in the write
// scope that ctx carries, whose writer sees every commit; otherwise on the
// read pool, where a replay does not wait for the writer. Either way it is
// one lookup by primary key.
func (db *DB) IdempotentResponse(ctx context.Context, userID, key string, now time.Time) (
	fingerprint []byte, status int, contentType string, body []byte, err error,
) {
	args := []any{userID, key, now.Add(-idempotencyTTL)}
	var row interface{ Scan(...any) error }
	if sc := db.scope(ctx); sc != nil {
		row = sc.tx.Tx.QueryRowContext(ctx, db.dialect.bind(idempotentResponseSQL), args...)
	} else {
		st, err := db.readStmt(ctx, idempotentResponseSQL)
		if err != nil {
			return nil, 0, "", nil, err
		}
		row = st.QueryRowContext(ctx, args...)
	}
	if err := row.Scan(&fingerprint, &status, &contentType, &body); err != nil {
		return nil, 0, "", nil, notFound(err, "idempotency key")
	}
	return fingerprint, status, contentType, body, nil
}

// SaveIdempotentResponse stores the response to userID's request with key,
// made at now. Called in a write scope, it commits or rolls back with the
// write it answers. It first deletes the user's responses that have
// expired, by index, so the table needs no background job; an expired row
// of the same key goes with them.
func (db *DB) SaveIdempotentResponse(ctx context.Context, userID, key string, fingerprint []byte,
	status int, contentType string, body []byte, now time.Time,
) error {
	if body == nil {
		body = []byte{} // the column is NOT NULL; nil would bind as NULL
	}
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.Tx.ExecContext(ctx, db.dialect.bind(`DELETE FROM idempotency_keys WHERE user_id = ? AND created_at <= ?`),
			userID, now.Add(-idempotencyTTL)); err != nil {
			return err
		}
		_, err := tx.Tx.ExecContext(ctx, db.dialect.bind(`INSERT INTO idempotency_keys
			(user_id, idempotency_key, fingerprint, status, content_type, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`),
			userID, key, fingerprint, status, contentType, body, now)
		return err
	})
}
