package store

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

type webSessionRow struct {
	bun.BaseModel `bun:"table:web_sessions"`

	IDHash    []byte `bun:",pk"`
	UserID    string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// CreateWebSession stores a browser session and, in the same transaction,
// drops sessions that have expired, so the table needs no background job.
// The session is stored only if the user's credential epoch is still epoch:
// the check and the insert share the transaction, so a password change
// (which deletes the user's sessions in its own) is either before both or
// after both.
func (db *DB) CreateWebSession(ctx context.Context, ws auth.WebSession, epoch int64) error {
	row := webSessionRow{IDHash: ws.IDHash, UserID: ws.UserID, CreatedAt: ws.CreatedAt, ExpiresAt: ws.ExpiresAt}
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		current, err := tx.NewSelect().Model((*userRow)(nil)).
			Where("id = ? AND credential_epoch = ?", ws.UserID, epoch).Exists(ctx)
		if err != nil {
			return err
		}
		if !current {
			return finance.NotFound("user with that password")
		}
		if _, err := tx.NewDelete().Model((*webSessionRow)(nil)).Where("expires_at <= ?", ws.CreatedAt).Exec(ctx); err != nil {
			return err
		}
		_, err = tx.NewInsert().Model(&row).Exec(ctx)
		return err
	})
}

// WebSession finds a session by the hash of its id.
func (db *DB) WebSession(ctx context.Context, idHash []byte) (auth.WebSession, error) {
	var row webSessionRow
	if err := db.reader.NewSelect().Model(&row).Where("id_hash = ?", idHash).Scan(ctx); err != nil {
		return auth.WebSession{}, notFound(err, "session")
	}
	return auth.WebSession{IDHash: row.IDHash, UserID: row.UserID,
		CreatedAt: row.CreatedAt.UTC(), ExpiresAt: row.ExpiresAt.UTC()}, nil
}

// DeleteWebSession removes a session (sign-out).
func (db *DB) DeleteWebSession(ctx context.Context, idHash []byte) error {
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewDelete().Model((*webSessionRow)(nil)).Where("id_hash = ?", idHash).Exec(ctx)
		return err
	})
}

// CreateFirstUser inserts u and its app settings only while the users table is empty. The count
// and the insert share one IMMEDIATE transaction on the single writer, so of
// two concurrent first-run setups exactly one succeeds.
func (db *DB) CreateFirstUser(ctx context.Context, u finance.User, passwordHash string, st finance.AppSettings) error {
	row := userRow{ID: u.ID, Email: u.Email, Name: u.Name, PasswordHash: passwordHash, Plan: string(u.Plan),
		CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt}
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		n, err := tx.NewSelect().Model((*userRow)(nil)).Count(ctx)
		if err != nil {
			return err
		}
		if n > 0 {
			return finance.InvalidStatus("setup is already done: a user exists")
		}
		if err := insertUser(ctx, tx, &row); err != nil {
			return err
		}
		if _, err := tx.NewInsert().Model(&appSettingsRow{UserID: u.ID, AppSettings: st, UpdatedAt: u.CreatedAt}).Exec(ctx); err != nil {
			return err
		}
		return seedCategories(ctx, tx, u)
	})
}
