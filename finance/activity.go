package finance

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"
)

// Actor kinds: who made a write (domain.md "Activity: who did what").
const (
	ActorWeb         = "web"
	ActorApp         = "app"
	ActorAPIKey      = "api_key"
	ActorOAuthClient = "oauth_client"
	ActorTelegram    = "telegram"
	ActorAssistant   = "assistant"
	ActorSystem      = "system"
	ActorUnknown     = "unknown"
)

// ActorKinds are the values of the activity's actor filter.
var ActorKinds = []string{ActorWeb, ActorApp, ActorAPIKey, ActorOAuthClient, ActorTelegram, ActorAssistant, ActorSystem, ActorUnknown}

// Sources of a write: through the MCP endpoint (an agent) or any other door.
// An expense's source takes the same words (ExpenseManual, ExpenseAgent).
const (
	WriteManual = "manual"
	WriteAgent  = "agent"
)

// WriteSources are the values of the activity's source filter.
var WriteSources = []string{WriteManual, WriteAgent}

// Actor is who made a write. Name is copied into each entry when the write
// is made, so a key renamed or revoked later still reads as it was called.
type Actor struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
	Name string `json:"name"`
}

// The actors the server itself names.
var (
	// SystemActor writes what nobody asked for: statements generated when due.
	SystemActor = Actor{Kind: ActorSystem, Name: "Finance"}
	// WebActor is the user on the web app.
	WebActor = Actor{Kind: ActorWeb, Name: "Web app"}
)

// writer is who makes the writes of a request and through which door.
type writer struct {
	actor Actor
	agent bool
}

type writerKey struct{}

func writerOf(ctx context.Context) (writer, bool) {
	w, ok := ctx.Value(writerKey{}).(writer)
	return w, ok
}

// WithActor returns ctx whose writes are a's. The door (ViaAgent) is kept.
func WithActor(ctx context.Context, a Actor) context.Context {
	w, _ := writerOf(ctx)
	w.actor = a
	return context.WithValue(ctx, writerKey{}, w)
}

// ViaAgent returns ctx whose writes come through the MCP endpoint: their
// entries and the expenses they create say source agent.
func ViaAgent(ctx context.Context) context.Context {
	w, _ := writerOf(ctx)
	w.agent = true
	return context.WithValue(ctx, writerKey{}, w)
}

// systemWrite returns ctx whose writes are the server's own (SystemActor),
// whoever made the request.
func systemWrite(ctx context.Context) context.Context {
	return context.WithValue(ctx, writerKey{}, writer{actor: SystemActor})
}

// ActorOf returns the actor of ctx's writes, if one was set.
func ActorOf(ctx context.Context) (Actor, bool) {
	w, ok := writerOf(ctx)
	return w.actor, ok && w.actor.Kind != ""
}

// writeSource is the source of ctx's writes.
func writeSource(ctx context.Context) string {
	if w, _ := writerOf(ctx); w.agent {
		return WriteAgent
	}
	return WriteManual
}

// Record kinds of the activity beyond the card log's entity types (card_log.go).
const (
	RecordExpense            = "expense"
	RecordIncome             = "income"
	RecordAccount            = "account"
	RecordAccountTransaction = "account_transaction"
	RecordCategory           = "category"
	RecordBillTemplate       = "bill_template"
	RecordBill               = "bill"
	RecordBillPayment        = "bill_payment"
	RecordLoan               = "loan"
	RecordLoanInstance       = "loan_instance"
	RecordLoanPayment        = "loan_payment"
	RecordAppSettings        = "app_settings"
	RecordBudgetThresholds   = "budget_thresholds"
	RecordTransfer           = "transfer"
	RecordIncomeTemplate     = "income_template"
	RecordExpectedIncome     = "expected_income"
	RecordReminderSettings   = "reminder_settings"
	RecordCategoryRule       = "category_rule"
	RecordExchangeRate       = "exchange_rate"
)

// Actions of the activity beyond the card log's.
const (
	LogSplit   = "split"
	LogDeleted = "deleted"
)

// ActivityKinds are the values of the activity's kind filter.
var ActivityKinds = append([]string{RecordExpense, RecordIncome, RecordAccount, RecordAccountTransaction, RecordCategory},
	append(LogEntityTypes[:len(LogEntityTypes):len(LogEntityTypes)], RecordBillTemplate, RecordBill, RecordBillPayment,
		RecordLoan, RecordLoanInstance, RecordLoanPayment, RecordAppSettings, RecordBudgetThresholds, RecordTransfer,
		RecordIncomeTemplate, RecordExpectedIncome, RecordReminderSettings, RecordCategoryRule, RecordExchangeRate)...)

// Activity is one entry of the activity: who changed which record how,
// appended in the transaction of the write and never changed. The card log
// (GET /credit-cards/logs) is the entries of card records.
type Activity struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	Actor     Actor     `json:"actor"`
	Source    string    `json:"source"`
	Kind      string    `json:"kind"`
	RecordID  string    `json:"record_id"`
	Action    string    `json:"action"`
	Summary   string    `json:"summary"`
	Amount    *Money    `json:"amount,omitempty"`
	// CreditCardID is the card of a card record's entry (the card log's
	// credit_card_id); nil for every other record.
	CreditCardID *string `json:"-"`
}

