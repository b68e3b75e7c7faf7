package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

// The activity (docs/domain.md "Activity: who did what") is one table of
// entries, of which the card log is the entries with a credit_card_id. Its
// actors are rows of their own (activity_actors), one per actor, name and
// door: an entry holds a small integer instead of the actor's kind, id and
// name, and a renamed key is a new row, so older entries keep the old name.
//
// Entries are listed newest first by (at, seq): at is created_at in Unix
// seconds, seq the INTEGER PRIMARY KEY, which grows with every insert and,
// unlike an implicit rowid, survives VACUUM. Entry ids are made in the
// write that appends them, on the one writer, so seq orders entries of the
// same second as their time-ordered ids do. One index, activity_user
// (user_seq, at, seq, kind, actor), serves the list and its kind and actor
// filters (see its migration, 20261216000100): an entry costs a write one
// index entry besides its row.

const (
	// upsertActorSQL makes the actor's row if it has none yet.
	upsertActorSQL = `INSERT INTO activity_actors (user_seq, kind, ref, name, source)
		VALUES ((SELECT seq FROM users WHERE id = ?1), ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING`
	insertActivitySQL = `INSERT INTO activity (id, user_seq, at, actor, kind, record_id, action, summary, amount, credit_card_id)
		SELECT ?1, a.user_seq, ?2, a.id, ?3, ?4, ?5, ?6, ?7, ?8 FROM activity_actors AS a
		WHERE a.user_seq = (SELECT seq FROM users WHERE id = ?9) AND a.kind = ?10 AND a.ref = ?11 AND a.name = ?12 AND a.source = ?13`
)

func (l ledger) AppendActivity(ctx context.Context, userID string, e finance.Activity) error {
	upsert := func(h *hotStatements) *sql.Stmt { return h.upsertActor }
	insert := func(h *hotStatements) *sql.Stmt { return h.insertActivity }
	actor := []any{userID, e.Actor.Kind, e.Actor.ID, e.Actor.Name, e.Source}
	row := []any{e.ID, e.CreatedAt.Unix(), e.Kind, e.RecordID, e.Action, e.Summary, e.Amount, e.CreditCardID}
	if err := l.exec(ctx, upsertActorSQL, upsert, actor...); err != nil {
		return err
	}
	return l.exec(ctx, insertActivitySQL, insert, append(row, actor...)...)
}

// exec runs a write with bound arguments: the writer's hot statement in a
// write transaction, else the SQL as is.
func (l ledger) exec(ctx context.Context, query string, hot func(*hotStatements) *sql.Stmt, args ...any) error {
	if st := l.stmt(ctx, hot); st != nil {
		_, err := st.ExecContext(ctx, args...)
		return err
	}
	_, err := l.db.ExecContext(ctx, query, args...)
	return err
}

// activityRow is an entry as the lists read it, its actor joined.
type activityRow struct {
	bun.BaseModel `bun:"table:activity,alias:g"`
	ID            string
	At            int64
	Kind          string
	RecordID      string
	Action        string
	Summary       string
	Amount        *finance.Money
	CreditCardID  *string
	ActorKind     string
	ActorRef      string
	ActorName     string
	ActorSource   string
}

func (r activityRow) activity() finance.Activity {
	return finance.Activity{ID: r.ID, CreatedAt: time.Unix(r.At, 0).UTC(),
		Actor:  finance.Actor{Kind: r.ActorKind, ID: r.ActorRef, Name: r.ActorName},
		Source: r.ActorSource, Kind: r.Kind, RecordID: r.RecordID, Action: r.Action, Summary: r.Summary,
		Amount: r.Amount, CreditCardID: r.CreditCardID}
}

// selectActivity starts a query of the user's entries, newest first unless
// p says otherwise, with their actors. The user's seq is read once, so each
// index below is sought with a constant.
func (l ledger) selectActivity(rows *[]activityRow, userID string, from, until time.Time) *bun.SelectQuery {
	q := l.db.NewSelect().Model(rows).
		ColumnExpr("g.id, g.at, g.kind, g.record_id, g.action, g.summary, g.amount, g.credit_card_id").
		ColumnExpr("a.kind AS actor_kind, a.ref AS actor_ref, a.name AS actor_name, a.source AS actor_source").
		Join("JOIN activity_actors AS a ON a.id = g.actor").
		Where("g.user_seq = "+userSeqOf, userID)
	if !from.IsZero() {
		q = q.Where("g.at >= ?", from.Unix())
	}
	if !until.IsZero() {
		q = q.Where("g.at < ?", until.Unix())
	}
	return q
}

// pageActivity orders q by (at, seq) in p's direction and reads p's page.
func pageActivity(ctx context.Context, q *bun.SelectQuery, p finance.ListParams) (int, error) {
	dir := "ASC"
	if p.Desc {
		dir = "DESC"
	}
	q = q.OrderExpr("g.at " + dir + ", g.seq " + dir).Limit(int64(p.Limit)).Offset(int64(p.Offset()))
	total, err := q.ScanAndCount(ctx)
	return int(total), err
}

func (l ledger) ListActivity(ctx context.Context, userID string, f finance.ActivityFilter, p finance.ListParams) ([]finance.Activity, int, error) {
	var rows []activityRow
	q := l.selectActivity(&rows, userID, f.From, f.Until)
	if f.Kind != "" {
		q = q.Where("g.kind = ?", f.Kind)
	}
	if f.Actor != "" || f.ActorID != "" || f.Source != "" {
		// The actors of the filter: a handful of rows, matched against the
		// actor in each entry of activity_user (user_seq, at, seq, kind,
		// actor), as the kind is, before any row is read.
		sub := l.db.NewSelect().TableExpr("activity_actors AS x").Column("x.id").
			Where("x.user_seq = "+userSeqOf, userID)
		if f.Actor != "" {
			sub = sub.Where("x.kind = ?", f.Actor)
		}
		if f.ActorID != "" {
			sub = sub.Where("x.ref = ?", f.ActorID)
		}
		if f.Source != "" {
			sub = sub.Where("x.source = ?", f.Source)
		}
		q = q.Where("g.actor IN (?)", sub)
	}
	total, err := pageActivity(ctx, q, p)
	if err != nil {
		return nil, 0, err
	}
	out := make([]finance.Activity, len(rows))
	for i, r := range rows {
		out[i] = r.activity()
	}
	return out, total, nil
}

func (l ledger) ListCardLogs(ctx context.Context, userID string, f finance.CardLogFilter, p finance.ListParams) ([]finance.CardLog, int, error) {
	var rows []activityRow
	q := l.selectActivity(&rows, userID, f.From, f.Until).Where("g.credit_card_id IS NOT NULL")
	if f.CardID != "" {
		q = q.Where("g.credit_card_id = ?", f.CardID)
	}
	if f.Action != "" {
		q = q.Where("g.action = ?", f.Action)
	}
	if f.EntityType != "" {
		q = q.Where("g.kind = ?", f.EntityType)
	}
	q = searchAny(q, f.Search, "g.summary")
	total, err := pageActivity(ctx, q, p)
	if err != nil {
		return nil, 0, err
	}
	out := make([]finance.CardLog, len(rows))
	for i, r := range rows {
		a := r.activity()
		out[i] = finance.CardLog{ID: a.ID, CreditCardID: a.CreditCardID, EntityType: a.Kind, EntityID: a.RecordID,
			Action: a.Action, Message: a.Summary, Amount: a.Amount, CreatedAt: a.CreatedAt}
	}
	return out, total, nil
}
