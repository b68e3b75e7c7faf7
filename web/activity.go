package web

// The Activity page: who did what (docs/domain.md "Activity: who did
// what"). Every write of the user's ledger, newest first, with who made it,
// through which door, what changed and a link to the record; filtered as
// GET /activity filters. The API keys and Connected apps pages show each
// credential's last writes with a link here.

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// ActivityPath is the Activity page.
const ActivityPath = "/activity"

// lastWrites is how many of a credential's writes the API keys and
// Connected apps pages show.
const lastWrites = 5

// activityQuery is the page's filter, with the API's query names.
type activityQuery struct {
	Actor, ActorID, Kind, Source, DateFrom, DateTo string
}

func (f activityQuery) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"actor": f.Actor, "actorId": f.ActorID, "kind": f.Kind, "source": f.Source,
		"dateFrom": f.DateFrom, "dateTo": f.DateTo} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// activityEntry is one entry as the pages show it.
type activityEntry struct {
	finance.Activity
	When string
	Link string // the record's page; "" when it has none (deleted, say)
}

type activityData struct {
	Show         display
	Path         string
	Filter       activityQuery
	FilterFields map[string]string
	Actors       []choice
	Kinds        []choice
	Sources      []choice
	Entries      []activityEntry
	Pager        pager
}

// activityWords are the actor kinds, doors and record kinds whose words
// are not their label; activityWord does the rest.
var activityWords = map[string]string{
	finance.LogSOA:   "Statement",
	finance.ActorWeb: "Web app", finance.ActorApp: "Signed-in app", finance.ActorAPIKey: "API key",
	finance.ActorOAuthClient: "Connected app", finance.ActorTelegram: "Telegram", finance.ActorAssistant: "Assistant",
	finance.ActorSystem: "Finance itself", finance.ActorUnknown: "Not recorded",
	finance.WriteManual: "Web, API or chat", finance.WriteAgent: "AI agent (MCP)",
}

// activityWord is an actor kind, a door or a record kind in words.
func activityWord(v string) string {
	if w, ok := activityWords[v]; ok {
		return w
	}
	return label(v)
}

func activityChoices(values ...string) []choice {
	out := make([]choice, len(values))
	for i, v := range values {
		out[i] = choice{Value: v, Label: activityWord(v)}
	}
	return out
}

func (s *Site) activityPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, show, ok, err := s.signedInShow(w, r.Request)
	if !ok || err != nil {
		return err
	}
	q := r.URL.Query()
	d := activityData{Show: show, Path: ActivityPath, FilterFields: map[string]string{},
		Filter: activityQuery{Actor: q.Get("actor"), ActorID: q.Get("actorId"), Kind: q.Get("kind"), Source: q.Get("source"),
			DateFrom: q.Get("dateFrom"), DateTo: q.Get("dateTo")},
		Actors: activityChoices(finance.ActorKinds...), Kinds: activityChoices(finance.ActivityKinds...),
		Sources: activityChoices(finance.WriteSources...)}
	p := pageView{Title: "Activity", Nav: "settings", User: &u, CSRF: auth.CSRFToken(sid), Data: &d}

	lq := d.Filter.query()
	if pg := q.Get("page"); pg != "" {
		lq.Set("page", pg)
	}
	var v finance.Validator
	params := listPage(&v, lq, finance.ActivityList)
	f := finance.ActivityFilter{
		Actor:   queryparam.Enum(&v, lq, "actor", finance.ActorKinds...),
		ActorID: queryparam.ID(&v, lq, "actorId"),
		Kind:    queryparam.Enum(&v, lq, "kind", finance.ActivityKinds...),
		Source:  queryparam.Enum(&v, lq, "source", finance.WriteSources...),
	}
	from, to := queryparam.DateRange(&v, lq)
	if err := v.Err(); err != nil {
		var ve *finance.ValidationError
		errors.As(err, &ve)
		d.FilterFields = ve.Fields
		if err := filterRefused(&p, err); err != nil {
			return err
		}
		return s.render(w, r.Request, "activity", p)
	}
	list, err := s.ledger.ListActivity(r.Context(), u.ID, f, from, to, params)
	if err != nil {
		return err
	}
	d.Entries = s.activityEntries(r.Context(), u.ID, list.Items)
	d.Pager = newPager(ActivityPath, d.Filter.query(), list.Pagination)
	return s.render(w, r.Request, "activity", p)
}

