package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/oauth"
)

var _ oauth.Store = (*DB)(nil)

type oauthClientRow struct {
	bun.BaseModel `bun:"table:oauth_clients,alias:c"`

	ID           string `bun:",pk"`
	Name         string
	RedirectURIs string `bun:"redirect_uris"`
	GrantTypes   string
	Scope        string
	CreatedAt    time.Time

	MetadataDocument bool `bun:"metadata_document"`
	FetchedAt        *time.Time
}

type oauthGrantRow struct {
	bun.BaseModel `bun:"table:oauth_grants,alias:g"`

	ID         string `bun:",pk"`
	UserID     string
	ClientID   string
	Scopes     string
	Resource   string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// oauthGrantListRow is a grant with the name of its client.
type oauthGrantListRow struct {
	oauthGrantRow `bun:",extend"`

	ClientName string
}

type oauthCodeRow struct {
	bun.BaseModel `bun:"table:oauth_codes"`

	CodeHash         []byte `bun:",pk"`
	ClientID         string
	UserID           string
	RedirectURI      string `bun:"redirect_uri"`
	RedirectURIGiven bool   `bun:"redirect_uri_given"`
	CodeChallenge    string
	Scopes           string
	Resource         string
	CreatedAt        time.Time
	ExpiresAt        time.Time
	UsedAt           *time.Time
	ReusedAt         *time.Time
	GrantID          *string
}

type oauthTokenRow struct {
	bun.BaseModel `bun:"table:oauth_tokens"`

	TokenHash []byte `bun:",pk"`
	GrantID   string
	Kind      string
	Scopes    string
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time
}

func joinScopes(scopes []auth.Scope) string {
	parts := make([]string, len(scopes))
	for i, s := range scopes {
		parts[i] = string(s)
	}
	return strings.Join(parts, " ")
}

func splitScopes(s string) []auth.Scope {
	var out []auth.Scope
	for _, f := range strings.Fields(s) {
		out = append(out, auth.Scope(f))
	}
	return out
}

func (r oauthGrantRow) grant() oauth.Grant {
	return oauth.Grant{ID: r.ID, UserID: r.UserID, ClientID: r.ClientID, Scopes: splitScopes(r.Scopes),
		Resource: r.Resource, CreatedAt: r.CreatedAt.UTC(), ExpiresAt: r.ExpiresAt.UTC(),
		LastUsedAt: utcPtr(r.LastUsedAt), RevokedAt: utcPtr(r.RevokedAt)}
}

func tokenRow(t oauth.Token) oauthTokenRow {
	return oauthTokenRow{TokenHash: t.Hash, GrantID: t.GrantID, Kind: string(t.Kind), Scopes: joinScopes(t.Scopes),
		CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt, UsedAt: t.UsedAt}
}

// CreateOAuthClient stores a registered client.
func (db *DB) CreateOAuthClient(ctx context.Context, c oauth.Client) error {
	uris, err := json.Marshal(c.RedirectURIs)
	if err != nil {
		return err
	}
	row := oauthClientRow{ID: c.ID, Name: c.Name, RedirectURIs: string(uris),
		GrantTypes: strings.Join(c.GrantTypes, " "), Scope: c.Scope, CreatedAt: c.CreatedAt}
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewInsert().Model(&row).Exec(ctx)
		return err
	})
}

// OAuthClient finds a client by its client_id.
func (db *DB) OAuthClient(ctx context.Context, id string) (oauth.Client, error) {
	var row oauthClientRow
	if err := db.reader.NewSelect().Model(&row).Where("id = ?", id).Scan(ctx); err != nil {
		return oauth.Client{}, notFound(err, "OAuth client")
	}
	var uris []string
	if err := json.Unmarshal([]byte(row.RedirectURIs), &uris); err != nil {
		return oauth.Client{}, err
	}
	return oauth.Client{ID: row.ID, Name: row.Name, RedirectURIs: uris, GrantTypes: strings.Fields(row.GrantTypes),
		Scope: row.Scope, CreatedAt: row.CreatedAt.UTC(), MetadataDocument: row.MetadataDocument,
		FetchedAt: utcPtr(row.FetchedAt)}, nil
}

// CreateOAuthCode stores an authorization code and, for a metadata document
// client, the client as the user approved it, in one transaction (see
// oauth.Store).
func (db *DB) CreateOAuthCode(ctx context.Context, c oauth.Code, metadataClient *oauth.Client) error {
	row := oauthCodeRow{CodeHash: c.Hash, ClientID: c.ClientID, UserID: c.UserID, RedirectURI: c.RedirectURI,
		RedirectURIGiven: c.RedirectURIGiven, CodeChallenge: c.Challenge, Scopes: joinScopes(c.Scopes),
		Resource: c.Resource, CreatedAt: c.CreatedAt, ExpiresAt: c.ExpiresAt}
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if metadataClient != nil {
			if err := upsertMetadataClient(ctx, tx, *metadataClient); err != nil {
				return err
			}
		}
		_, err := tx.NewInsert().Model(&row).Exec(ctx)
		return err
	})
}

