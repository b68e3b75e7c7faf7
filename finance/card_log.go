package finance

import (
	"context"
	"time"
)

// Entity types and actions of the card activity log (domain.md §2.12).
const (
	LogCreditCard      = "credit_card"
	LogCardTransaction = "card_transaction"
	LogSOA             = "soa"
	LogSOAPayment      = "soa_payment"
	LogInstallmentPlan = "installment_plan"

	LogCreated    = "created"
	LogUpdated    = "updated"
	LogArchived   = "archived"
	LogUnarchived = "unarchived"
	LogVoided     = "voided"
	LogGenerated  = "generated"
	LogLinked     = "linked"
	LogUnlinked   = "unlinked"
	LogPaid       = "paid"
	LogConverted  = "converted"
	LogCancelled  = "cancelled"
	LogCompleted  = "completed"
)

// LogEntityTypes and LogActions are the values the log filters accept.
var (
	LogEntityTypes = []string{LogCreditCard, LogCardTransaction, LogSOA, LogSOAPayment, LogInstallmentPlan}
	LogActions     = []string{LogCreated, LogUpdated, LogArchived, LogUnarchived, LogVoided, LogGenerated,
		LogLinked, LogUnlinked, LogPaid, LogConverted, LogCancelled, LogCompleted}
)

// CardLog is one entry of the activity log: what happened to which card
// record, appended in the transaction that made the change and never
// changed afterwards.
type CardLog struct {
	ID           string    `json:"id"`
	CreditCardID *string   `json:"credit_card_id"`
	EntityType   string    `json:"entity_type"`
	EntityID     string    `json:"entity_id"`
	Action       string    `json:"action"`
	Message      string    `json:"message"`
	Amount       *Money    `json:"amount"`
	CreatedAt    time.Time `json:"created_at"`
}

// CardLogFilter narrows GET /credit-cards/logs. From and Until bound
// created_at (Until exclusive); the route turns its dates into them in the
// user's timezone.
type CardLogFilter struct {
	CardID     string
	From       time.Time
	Until      time.Time
	Search     string
	Action     string
	EntityType string
}

// CardLogList is the list spec of GET /credit-cards/logs: newest first.
var CardLogList = ListSpec{Sorts: []string{"created_at"}, DefaultDesc: true}

// LogRepo is the persistence of the activity log.
type LogRepo interface {
	AppendCardLog(ctx context.Context, userID string, l CardLog) error
	ListCardLogs(ctx context.Context, userID string, f CardLogFilter, p ListParams) ([]CardLog, int, error)
}

// log appends an entry in tx.
func (s *Service) log(ctx context.Context, tx Repo, userID string, l CardLog) error {
	l.ID, l.CreatedAt = NewID(), s.stamp()
	return tx.AppendCardLog(ctx, userID, l)
}

// ListCardLogs returns a page of the activity log. dateFrom and dateTo are
// days in the user's timezone, inclusive.
func (s *Service) ListCardLogs(ctx context.Context, userID string, f CardLogFilter, dateFrom, dateTo Date, p ListParams) (Page[CardLog], error) {
	loc := s.location(ctx, userID)
	if !dateFrom.IsZero() {
		f.From = dateFrom.In(loc)
	}
	if !dateTo.IsZero() {
		f.Until = dateTo.AddDays(1).In(loc)
	}
	items, total, err := s.store.Read().ListCardLogs(ctx, userID, f, p)
	if err != nil {
		return Page[CardLog]{}, err
	}
	return NewPage(items, total, p), nil
}