// activityEntries are entries as the pages show them: the time in the
// user's timezone and the link to the record.
func (s *Site) activityEntries(ctx context.Context, userID string, items []finance.Activity) []activityEntry {
	loc := s.userLocation(ctx, userID)
	out := make([]activityEntry, len(items))
	for i, a := range items {
		out[i] = activityEntry{Activity: a, When: a.CreatedAt.In(loc).Format("2006-01-02 15:04"), Link: recordLink(a)}
	}
	return out
}

// userLocation is the user's timezone, UTC if it cannot be read.
func (s *Site) userLocation(ctx context.Context, userID string) *time.Location {
	st, err := s.ledger.AppSettings(ctx, userID)
	if err != nil {
		return time.UTC
	}
	loc, err := finance.LoadTimezone(st.Timezone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// recordLink is the page of the record an entry is about: the record's own
// page where it has one, else the list it is on; none for a record the
// write deleted.
func recordLink(a finance.Activity) string {
	if a.Action == finance.LogDeleted {
		return ""
	}
	card := func() string {
		if a.CreditCardID == nil {
			return CardsPath
		}
		return CardsPath + "/" + *a.CreditCardID
	}
	switch a.Kind {
	case finance.RecordExpense:
		return ExpensesPath + "/" + a.RecordID + "/edit"
	case finance.RecordIncome:
		return IncomePath + "/" + a.RecordID + "/edit"
	case finance.RecordAccount:
		return AccountsPath + "/" + a.RecordID
	case finance.RecordAccountTransaction:
		return AccountLinesPath
	case finance.RecordCategory:
		return CategoriesPath
	case finance.LogCreditCard:
		return CardsPath + "/" + a.RecordID
	case finance.LogCardTransaction, finance.LogSOAPayment:
		return card()
	case finance.LogSOA:
		return StatementsPath + "/" + a.RecordID
	case finance.LogInstallmentPlan:
		return InstallmentsPath + "/" + a.RecordID
	case finance.RecordBillTemplate:
		return BillTemplatesPath + "/" + a.RecordID
	case finance.RecordBill:
		return BillsPath + "/" + a.RecordID
	case finance.RecordBillPayment:
		return BillsPath
	case finance.RecordLoan:
		return LoansPath + "/" + a.RecordID
	case finance.RecordLoanInstance, finance.RecordLoanPayment:
		return LoansPath
	case finance.RecordAppSettings:
		return AppSettingsPath
	case finance.RecordBudgetThresholds:
		return BudgetsPath
	case finance.RecordTransfer:
		return TransfersPath + "/" + a.RecordID
	case finance.RecordIncomeTemplate:
		return RecurringIncomePath + "/" + a.RecordID
	case finance.RecordExpectedIncome:
		return RecurringIncomePath
	case finance.RecordReminderSettings:
		return RemindersPath
	case finance.RecordCategoryRule:
		return CategoryRulesPath
	case finance.RecordExchangeRate:
		return ExchangeRatesPath
	}
	return ""
}

// recentWrites is a credential's last writes, for the API keys and
// Connected apps pages, with the link to all of them on the Activity page.
type recentWrites struct {
	Entries []activityEntry
	All     string
}

func (s *Site) recentWrites(ctx context.Context, userID, credentialID string) (recentWrites, error) {
	items, err := s.ledger.LastWrites(ctx, userID, credentialID, lastWrites)
	if err != nil {
		return recentWrites{}, err
	}
	return recentWrites{Entries: s.activityEntries(ctx, userID, items),
		All: withQuery(ActivityPath, url.Values{"actorId": {credentialID}})}, nil
}