// ActivityFilter narrows GET /activity. From and Until bound created_at
// (Until exclusive); the route's days become them in the user's timezone.
type ActivityFilter struct {
	Actor   string // an actor kind
	ActorID string
	Kind    string
	Source  string
	From    time.Time
	Until   time.Time
}

// ActivityList is the list spec of GET /activity: newest first.
var ActivityList = ListSpec{Sorts: []string{"created_at"}, DefaultDesc: true}

// record appends an entry about a write in its transaction tx, made by the
// actor of ctx. A context no door marked is the server's own (SystemActor):
// every door (the API, MCP, pages, Telegram, the assistant) sets its actor
// before it reaches the service.
func (s *Service) record(ctx context.Context, tx Repo, userID string, a Activity) error {
	a.ID, a.CreatedAt, a.Source = NewID(), s.stamp(), writeSource(ctx)
	a.Summary += importNote(ctx)
	actor, ok := ActorOf(ctx)
	if !ok {
		actor = SystemActor
	}
	a.Actor = actor
	return tx.AppendActivity(ctx, userID, a)
}

// ListActivity returns a page of the user's activity. dateFrom and dateTo
// are days in the user's timezone, inclusive.
func (s *Service) ListActivity(ctx context.Context, userID string, f ActivityFilter, dateFrom, dateTo Date, p ListParams) (Page[Activity], error) {
	f.From, f.Until = s.dayBounds(ctx, userID, dateFrom, dateTo)
	items, total, err := s.store.Read().ListActivity(ctx, userID, f, p)
	return pageOf(items, total, err, p)
}

// LastWrites returns the newest n writes of one actor (an API key's or a
// connected app's id): what the keys and connected apps pages show.
func (s *Service) LastWrites(ctx context.Context, userID, actorID string, n int) ([]Activity, error) {
	if n < 1 || n > MaxLimit {
		n = DefaultLimit
	}
	items, _, err := s.store.Read().ListActivity(ctx, userID, ActivityFilter{ActorID: actorID},
		ListParams{Page: 1, Limit: n, SortBy: "created_at", Desc: true})
	if items == nil {
		items = []Activity{}
	}
	return items, err
}

// dayBounds turns inclusive days in the user's timezone into the instants
// [from, until) of a created_at filter; a zero day leaves its end open.
func (s *Service) dayBounds(ctx context.Context, userID string, dateFrom, dateTo Date) (from, until time.Time) {
	loc := s.location(ctx, userID)
	if !dateFrom.IsZero() {
		from = dateFrom.In(loc)
	}
	if !dateTo.IsZero() {
		until = dateTo.AddDays(1).In(loc)
	}
	return from, until
}

// maxQuoted bounds each text value a summary quotes, in characters, so an
// entry stays small whatever the record holds.
const maxQuoted = 60

// quoted is a text value for a summary: in quotes, cut to maxQuoted
// characters with an ellipsis.
func quoted(s string) string {
	if utf8.RuneCountInString(s) > maxQuoted {
		r := []rune(s)
		s = string(r[:maxQuoted]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// quotedOptional is an optional text value for a summary: quoted, or none.
func quotedOptional(s *string) string {
	if s == nil {
		return "none"
	}
	return quoted(*s)
}

// changes lists the fields, by JSON name, whose values differ between two
// versions of a record, as `name before → after`: amounts and dates as
// written on the wire, text in quotes (cut, see quoted), an absent value as
// none. Notes are only named, since they can be long. before and after are
// values of the same struct type.
func changes(before, after any, fields ...string) changeList {
	b, a := reflect.ValueOf(before), reflect.ValueOf(after)
	var c changeList
	for _, name := range fields {
		i, ok := jsonField(b.Type(), name)
		if !ok {
			panic("finance: " + b.Type().String() + " has no field " + name)
		}
		was, is := summaryValue(b.Field(i)), summaryValue(a.Field(i))
		label := strings.ReplaceAll(strings.TrimSuffix(name, "_id"), "_", " ")
		if name == "notes" {
			c.addField(label, was != is)
			continue
		}
		c.add(label, was, is)
	}
	return c
}

// jsonField is the index of t's field whose JSON name is name.
func jsonField(t reflect.Type, name string) (int, bool) {
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); tag == name {
			return i, true
		}
	}
	return 0, false
}

// summaryValue writes one field's value for a summary.
func summaryValue(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "none"
		}
		v = v.Elem()
	}
	switch x := v.Interface().(type) {
	case Money:
		return x.String()
	case Date:
		if x.IsZero() { // an optional date left out, as an end date is
			return "none"
		}
		return x.String()
	case fmt.Stringer:
		return x.String()
	}
	if v.Kind() == reflect.String {
		return quoted(v.String())
	}
	return fmt.Sprint(v.Interface())
}
