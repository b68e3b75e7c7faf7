package store

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

var _ auth.Store = (*DB)(nil)

type userRow struct {
	bun.BaseModel `bun:"table:users"`

	ID              string `bun:",pk"`
	Email           string
	Name            string
	PasswordHash    string
	Plan            string
	CreatedAt       time.Time
	UpdatedAt       time.Time
	CredentialEpoch int64 // see auth.Identity
	// The profile picture (finance.ProfilePicture): an external URL or an upload's file name.
	ProfilePictureURL  *string
	ProfilePictureFile *string
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
		err := insertUser(ctx, tx, &row)
		if err != nil && uniqueViolation(err, "users", "email") {
			return finance.Invalid("email", "is already registered")
		} else if err != nil {
			return err
		}
		return seedCategories(ctx, tx, u)
	})
}

// insertUser inserts row with the next user number (seq), which the user
// indexes of expenses lead with; every path that creates a user goes
// through it (a trigger refuses a user without one).
func insertUser(ctx context.Context, tx bun.Tx, row *userRow) error {
	_, err := tx.NewInsert().Model(row).Value("seq", "(SELECT COALESCE(MAX(seq), 0) + 1 FROM users)").Exec(ctx)
	return err
}

func (db *DB) userWhere(ctx context.Context, what, col string, val any) (finance.User, error) {
	var row userRow
	err := db.reader.NewSelect().Model(&row).Where("? = ?", bun.Ident(col), val).Scan(ctx)
	if err != nil {
		return finance.User{}, notFound(err, what)
	}
	return row.user(), nil
}

const userIdentitySQL = `SELECT id, email, name, plan, created_at, updated_at, credential_epoch FROM users WHERE id = ?`

// UserByID returns a user by id.
func (db *DB) UserByID(ctx context.Context, id string) (finance.User, error) {
	ident, err := db.UserIdentity(ctx, id)
	return ident.User, err
}

// UserIdentity returns a user by id with their credential epoch. It runs on
// every authenticated request, so it answers from the credential cache when
// it can and otherwise uses a prepared statement.
func (db *DB) UserIdentity(ctx context.Context, id string) (auth.Identity, error) {
	gen, err := db.creds.fresh(ctx)
	if err != nil {
		return auth.Identity{}, err
	}
	return db.userIdentity(ctx, gen, id)
}

// userIdentity is UserIdentity once the cache is checked (gen).
func (db *DB) userIdentity(ctx context.Context, gen uint64, id string) (auth.Identity, error) {
	if u, ok := db.creds.user(id); ok {
		return u, nil
	}
	db.creds.queries.Add(1)
	st, err := db.readStmt(ctx, userIdentitySQL)
	if err != nil {
		return auth.Identity{}, err
	}
	var u auth.Identity
	err = st.QueryRowContext(ctx, id).Scan(&u.ID, &u.Email, &u.Name, &u.Plan, &u.CreatedAt, &u.UpdatedAt, &u.Epoch)
	if err != nil {
		return auth.Identity{}, notFound(err, "user")
	}
	u.CreatedAt, u.UpdatedAt = u.CreatedAt.UTC(), u.UpdatedAt.UTC()
	db.creds.putUser(gen, u)
	return u, nil
}

// UserByEmail returns a user by (lowercased) email.
func (db *DB) UserByEmail(ctx context.Context, email string) (finance.User, error) {
	return db.userWhere(ctx, "user", "email", email)
}

// Credentials returns the password hash of a user and the credential epoch
// it belongs to, read together.
func (db *DB) Credentials(ctx context.Context, userID string) (auth.Credentials, error) {
	var c auth.Credentials
	err := db.reader.NewSelect().Model((*userRow)(nil)).Column("password_hash", "credential_epoch").
		Where("id = ?", userID).Scan(ctx, &c.PasswordHash, &c.Epoch)
	return c, notFound(err, "user")
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

// SetUserPlan changes a user's plan.
func (db *DB) SetUserPlan(ctx context.Context, userID string, plan finance.Plan, at time.Time) error {
	return db.setUserColumn(ctx, userID, "plan", string(plan), at)
}

// SetUserName changes a user's name.
func (db *DB) SetUserName(ctx context.Context, userID, name string, at time.Time) error {
	return db.setUserColumn(ctx, userID, "name", name, at)
}

// setUserColumn sets one column of a user's row and its updated_at.
func (db *DB) setUserColumn(ctx context.Context, userID, column string, value any, at time.Time) error {
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model((*userRow)(nil)).Set("? = ?", bun.Ident(column), value).Set("updated_at = ?", at).
			Where("id = ?", userID).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return finance.NotFound("user")
		}
		return nil
	})
}

// ChangePassword stores a new password hash and ends the sign-ins of the old
// one in one transaction: the credential epoch moves on (access tokens of
// the old epoch are refused from the commit on) and the user's web sessions
// are deleted, except keepSession when it is not nil.
func (db *DB) ChangePassword(ctx context.Context, userID, hash string, keepSession []byte, at time.Time) (auth.Identity, error) {
	var row userRow
	err := db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewUpdate().Model(&row).
			Set("password_hash = ?", hash).Set("credential_epoch = credential_epoch + 1").Set("updated_at = ?", at).
			Where("id = ?", userID).Exec(ctx)
		if err == nil {
			err = tx.NewSelect().Model(&row).Where("id = ?", userID).Scan(ctx)
		}
		if err != nil {
			return notFound(err, "user")
		}
		q := tx.NewDelete().Model((*webSessionRow)(nil)).Where("user_id = ?", userID)
		if keepSession != nil {
			q = q.Where("id_hash <> ?", keepSession)
		}
		_, err = q.Exec(ctx)
		return err
	})
	if err != nil {
		return auth.Identity{}, err
	}
	return auth.Identity{User: row.user(), Epoch: row.CredentialEpoch}, nil
}