// upsertMetadataClient stores a client described by its metadata document
// under its URL, or refreshes the stored one from the document (its name,
// redirect URIs, grant types and fetched_at; created_at stays). It never
// touches a registered client.
func upsertMetadataClient(ctx context.Context, tx bun.Tx, c oauth.Client) error {
	uris, err := json.Marshal(c.RedirectURIs)
	if err != nil {
		return err
	}
	row := oauthClientRow{ID: c.ID, Name: c.Name, RedirectURIs: string(uris),
		GrantTypes: strings.Join(c.GrantTypes, " "), Scope: c.Scope, CreatedAt: c.CreatedAt,
		MetadataDocument: true, FetchedAt: c.FetchedAt}
	_, err = tx.NewInsert().Model(&row).
		On("CONFLICT (id) DO UPDATE").
		Set("name = EXCLUDED.name").
		Set("redirect_uris = EXCLUDED.redirect_uris").
		Set("grant_types = EXCLUDED.grant_types").
		Set("fetched_at = EXCLUDED.fetched_at").
		Where("c.metadata_document").
		Exec(ctx)
	return err
}

// RedeemOAuthCode marks a code used (or, when it was used already, reused)
// and returns it as it was before, in one transaction.
func (db *DB) RedeemOAuthCode(ctx context.Context, hash []byte, at time.Time) (oauth.Code, error) {
	var row oauthCodeRow
	err := db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := tx.NewSelect().Model(&row).Where("code_hash = ?", hash).Scan(ctx); err != nil {
			return notFound(err, "authorization code")
		}
		col := "used_at"
		if row.UsedAt != nil {
			col = "reused_at"
		}
		_, err := tx.NewUpdate().Model((*oauthCodeRow)(nil)).Set("? = ?", bun.Ident(col), at).
			Where("code_hash = ?", hash).Exec(ctx)
		return err
	})
	if err != nil {
		return oauth.Code{}, err
	}
	c := oauth.Code{Hash: row.CodeHash, ClientID: row.ClientID, UserID: row.UserID, RedirectURI: row.RedirectURI,
		RedirectURIGiven: row.RedirectURIGiven, Challenge: row.CodeChallenge, Scopes: splitScopes(row.Scopes),
		Resource: row.Resource, CreatedAt: row.CreatedAt.UTC(), ExpiresAt: row.ExpiresAt.UTC(), UsedAt: utcPtr(row.UsedAt)}
	if row.GrantID != nil {
		c.GrantID = *row.GrantID
	}
	return c, nil
}

// CreateOAuthGrant stores a grant and its first tokens and links the code
// to the grant, in one transaction. When the code was presented again since
// it was redeemed, nothing is stored: oauth.ErrCodeReused.
func (db *DB) CreateOAuthGrant(ctx context.Context, g oauth.Grant, codeHash []byte, tokens ...oauth.Token) error {
	row := oauthGrantRow{ID: g.ID, UserID: g.UserID, ClientID: g.ClientID, Scopes: joinScopes(g.Scopes),
		Resource: g.Resource, CreatedAt: g.CreatedAt, ExpiresAt: g.ExpiresAt}
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
			return err
		}
		res, err := tx.NewUpdate().Model((*oauthCodeRow)(nil)).Set("grant_id = ?", g.ID).
			Where("code_hash = ? AND reused_at IS NULL AND grant_id IS NULL", codeHash).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return oauth.ErrCodeReused
		}
		return insertTokens(ctx, tx, tokens)
	})
}

func insertTokens(ctx context.Context, tx bun.Tx, tokens []oauth.Token) error {
	if len(tokens) == 0 {
		return nil
	}
	rows := make([]oauthTokenRow, len(tokens))
	for i, t := range tokens {
		rows[i] = tokenRow(t)
	}
	_, err := tx.NewInsert().Model(&rows).Exec(ctx)
	return err
}

// OAuthToken returns a token and its grant. Every request made with an OAuth
// access token runs it, so it answers from the credential cache when it can.
func (db *DB) OAuthToken(ctx context.Context, hash []byte) (oauth.Token, oauth.Grant, error) {
	gen, err := db.creds.fresh(ctx)
	if err != nil {
		return oauth.Token{}, oauth.Grant{}, err
	}
	if t, g, ok := db.creds.token(hash); ok {
		return t, g, nil
	}
	db.creds.queries.Add(1)
	var tok oauthTokenRow
	if err := db.reader.NewSelect().Model(&tok).Where("token_hash = ?", hash).Scan(ctx); err != nil {
		return oauth.Token{}, oauth.Grant{}, notFound(err, "OAuth token")
	}
	// With its client's name, which the grant's writes record as their actor.
	var g oauthGrantListRow
	if err := db.reader.NewSelect().Model(&g).ColumnExpr("g.*").ColumnExpr("c.name AS client_name").
		Join("JOIN oauth_clients AS c ON c.id = g.client_id").Where("g.id = ?", tok.GrantID).Scan(ctx); err != nil {
		return oauth.Token{}, oauth.Grant{}, notFound(err, "OAuth grant")
	}
	t := oauth.Token{Hash: tok.TokenHash, GrantID: tok.GrantID, Kind: oauth.TokenKind(tok.Kind),
		Scopes: splitScopes(tok.Scopes), CreatedAt: tok.CreatedAt.UTC(), ExpiresAt: tok.ExpiresAt.UTC(),
		UsedAt: utcPtr(tok.UsedAt)}
	grant := g.grant()
	grant.ClientName = g.ClientName
	db.creds.putToken(gen, t, grant)
	return t, grant, nil
}

