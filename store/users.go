package store

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/server/auth"
)

var _ auth.Store = (*DB)(nil)

type userRow struct {
	bun.BaseModel `bun:"table:users"`

	ID           string `bun:",pk"`
	Email        string
	Name         string
	PasswordHash string
	Plan         string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

func (r userRow) user() finance.User {
	return finance.User{ID: r.ID, Email: r.Email, Name: r.Name, Plan: finance.Plan(r.Plan),
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

// CreateUser inserts a user.
func (db *DB) CreateUser(ctx context.Context, u finance.User, passwordHash string) error {
	row := userRow{ID: u.ID, Email: u.Email, Name: u.Name, PasswordHash: passwordHash, Plan: string(u.Plan),
		CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt}
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewInsert().Model(&row).Exec(ctx)
		if err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed: users.email") {
			return finance.Invalid("email", "is already registered")
		} else if err != nil {
			return err
		}
		return seedCategories(ctx, tx, u)
	})
}

func (db *DB) userWhere(ctx context.Context, what, col string, val any) (finance.User, error) {
	var row userRow
	err := db.reader.NewSelect().Model(&row).Where("? = ?", bun.Ident(col), val).Scan(ctx)
	if err != nil {
		return finance.User{}, notFound(err, what)
	}
	return row.user(), nil
}

const userByIDSQL = `SELECT id, email, name, plan, created_at, updated_at FROM users WHERE id = ?`

// UserByID returns a user by id. It runs on every authenticated request, so
// it uses a prepared statement.
func (db *DB) UserByID(ctx context.Context, id string) (finance.User, error) {
	st, err := db.readStmt(ctx, userByIDSQL)
	if err != nil {
		return finance.User{}, err
	}
	var u finance.User
	err = st.QueryRowContext(ctx, id).Scan(&u.ID, &u.Email, &u.Name, &u.Plan, &u.CreatedAt, &u.UpdatedAt)
	if err != nil {
		return finance.User{}, notFound(err, "user")
	}
	u.CreatedAt, u.UpdatedAt = u.CreatedAt.UTC(), u.UpdatedAt.UTC()
	return u, nil
}

// UserByEmail returns a user by (lowercased) email.
func (db *DB) UserByEmail(ctx context.Context, email string) (finance.User, error) {
	return db.userWhere(ctx, "user", "email", email)
}

// PasswordHash returns the stored password hash of a user.
func (db *DB) PasswordHash(ctx context.Context, userID string) (string, error) {
	var hash string
	err := db.reader.NewSelect().Model((*userRow)(nil)).Column("password_hash").Where("id = ?", userID).Scan(ctx, &hash)
	return hash, notFound(err, "user")
}

// ListUsers returns all users, oldest first.
func (db *DB) ListUsers(ctx context.Context) ([]finance.User, error) {
	var rows []userRow
	if err := db.reader.NewSelect().Model(&rows).Order("created_at", "id").Scan(ctx); err != nil {
		return nil, err
	}
	users := make([]finance.User, len(rows))
	for i, r := range rows {
		users[i] = r.user()
	}
	return users, nil
}

// CountUsers returns the number of users.
func (db *DB) CountUsers(ctx context.Context) (int, error) {
	n, err := db.reader.NewSelect().Model((*userRow)(nil)).Count(ctx)
	return int(n), err
}

func (db *DB) updateUser(ctx context.Context, userID string, set map[string]any, at time.Time) error {
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewUpdate().Model((*userRow)(nil)).Set("updated_at = ?", at).Where("id = ?", userID)
		for col, v := range set {
			q = q.Set("? = ?", bun.Ident(col), v)
		}
		res, err := q.Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return finance.NotFound("user")
		}
		return nil
	})
}

// SetUserPlan changes a user's plan.
func (db *DB) SetUserPlan(ctx context.Context, userID string, plan finance.Plan, at time.Time) error {
	return db.updateUser(ctx, userID, map[string]any{"plan": string(plan)}, at)
}

// SetPasswordHash replaces a user's password hash.
func (db *DB) SetPasswordHash(ctx context.Context, userID, hash string, at time.Time) error {
	return db.updateUser(ctx, userID, map[string]any{"password_hash": hash}, at)
}
