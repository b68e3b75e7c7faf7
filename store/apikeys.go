package store

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/auth"
)

type apiKeyRow struct {
	bun.BaseModel `bun:"table:api_keys"`

	ID         string `bun:",pk"`
	UserID     string
	Name       string
	PublicID   string
	SecretHash []byte
	Scopes     string
	CreatedAt  time.Time
	ExpiresAt  *time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

func (r apiKeyRow) key() auth.APIKey {
	var scopes []auth.Scope
	for _, s := range strings.Fields(r.Scopes) {
		scopes = append(scopes, auth.Scope(s))
	}
	return auth.APIKey{ID: r.ID, UserID: r.UserID, Name: r.Name, PublicID: r.PublicID, SecretHash: r.SecretHash,
		Scopes: scopes, CreatedAt: r.CreatedAt.UTC(), ExpiresAt: utcPtr(r.ExpiresAt),
		LastUsedAt: utcPtr(r.LastUsedAt), RevokedAt: utcPtr(r.RevokedAt)}
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// CreateAPIKey inserts a key.
func (db *DB) CreateAPIKey(ctx context.Context, k auth.APIKey) error {
	scopes := make([]string, len(k.Scopes))
	for i, s := range k.Scopes {
		scopes[i] = string(s)
	}
	row := apiKeyRow{ID: k.ID, UserID: k.UserID, Name: k.Name, PublicID: k.PublicID, SecretHash: k.SecretHash,
		Scopes: strings.Join(scopes, " "), CreatedAt: k.CreatedAt, ExpiresAt: k.ExpiresAt}
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewInsert().Model(&row).Exec(ctx)
		return err
	})
}

func (db *DB) apiKeyWhere(ctx context.Context, col string, val any) (auth.APIKey, error) {
	var row apiKeyRow
	if err := db.reader.NewSelect().Model(&row).Where("? = ?", bun.Ident(col), val).Scan(ctx); err != nil {
		return auth.APIKey{}, notFound(err, "API key")
	}
	return row.key(), nil
}

const apiKeyByPublicIDSQL = `SELECT id, user_id, name, public_id, secret_hash, scopes, created_at, expires_at,
	last_used_at, revoked_at FROM api_keys WHERE public_id = ?`

// APIKeyByPublicID finds a key by the public part of its string. It runs on
// every request made with a key, so it answers from the credential cache
// when it can and otherwise uses a prepared statement.
func (db *DB) APIKeyByPublicID(ctx context.Context, publicID string) (auth.APIKey, error) {
	gen, err := db.creds.fresh(ctx)
	if err != nil {
		return auth.APIKey{}, err
	}
	return db.apiKeyByPublicID(ctx, gen, publicID)
}

// APIKeyWithOwner returns the key with publicID and the user it belongs to,
// both under one check of the credential cache (auth's keyOwnerStore).
func (db *DB) APIKeyWithOwner(ctx context.Context, publicID string) (auth.APIKey, auth.Identity, error) {
	gen, err := db.creds.fresh(ctx)
	if err != nil {
		return auth.APIKey{}, auth.Identity{}, err
	}
	k, err := db.apiKeyByPublicID(ctx, gen, publicID)
	if err != nil {
		return auth.APIKey{}, auth.Identity{}, err
	}
	u, err := db.userIdentity(ctx, gen, k.UserID)
	return k, u, err
}

// apiKeyByPublicID is APIKeyByPublicID once the cache is checked (gen).
func (db *DB) apiKeyByPublicID(ctx context.Context, gen uint64, publicID string) (auth.APIKey, error) {
	if k, ok := db.creds.key(publicID); ok {
		return k, nil
	}
	db.creds.queries.Add(1)
	st, err := db.readStmt(ctx, apiKeyByPublicIDSQL)
	if err != nil {
		return auth.APIKey{}, err
	}
	var r apiKeyRow
	err = st.QueryRowContext(ctx, publicID).Scan(&r.ID, &r.UserID, &r.Name, &r.PublicID, &r.SecretHash, &r.Scopes,
		&r.CreatedAt, &r.ExpiresAt, &r.LastUsedAt, &r.RevokedAt)
	if err != nil {
		return auth.APIKey{}, notFound(err, "API key")
	}
	k := r.key()
	db.creds.putKey(gen, k)
	return k, nil
}

// APIKeyByID finds a key by id.
func (db *DB) APIKeyByID(ctx context.Context, id string) (auth.APIKey, error) {
	return db.apiKeyWhere(ctx, "id", id)
}

// ListAPIKeys returns a user's keys, newest first.
func (db *DB) ListAPIKeys(ctx context.Context, userID string) ([]auth.APIKey, error) {
	var rows []apiKeyRow
	err := db.reader.NewSelect().Model(&rows).Where("user_id = ?", userID).
		OrderExpr("created_at DESC, id DESC").Scan(ctx)
	if err != nil {
		return nil, err
	}
	keys := make([]auth.APIKey, len(rows))
	for i, r := range rows {
		keys[i] = r.key()
	}
	return keys, nil
}

// RevokeAPIKey marks a key revoked.
func (db *DB) RevokeAPIKey(ctx context.Context, id string, at time.Time) error {
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewUpdate().Model((*apiKeyRow)(nil)).Set("revoked_at = ?", at).
			Where("id = ? AND revoked_at IS NULL", id).Exec(ctx)
		return err
	})
}

// TouchAPIKeys records last-use times of many keys in one transaction.
func (db *DB) TouchAPIKeys(ctx context.Context, lastUsed map[string]time.Time) error {
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		for id, at := range lastUsed {
			_, err := tx.NewUpdate().Model((*apiKeyRow)(nil)).Set("last_used_at = ?", at).
				Where("id = ? AND (last_used_at IS NULL OR last_used_at < ?)", id, at).Exec(ctx)
			if err != nil {
				return err
			}
		}
		return nil
	})
}
