package finance

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Expected income statuses (domain.md "Recurring income and semi-monthly
// schedules").
const (
	ExpectedPending  = "expected"
	ExpectedReceived = "received"
	ExpectedSkipped  = "skipped"
)

// ExpectedIncomeStatuses are the statuses of expected income and the values
// of its list's status filter.
var ExpectedIncomeStatuses = []string{ExpectedPending, ExpectedReceived, ExpectedSkipped}

// IncomeTemplate is the recurring definition expected income is
// materialized from. AccountID is where a confirm records the income unless
// it names another.
type IncomeTemplate struct {
	ID           string  `json:"id"`
	Name         string  `json:"name"`
	Amount       Money   `json:"amount"`
	Currency     string  `json:"currency"` // ISO 4217
	CategoryID   string  `json:"category_id"`
	Category     string  `json:"category"` // computed: the category's name
	Frequency    string  `json:"frequency"`
	StartDate    Date    `json:"start_date"`
	DueDay       *int    `json:"due_day,omitempty"`        // month-based frequencies only
	SecondDueDay *int    `json:"second_due_day,omitempty"` // semimonthly only
	EndDate      Date    `json:"end_date,omitzero"`
	AccountID    *string `json:"account_id,omitempty"`
	Notes        *string `json:"notes,omitempty"`
	Status       string  `json:"status"`
	// GeneratedThrough is the last date through which occurrences have been
	// materialized; zero before the first generation.
	GeneratedThrough Date       `json:"-"`
	RemovedAt        *time.Time `json:"-"`
	CreatedAt        time.Time  `json:"created_at"`
	UpdatedAt        time.Time  `json:"updated_at"`
}

func (t IncomeTemplate) schedule() Recurrence {
	return Recurrence{Frequency: t.Frequency, StartDate: t.StartDate, DueDay: t.DueDay, SecondDueDay: t.SecondDueDay}
}

// ExpectedIncome is one occurrence of an income template. It keeps its own
// copy of the template's name, category and amount.
type ExpectedIncome struct {
	ID           string    `json:"id"`
	TemplateID   string    `json:"template_id"`
	Name         string    `json:"name"`
	CategoryID   string    `json:"category_id"`
	Category     string    `json:"category"` // computed: the category's name
	Amount       Money     `json:"amount"`
	Currency     string    `json:"currency"` // computed: the template's
	ExpectedDate Date      `json:"expected_date"`
	Status       string    `json:"status"`
	IncomeID     *string   `json:"income_id,omitempty"`
	AccountID    *string   `json:"account_id,omitempty"` // computed: the template's account; absent once it is removed
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// IncomeTemplateRepo is the persistence of income templates and expected income.
type IncomeTemplateRepo interface {
	InsertIncomeTemplate(ctx context.Context, userID string, t IncomeTemplate) error
	UpdateIncomeTemplate(ctx context.Context, userID string, t IncomeTemplate) error
	// IncomeTemplate returns a template with Category; a removed one is not found.
	IncomeTemplate(ctx context.Context, userID, id string) (IncomeTemplate, error)
	ListIncomeTemplates(ctx context.Context, userID string, f IncomeTemplateFilter, p ListParams) ([]IncomeTemplate, int, error)
	// IncomeTemplatesBehind returns the active templates of the user whose
	// occurrences through horizon (and their end date) are not all materialized.
	IncomeTemplatesBehind(ctx context.Context, userID string, horizon Date) ([]IncomeTemplate, error)
	MarkIncomeGenerated(ctx context.Context, userID, templateID string, through Date) error
	// InsertExpectedIncome stores new entries, skipping any whose (template,
	// expected date) already exists.
	InsertExpectedIncome(ctx context.Context, userID string, entries []ExpectedIncome) error
	// DeletePendingIncome deletes a template's entries still expected dated on
	// or after from.
	DeletePendingIncome(ctx context.Context, userID, templateID string, from Date) error
	ExpectedIncome(ctx context.Context, userID, id string) (ExpectedIncome, error)
	ListExpectedIncome(ctx context.Context, userID string, f ExpectedIncomeFilter, p ListParams) ([]ExpectedIncome, int, error)
	UpdateExpectedIncome(ctx context.Context, userID string, e ExpectedIncome) error
	// ExpectedIncomeTotal sums the amounts of the entries still expected
	// from from to to, by currency and expected date, with their number.
	ExpectedIncomeTotal(ctx context.Context, userID string, from, to Date) ([]DatedAmount, int, error)
}

// IncomeTemplateFilter narrows GET /income/templates.
type IncomeTemplateFilter struct {
	Status string // "" = active and paused
	Search string
}

// ExpectedIncomeFilter narrows GET /income/expected.
type ExpectedIncomeFilter struct {
	Status     string // "" = every entry
	DateFrom   Date   // on expected_date
	DateTo     Date
	TemplateID string
}

// List specs of the recurring income lists.
var (
	IncomeTemplateList = ListSpec{Sorts: []string{"name", "amount", "start_date", "created_at"}}
	ExpectedIncomeList = ListSpec{Sorts: []string{"expected_date", "amount", "created_at"}}
)

// IncomeTemplateRequest is the body of POST /income/templates and of PUT
// /income/templates/{id}. On PUT only the fields present change; status
// (active or paused) is read on PUT only.
type IncomeTemplateRequest struct {
	Name         Field[string] `json:"name"`
	Amount       Field[Money]  `json:"amount"`
	Currency     Field[string] `json:"currency"`
	Category     Field[string] `json:"category"`
	Frequency    Field[string] `json:"frequency"`
	StartDate    Field[Date]   `json:"start_date"`
	DueDay       Field[int]    `json:"due_day"`
	SecondDueDay Field[int]    `json:"second_due_day"`
	EndDate      Field[Date]   `json:"end_date"`
	AccountID    Field[string] `json:"account_id"`
	Notes        Field[string] `json:"notes"`
	Status       Field[string] `json:"status"`
}

// incomeTemplateDraft is a template request after the checks of its shape.
type incomeTemplateDraft struct {
	next           IncomeTemplate
	categoryName   string // "" when the category does not change
	accountChanged bool
	currencyNamed  bool // the request named a currency: an account does not choose it
}

// shape validates the fields present in r (all required ones on create) over
// cur, as of today, without looking at other records.
func (r IncomeTemplateRequest) shape(cur IncomeTemplate, create bool, today Date) (incomeTemplateDraft, error) {
	var v Validator
	d := incomeTemplateDraft{next: cur}
	t := &d.next
	sched := t.schedule()
	recurringRequest{Name: r.Name, Category: r.Category, Frequency: r.Frequency, Currency: r.Currency, Amount: r.Amount,
		StartDate: r.StartDate, EndDate: r.EndDate, DueDay: r.DueDay, SecondDueDay: r.SecondDueDay}.
		shape(&v, recurringTerms{name: &t.Name, amount: &t.Amount, currency: &t.Currency, schedule: &sched, end: &t.EndDate, categoryTo: &d.categoryName},
			create, today, "income templates")
	t.Frequency, t.StartDate, t.DueDay, t.SecondDueDay = sched.Frequency, sched.StartDate, sched.DueDay, sched.SecondDueDay
	if r.AccountID.Set {
		t.AccountID = nil
		if Readable(&v, "account_id", r.AccountID) {
			if id := strings.TrimSpace(r.AccountID.Value); id != "" {
				if !ValidID(id) {
					v.Add("account_id", "must be the id of one of your active accounts")
				}
				t.AccountID = &id
			}
		}
		d.accountChanged = !samePtr(t.AccountID, cur.AccountID)
	}
	d.currencyNamed = r.Currency.Has()
	if r.Notes.Set {
		t.Notes = v.OptionalText("notes", r.Notes, MaxNotes)
	}
	if !create && r.Status.Set {
		t.Status = requiredEnum(&v, "status", r.Status, strings.Join(BillTemplateStatuses, ", "),
			func(s string) bool { return slices.Contains(BillTemplateStatuses, s) })
		if t.Status == "" {
			t.Status = cur.Status
		}
	}
	return d, v.Err()
}

// resolve checks the income category when named and a newly named account.
func (d *incomeTemplateDraft) resolve(ctx context.Context, tx Repo, userID string) error {
	var v Validator
	t := &d.next
	if d.categoryName != "" {
		cat, err := activeCategory(ctx, tx, &v, "category", userID, KindIncome, d.categoryName)
		if err != nil {
			return err
		}
		t.CategoryID, t.Category = cat.ID, cat.Name
	}
	if t.AccountID == nil || v.Has("account_id") {
		return v.Err()
	}
	var a Account
	var err error
	if d.accountChanged {
		if a, _, err = activeAccount(ctx, tx, &v, "account_id", userID, *t.AccountID); err != nil || v.Has("account_id") {
			return cmp.Or(err, v.Err())
		}
	} else if a, err = tx.Account(ctx, userID, *t.AccountID); err != nil {
		return err
	}
	// Income into an account arrives in the account's currency: a template
	// naming none takes the account's, and one naming another is refused.
	switch {
	case d.accountChanged && !d.currencyNamed:
		t.Currency = a.Currency
		checkDecimals(&v, "amount", t.Amount, currencyOf(a.Currency))
	case t.Currency != a.Currency:
		v.Add("currency", fmt.Sprintf("must be %s, the currency of the account %s: income into it arrives in it", a.Currency, quoted(a.Name)))
	}
	return v.Err()
}

// ListIncomeTemplates returns a page of the user's templates (removed ones never).
func (s *Service) ListIncomeTemplates(ctx context.Context, userID string, f IncomeTemplateFilter, p ListParams) (Page[IncomeTemplate], error) {
	items, total, err := s.store.Read().ListIncomeTemplates(ctx, userID, f, p)
	return pageOf(items, total, err, p)
}

// GetIncomeTemplate returns one template; a removed one is not found.
func (s *Service) GetIncomeTemplate(ctx context.Context, userID, id string) (IncomeTemplate, error) {
	return s.store.Read().IncomeTemplate(ctx, userID, id)
}

// CreateIncomeTemplate stores a template and materializes its expected
// income through the horizon before it commits.
func (s *Service) CreateIncomeTemplate(ctx context.Context, userID string, r IncomeTemplateRequest) (IncomeTemplate, error) {
	today := s.today(ctx, userID)
	now := s.stamp()
	d, err := r.shape(IncomeTemplate{ID: NewID(), Status: TemplateActive, Currency: s.currency(ctx, userID), CreatedAt: now, UpdatedAt: now}, true, today)
	if err != nil {
		return IncomeTemplate{}, err
	}
	var out IncomeTemplate
	err = s.store.Write(ctx, func(tx Repo) error {
		if err := d.resolve(ctx, tx, userID); err != nil {
			return err
		}
		if err := tx.InsertIncomeTemplate(ctx, userID, d.next); err != nil {
			return err
		}
		if err := s.generateExpectedIncome(ctx, tx, userID, BillHorizon(today, Date{})); err != nil {
			return err
		}
		if out, err = tx.IncomeTemplate(ctx, userID, d.next.ID); err != nil {
			return err
		}
		return s.recordIncomeTemplate(ctx, tx, userID, LogCreated, out, fmt.Sprintf("Income template %s of %s, %s from %s",
			quoted(out.Name), out.Amount, out.Frequency, out.StartDate))
	})
	return out, err
}

// UpdateIncomeTemplate changes the present fields; the template's entries
// still expected from today on are made again from the new terms (domain.md
// "Changing and deleting a template"). paused stops generation; active
// resumes it from today.
func (s *Service) UpdateIncomeTemplate(ctx context.Context, userID, id string, r IncomeTemplateRequest) (IncomeTemplate, error) {
	today := s.today(ctx, userID)
	var out IncomeTemplate
	err := s.store.Write(ctx, func(tx Repo) error {
		cur, err := tx.IncomeTemplate(ctx, userID, id)
		if err != nil {
			return err
		}
		d, err := r.shape(cur, false, today)
		if err != nil {
			return err
		}
		if err := d.resolve(ctx, tx, userID); err != nil {
			return err
		}
		if err := changeCurrency(ctx, tx, userID, RecordIncomeTemplate, id, cur.Name, cur.Currency, d.next.Currency); err != nil {
			return err
		}
		if err := tx.DeletePendingIncome(ctx, userID, id, today); err != nil {
			return err
		}
		t := &d.next
		t.GeneratedThrough = resumeFrom(t.GeneratedThrough, cur.Status == TemplatePaused, t.Status == TemplateActive, today)
		t.UpdatedAt = s.stamp()
		if err := tx.UpdateIncomeTemplate(ctx, userID, *t); err != nil {
			return err
		}
		if err := s.generateExpectedIncome(ctx, tx, userID, BillHorizon(today, Date{})); err != nil {
			return err
		}
		if out, err = tx.IncomeTemplate(ctx, userID, id); err != nil {
			return err
		}
		c := changes(cur, out, "name", "amount", "currency", "category", "frequency", "start_date", "due_day", "second_due_day", "end_date",
			"account_id", "notes", "status")
		if len(c) == 0 {
			return nil
		}
		return s.recordIncomeTemplate(ctx, tx, userID, LogUpdated, out, fmt.Sprintf("Income template %s: %s", quoted(out.Name), c))
	})
	return out, err
}

// DeleteIncomeTemplate removes a template and its entries still expected
// from today on; received, skipped and earlier entries stay.
func (s *Service) DeleteIncomeTemplate(ctx context.Context, userID, id string) (IncomeTemplate, error) {
	today := s.today(ctx, userID)
	var out IncomeTemplate
	err := s.store.Write(ctx, func(tx Repo) error {
		t, err := tx.IncomeTemplate(ctx, userID, id)
		if err != nil {
			return err
		}
		if err := tx.DeletePendingIncome(ctx, userID, id, today); err != nil {
			return err
		}
		now := s.stamp()
		t.Status, t.RemovedAt, t.UpdatedAt = TemplateRemoved, &now, now
		out = t
		if err := tx.UpdateIncomeTemplate(ctx, userID, t); err != nil {
			return err
		}
		return s.recordIncomeTemplate(ctx, tx, userID, LogDeleted, t, fmt.Sprintf("Income template %s of %s, %s, deleted",
			quoted(t.Name), t.Amount, t.Frequency))
	})
	return out, err
}

// recordIncomeTemplate appends the entry of a write on the income template t.
func (s *Service) recordIncomeTemplate(ctx context.Context, tx Repo, userID, action string, t IncomeTemplate, summary string) error {
	return s.record(ctx, tx, userID, Activity{Kind: RecordIncomeTemplate, RecordID: t.ID, Action: action, Summary: summary, Amount: &t.Amount})
}

// recordExpectedIncome appends the entry of a confirm or a skip of e.
func (s *Service) recordExpectedIncome(ctx context.Context, tx Repo, userID string, e ExpectedIncome, summary string) error {
	return s.record(ctx, tx, userID, Activity{Kind: RecordExpectedIncome, RecordID: e.ID, Action: LogUpdated, Summary: summary, Amount: &e.Amount})
}

// GenerateExpectedIncome materializes the entries due through the horizon
// of a request on today with dateTo (zero: none). It writes only when a
// template is behind.
func (s *Service) GenerateExpectedIncome(ctx context.Context, userID string, dateTo Date) error {
	horizon := BillHorizon(s.today(ctx, userID), dateTo)
	behind, err := s.store.Read().IncomeTemplatesBehind(ctx, userID, horizon)
	if err != nil || len(behind) == 0 {
		return err
	}
	return s.store.Write(ctx, func(tx Repo) error { return s.generateExpectedIncome(ctx, tx, userID, horizon) })
}

// generateExpectedIncome creates, in tx, the missing entries of every active
// template through horizon (and its end date). Entries are unique per
// (template, expected date), so two requests generating at once create each
// occurrence once.
func (s *Service) generateExpectedIncome(ctx context.Context, tx Repo, userID string, horizon Date) error {
	templates, err := tx.IncomeTemplatesBehind(ctx, userID, horizon)
	if err != nil {
		return err
	}
	for _, t := range templates {
		through := horizon
		if !t.EndDate.IsZero() && t.EndDate.Before(through) {
			through = t.EndDate
		}
		dates := t.schedule().Occurrences(t.GeneratedThrough, through)
		if len(dates) > 0 {
			now := s.stamp()
			entries := make([]ExpectedIncome, len(dates))
			for i, d := range dates {
				entries[i] = ExpectedIncome{ID: NewID(), TemplateID: t.ID, Name: t.Name, CategoryID: t.CategoryID,
					Amount: t.Amount, ExpectedDate: d, Status: ExpectedPending, CreatedAt: now, UpdatedAt: now}
			}
			if err := tx.InsertExpectedIncome(ctx, userID, entries); err != nil {
				return err
			}
		}
		if err := tx.MarkIncomeGenerated(ctx, userID, t.ID, through); err != nil {
			return err
		}
	}
	return nil
}

// ListExpectedIncome returns a page of the user's expected income, after
// materializing what is due through the horizon (or a later dateTo, at most
// a year ahead).
func (s *Service) ListExpectedIncome(ctx context.Context, userID string, f ExpectedIncomeFilter, p ListParams) (Page[ExpectedIncome], error) {
	if err := s.GenerateExpectedIncome(ctx, userID, f.DateTo); err != nil {
		return Page[ExpectedIncome]{}, err
	}
	items, total, err := s.store.Read().ListExpectedIncome(ctx, userID, f, p)
	return pageOf(items, total, err, p)
}

// GetExpectedIncome returns one entry.
func (s *Service) GetExpectedIncome(ctx context.Context, userID, id string) (ExpectedIncome, error) {
	return s.store.Read().ExpectedIncome(ctx, userID, id)
}

// ConfirmIncomeRequest is the body of POST /income/expected/{id}/confirm:
// each field overrides what the entry and its template say.
type ConfirmIncomeRequest struct {
	Amount    Field[Money]  `json:"amount"`
	Date      Field[Date]   `json:"date"`
	AccountID Field[string] `json:"account_id"`
}

// ConfirmExpectedIncome records the entry's income, with its account line
// when it goes to an account, and marks the entry received, in one
// transaction. An entry already received with an active income is answered
// as it is: confirming twice records one income.
func (s *Service) ConfirmExpectedIncome(ctx context.Context, userID, id string, r ConfirmIncomeRequest) (ExpectedIncome, error) {
	var out ExpectedIncome
	err := s.store.Write(ctx, func(tx Repo) error {
		e, err := tx.ExpectedIncome(ctx, userID, id)
		if err != nil {
			return err
		}
		if e.Status == ExpectedReceived {
			in, err := tx.Income(ctx, userID, *e.IncomeID)
			if err != nil {
				return err
			}
			if in.Status != StatusVoided {
				out = e
				return nil
			}
		}
		var v Validator
		amount, date := e.Amount, e.ExpectedDate
		if r.Amount.Set {
			amount = v.RequiredMoney("amount", r.Amount)
		}
		if r.Date.Set {
			date = v.RequiredDate("date", r.Date)
		}
		accountID := ""
		if e.AccountID != nil {
			accountID = *e.AccountID
		}
		if r.AccountID.Set {
			accountID = ""
			if Readable(&v, "account_id", r.AccountID) {
				accountID = strings.TrimSpace(r.AccountID.Value)
				if accountID != "" && !ValidID(accountID) {
					v.Add("account_id", "must be the id of one of your active accounts")
				}
			}
		}
		if err := v.Err(); err != nil {
			return err
		}
		if accountID != "" {
			if _, _, err := activeAccount(ctx, tx, &v, "account_id", userID, accountID); err != nil {
				return err
			}
			if err := v.Err(); err != nil {
				return err
			}
		}
		tmpl, err := tx.IncomeTemplate(ctx, userID, e.TemplateID)
		if err != nil {
			return err
		}
		name := e.Name
		// In the template's currency, or the account's when it arrives in one.
		in := Income{ID: NewID(), Amount: amount, Date: date, Description: &name, CategoryID: e.CategoryID,
			Category: e.Category, Status: IncomeActive, Currency: tmpl.Currency}
		if err := settleIncomeCurrency(ctx, tx, userID, &v, &in, accountID, false); err != nil {
			return err
		}
		checkDecimals(&v, "amount", in.Amount, currencyOf(in.Currency))
		if err := v.Err(); err != nil {
			return err
		}
		if err := s.insertIncome(ctx, tx, userID, &in, accountID); err != nil {
			return err
		}
		e.Status, e.IncomeID, e.UpdatedAt = ExpectedReceived, &in.ID, s.stamp()
		if err := tx.UpdateExpectedIncome(ctx, userID, e); err != nil {
			return err
		}
		if out, err = tx.ExpectedIncome(ctx, userID, id); err != nil {
			return err
		}
		return s.recordExpectedIncome(ctx, tx, userID, out, fmt.Sprintf("Received %s due %s as income of %s on %s",
			quoted(out.Name), out.ExpectedDate, in.Amount, in.Date))
	})
	return out, err
}

// SkipExpectedIncome marks an expected entry skipped; a skipped one is
// answered as it is, and a received one is refused while its income stands.
func (s *Service) SkipExpectedIncome(ctx context.Context, userID, id string) (ExpectedIncome, error) {
	var out ExpectedIncome
	err := s.store.Write(ctx, func(tx Repo) error {
		e, err := tx.ExpectedIncome(ctx, userID, id)
		if err != nil {
			return err
		}
		switch e.Status {
		case ExpectedSkipped:
			out = e
			return nil
		case ExpectedReceived:
			in, err := tx.Income(ctx, userID, *e.IncomeID)
			if err != nil {
				return err
			}
			if in.Status != StatusVoided {
				return InvalidStatus("expected income is received as income %s; void that income first to skip it", in.ID)
			}
		}
		e.Status, e.IncomeID, e.UpdatedAt = ExpectedSkipped, nil, s.stamp()
		if err := tx.UpdateExpectedIncome(ctx, userID, e); err != nil {
			return err
		}
		if out, err = tx.ExpectedIncome(ctx, userID, id); err != nil {
			return err
		}
		return s.recordExpectedIncome(ctx, tx, userID, out, fmt.Sprintf("Skipped %s of %s due %s",
			quoted(out.Name), out.Amount, out.ExpectedDate))
	})
	return out, err
}

// ExpectedIncomeMonth is what is still expected in the month of today: the
// entries not yet received or skipped and their total in the reporting
// Currency, each entry converted at the rate of its expected date (the
// latest rate on or before it).
type ExpectedIncomeMonth struct {
	Count    int    `json:"count"`
	Amount   Money  `json:"amount"`
	Currency string `json:"currency"`
	ConversionNote
}

// ExpectedIncomeThisMonth sums the entries still expected in today's month.
func (s *Service) ExpectedIncomeThisMonth(ctx context.Context, userID string) (ExpectedIncomeMonth, error) {
	if err := s.GenerateExpectedIncome(ctx, userID, Date{}); err != nil {
		return ExpectedIncomeMonth{}, err
	}
	today := s.today(ctx, userID)
	from, to := MonthAdd(today, 0, 1), MonthAdd(today, 0, 31)
	groups, n, err := s.store.Read().ExpectedIncomeTotal(ctx, userID, from, to)
	if err != nil {
		return ExpectedIncomeMonth{}, err
	}
	out := ExpectedIncomeMonth{Count: n, Currency: s.currency(ctx, userID)}
	conv, err := s.sumConverter(ctx, userID, out.Currency, groups)
	if err != nil {
		return ExpectedIncomeMonth{}, err
	}
	out.Amount, _ = conv.Total(ctx, groups)
	out.ConversionNote = conv.NoteOf(ctx, groups)
	return out, conv.Err()
}
