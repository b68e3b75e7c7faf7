package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

// The AI assistant's conversations and proposals (the Store port of
// package assistant).
// Each chat stores its exchange and its proposals in one short transaction,
// after the model has answered, so a model call never holds the writer. A
// confirm reads and decides its proposal in the write scope of the route it
// executes (WriteScope), so the write and the proposal's result commit
// together or not at all.

// AssistantTurns returns the exchanges of userID's conversation id, oldest
// first, or finance.ErrNotFound when it does not exist, is another user's,
// or had no exchange since before the retention window (now less
// finance.ConversationTTL).
func (db *DB) AssistantTurns(ctx context.Context, userID, id string, now time.Time) ([]finance.ChatTurn, error) {
	var n int
	err := db.reader.QueryRowContext(ctx, `SELECT count(*) FROM assistant_conversations
		WHERE id = ? AND user_id = ? AND updated_at > ?`, id, userID, now.Add(-finance.ConversationTTL)).Scan(&n)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, finance.NotFound("conversation")
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT message, reply, created_at FROM assistant_turns
		WHERE conversation_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var turns []finance.ChatTurn
	for rows.Next() {
		var t finance.ChatTurn
		if err := rows.Scan(&t.Message, &t.Reply, &t.CreatedAt); err != nil {
			return nil, err
		}
		turns = append(turns, t)
	}
	return turns, rows.Err()
}

// SaveAssistantTurn appends turn to userID's conversation id (creating it
// when new), keeps its newest finance.MaxConversationTurns exchanges, and
// stores proposals, all in one transaction. It also deletes the user's
// conversations (with their proposals) that had no exchange within the
// retention window, so stale ones go without a background job.
func (db *DB) SaveAssistantTurn(ctx context.Context, userID, id string, turn finance.ChatTurn, proposals []finance.Proposal) error {
	now := turn.CreatedAt
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM assistant_conversations WHERE user_id = ? AND updated_at <= ?`,
			userID, now.Add(-finance.ConversationTTL)); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE assistant_conversations SET updated_at = ? WHERE id = ? AND user_id = ?`,
			now, id, userID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			if _, err := tx.ExecContext(ctx, `INSERT INTO assistant_conversations (id, user_id, created_at, updated_at)
				VALUES (?, ?, ?, ?)`, id, userID, now, now); err != nil {
				return err
			}
		}
		var seq int64
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) + 1 FROM assistant_turns WHERE conversation_id = ?`,
			id).Scan(&seq); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO assistant_turns (conversation_id, seq, message, reply, created_at)
			VALUES (?, ?, ?, ?, ?)`, id, seq, turn.Message, turn.Reply, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM assistant_turns WHERE conversation_id = ? AND seq <= ?`,
			id, seq-finance.MaxConversationTurns); err != nil {
			return err
		}
		for _, p := range proposals {
			if _, err := tx.ExecContext(ctx, `INSERT INTO assistant_proposals
				(id, user_id, conversation_id, action, summary, arguments, method, path, body, status, expires_at, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				p.ID, userID, id, p.Action, p.Summary, string(p.Arguments), p.Method, p.Path, string(p.Body),
				finance.ProposalPending, p.ExpiresAt, p.CreatedAt); err != nil {
				return err
			}
		}
		return nil
	})
}

// PruneAssistant deletes every conversation (with its exchanges and
// proposals) that had no exchange since before the retention window.
func (db *DB) PruneAssistant(ctx context.Context, now time.Time) error {
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM assistant_conversations WHERE updated_at <= ?`,
			now.Add(-finance.ConversationTTL))
		return err
	})
}

const assistantProposalSQL = `SELECT id, user_id, conversation_id, action, summary, arguments, method, path, body,
	status, expires_at, created_at, decided_at, result_status, result_data
	FROM assistant_proposals WHERE id = ? AND user_id = ?`

// AssistantProposal returns userID's proposal id, or finance.ErrNotFound.
// In the write scope that ctx carries it reads on the writer, which has
// seen every commit (a concurrent confirm's included); otherwise on the read pool.
func (db *DB) AssistantProposal(ctx context.Context, userID, id string) (finance.Proposal, error) {
	var row *sql.Row
	if sc := db.scope(ctx); sc != nil {
		row = sc.tx.QueryRowContext(ctx, assistantProposalSQL, id, userID)
	} else {
		row = db.reader.QueryRowContext(ctx, assistantProposalSQL, id, userID)
	}
	var (
		p               finance.Proposal
		arguments, body string
		decidedAt       sql.NullTime
		resultStatus    sql.NullInt64
		resultData      sql.NullString
	)
	err := row.Scan(&p.ID, &p.UserID, &p.ConversationID, &p.Action, &p.Summary, &arguments, &p.Method, &p.Path, &body,
		&p.Status, &p.ExpiresAt, &p.CreatedAt, &decidedAt, &resultStatus, &resultData)
	if err != nil {
		return finance.Proposal{}, notFound(err, "proposal")
	}
	p.Arguments, p.Body = json.RawMessage(arguments), []byte(body)
	if decidedAt.Valid {
		t := decidedAt.Time.UTC()
		p.DecidedAt = &t
	}
	p.ExpiresAt, p.CreatedAt = p.ExpiresAt.UTC(), p.CreatedAt.UTC()
	p.ResultStatus = int(resultStatus.Int64)
	if resultData.Valid {
		p.ResultData = json.RawMessage(resultData.String)
	}
	return p, nil
}

// DecideAssistantProposal records the decision on userID's pending
// proposal id: confirmed with the route's status and data, or rejected.
// Called in the write scope of the confirmed write, it commits with it. A
// proposal no longer pending is finance.ErrInvalidStatus: the caller read
// it in the same scope, so that means a bug, not a race.
func (db *DB) DecideAssistantProposal(ctx context.Context, userID, id, status string, resultStatus int,
	resultData json.RawMessage, at time.Time,
) error {
	var data any
	if resultData != nil {
		data = string(resultData)
	}
	var code any
	if resultStatus != 0 {
		code = resultStatus
	}
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE assistant_proposals
			SET status = ?, decided_at = ?, result_status = ?, result_data = ?
			WHERE id = ? AND user_id = ? AND status = 'pending'`,
			status, at, code, data, id, userID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return errors.Join(finance.ErrInvalidStatus, errors.New("store: the proposal is no longer pending"))
		}
		return nil
	})
}