// RotateOAuthRefreshToken spends a refresh token and stores its successors,
// in one transaction; oauth.ErrTokenUsed when it had been spent already.
func (db *DB) RotateOAuthRefreshToken(ctx context.Context, oldHash []byte, at, grantExpires time.Time, tokens ...oauth.Token) error {
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var grantID string
		err := tx.NewUpdate().Model((*oauthTokenRow)(nil)).Set("used_at = ?", at).
			Where("token_hash = ? AND kind = 'refresh' AND used_at IS NULL", oldHash).
			Returning("grant_id").Scan(ctx, &grantID)
		if errors.Is(err, sql.ErrNoRows) {
			return oauth.ErrTokenUsed
		} else if err != nil {
			return err
		}
		res, err := tx.NewUpdate().Model((*oauthGrantRow)(nil)).Set("expires_at = ?", grantExpires).
			Where("id = ? AND revoked_at IS NULL", grantID).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return oauth.ErrTokenUsed // revoked meanwhile
		}
		return insertTokens(ctx, tx, tokens)
	})
}

// RevokeOAuthGrant marks a grant revoked and deletes its tokens, in one transaction.
func (db *DB) RevokeOAuthGrant(ctx context.Context, grantID string, at time.Time) error {
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewUpdate().Model((*oauthGrantRow)(nil)).Set("revoked_at = ?", at).
			Where("id = ? AND revoked_at IS NULL", grantID).Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewDelete().Model((*oauthTokenRow)(nil)).Where("grant_id = ?", grantID).Exec(ctx)
		return err
	})
}

// DeleteOAuthToken deletes one token (revocation of an access token).
func (db *DB) DeleteOAuthToken(ctx context.Context, hash []byte) error {
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewDelete().Model((*oauthTokenRow)(nil)).Where("token_hash = ?", hash).Exec(ctx)
		return err
	})
}

// ListOAuthGrants returns a user's live grants, newest first, with client names.
func (db *DB) ListOAuthGrants(ctx context.Context, userID string, now time.Time) ([]oauth.Grant, error) {
	var rows []oauthGrantListRow
	err := db.reader.NewSelect().Model(&rows).
		ColumnExpr("g.*").ColumnExpr("c.name AS client_name").
		Join("JOIN oauth_clients AS c ON c.id = g.client_id").
		Where("g.user_id = ? AND g.revoked_at IS NULL AND g.expires_at > ?", userID, now).
		OrderExpr("g.created_at DESC, g.id DESC").Scan(ctx)
	if err != nil {
		return nil, err
	}
	grants := make([]oauth.Grant, len(rows))
	for i, r := range rows {
		grants[i] = r.grant()
		grants[i].ClientName = r.ClientName
	}
	return grants, nil
}

// TouchOAuthGrants records last-use times of many grants in one transaction.
func (db *DB) TouchOAuthGrants(ctx context.Context, lastUsed map[string]time.Time) error {
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		for id, at := range lastUsed {
			_, err := tx.NewUpdate().Model((*oauthGrantRow)(nil)).Set("last_used_at = ?", at).
				Where("id = ? AND (last_used_at IS NULL OR last_used_at < ?)", id, at).Exec(ctx)
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// PruneOAuth deletes expired tokens, and codes and grants that expired (or
// were revoked) before `before`, and clients registered before `before` that have no grant.
// Used refresh tokens are kept until they expire, so a replay is still recognised.
func (db *DB) PruneOAuth(ctx context.Context, now, before time.Time) error {
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		// Codes are kept well past their 60 seconds, so that a late replay
		// of a redeemed code still revokes what it granted.
		if _, err := tx.NewDelete().Model((*oauthCodeRow)(nil)).Where("expires_at <= ?", before).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.NewDelete().Model((*oauthTokenRow)(nil)).Where("expires_at <= ?", now).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.NewDelete().Model((*oauthGrantRow)(nil)).
			Where("revoked_at <= ? OR expires_at <= ?", before, before).Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewDelete().Model((*oauthClientRow)(nil)).
			Where("created_at <= ? AND NOT EXISTS (SELECT 1 FROM oauth_grants AS g WHERE g.client_id = c.id)", before).
			Exec(ctx)
		return err
	})
}
