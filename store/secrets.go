package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/uptrace/bun"
)

// secretRow is one of the server's own secrets (server_secrets).
type secretRow struct {
	bun.BaseModel `bun:"table:server_secrets"`
	Name          string `bun:",pk"`
	Value         []byte
	CreatedAt     time.Time
}

// signingKeyName is the server_secrets row of the key that signs
// first-party access tokens.
const signingKeyName = "jwt_signing_key"

// minSigningKeyLen is the shortest signing key accepted: 256 bits.
const minSigningKeyLen = 32

// SigningKey returns the key that signs first-party access tokens, the
// same for every process on the database. The first process to ask makes
// it: the key of legacyFile when that file exists (the jwt.key an earlier
// version kept in the data directory, so that its sign-ins stay valid),
// otherwise 32 random bytes. Two processes that start together both insert
// with ON CONFLICT DO NOTHING and then read back the one row that won. The
// file is only read, never changed or removed.
func (db *DB) SigningKey(ctx context.Context, legacyFile string) ([]byte, error) {
	key, err := db.readSecret(ctx, db.reader, signingKeyName)
	if err == nil || !errors.Is(err, sql.ErrNoRows) {
		return key, err
	}
	candidate, err := legacySigningKey(legacyFile)
	if err != nil {
		return nil, err
	}
	if candidate == nil {
		candidate = make([]byte, minSigningKeyLen)
		_, _ = rand.Read(candidate)
	}
	err = db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewInsert().Model(&secretRow{Name: signingKeyName, Value: candidate, CreatedAt: time.Now().UTC()}).
			On("CONFLICT (name) DO NOTHING").Exec(ctx)
		if err != nil {
			return err
		}
		key, err = db.readSecret(ctx, tx, signingKeyName)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("the signing key: %w", err)
	}
	return key, nil
}

// legacySigningKey is the key of an earlier version's key file; nil when
// there is no such file.
func legacySigningKey(path string) ([]byte, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if len(b) < minSigningKeyLen {
		return nil, fmt.Errorf("%s is shorter than %d bytes; delete it to generate a new key", path, minSigningKeyLen)
	}
	return b, nil
}

func (db *DB) readSecret(ctx context.Context, q bun.IDB, name string) ([]byte, error) {
	var row secretRow
	if err := q.NewSelect().Model(&row).Where("name = ?", name).Scan(ctx); err != nil {
		return nil, err
	}
	if len(row.Value) < minSigningKeyLen {
		return nil, fmt.Errorf("the database's %s is shorter than %d bytes", name, minSigningKeyLen)
	}
	return row.Value, nil
}
