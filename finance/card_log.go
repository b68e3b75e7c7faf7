package finance

import (
	"context"
	"fmt"
	"strings"
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
	CreditCardID *string   `json:"credit_card_id,omitempty"`
	EntityType   string    `json:"entity_type"`
	EntityID     string    `json:"entity_id"`
	Action       string    `json:"action"`
	Message      string    `json:"message"`
	Amount       *Money    `json:"amount,omitempty"`
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

// LogRepo is the persistence of the activity, the card log included: one
// log of entries, of which the card log is those of card records.
type LogRepo interface {
	AppendActivity(ctx context.Context, userID string, a Activity) error
	ListActivity(ctx context.Context, userID string, f ActivityFilter, p ListParams) ([]Activity, int, error)
	ListCardLogs(ctx context.Context, userID string, f CardLogFilter, p ListParams) ([]CardLog, int, error)
}

// log appends an entry about a card record in tx (see record).
func (s *Service) log(ctx context.Context, tx Repo, userID string, l CardLog) error {
	return s.record(ctx, tx, userID, Activity{CreditCardID: l.CreditCardID, Kind: l.EntityType, RecordID: l.EntityID,
		Action: l.Action, Summary: l.Message, Amount: l.Amount})
}

// ListCardLogs returns a page of the activity log. dateFrom and dateTo are
// days in the user's timezone, inclusive.
func (s *Service) ListCardLogs(ctx context.Context, userID string, f CardLogFilter, dateFrom, dateTo Date, p ListParams) (Page[CardLog], error) {
	f.From, f.Until = s.dayBounds(ctx, userID, dateFrom, dateTo)
	items, total, err := s.store.Read().ListCardLogs(ctx, userID, f, p)
	return pageOf(items, total, err, p)
}

// logCardRow appends an entry about the card row t, whose CreditCardName
// names its card.
func (s *Service) logCardRow(ctx context.Context, tx Repo, userID, action string, t CardTransaction, message string) error {
	return s.log(ctx, tx, userID, CardLog{CreditCardID: &t.CreditCardID, EntityType: LogCardTransaction, EntityID: t.ID,
		Action: action, Message: message, Amount: &t.Amount})
}

// logRowWritten logs that the row t was recorded (LogCreated) or voided
// (LogVoided): `Purchase "Lunch" of 250.00 recorded on Visa`.
func (s *Service) logRowWritten(ctx context.Context, tx Repo, userID, action string, t CardTransaction) error {
	verb := "recorded"
	if action == LogVoided {
		verb = "voided"
	}
	return s.logCardRow(ctx, tx, userID, action, t,
		fmt.Sprintf("%s %q of %s %s on %s", titleCase(t.Type), t.Description, t.Amount, verb, t.CreditCardName))
}

// logRowChanged logs what changed between two versions of a card row:
// `Purchase "Lunch" on Visa updated: amount 250.00 → 300.00`. An update
// that changed nothing is not logged.
func (s *Service) logRowChanged(ctx context.Context, tx Repo, userID string, before, after CardTransaction) error {
	var c changeList
	c.add("card", before.CreditCardName, after.CreditCardName)
	c.add("amount", before.Amount.String(), after.Amount.String())
	c.add("date", before.Date.String(), after.Date.String())
	c.add("description", fmt.Sprintf("%q", before.Description), fmt.Sprintf("%q", after.Description))
	c.add("category", optionalText(before.Category), optionalText(after.Category))
	if len(c) == 0 {
		return nil
	}
	return s.logCardRow(ctx, tx, userID, LogUpdated, after,
		fmt.Sprintf("%s %q on %s updated: %s", titleCase(after.Type), after.Description, after.CreditCardName, c))
}

// changeList collects the changes of an update for a log message.
type changeList []string

// add notes a field whose text changed from before to after.
func (c *changeList) add(field, before, after string) {
	if before != after {
		*c = append(*c, field+" "+before+" → "+after)
	}
}

// addField notes a field that changed without repeating its values (long text).
func (c *changeList) addField(field string, changed bool) {
	if changed {
		*c = append(*c, field)
	}
}

func (c changeList) String() string { return strings.Join(c, ", ") }

// optionalText writes an optional value for a log message: quoted, or none.
func optionalText(s *string) string {
	if s == nil {
		return "none"
	}
	return fmt.Sprintf("%q", *s)
}
