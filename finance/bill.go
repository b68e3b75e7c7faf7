package finance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Bill template statuses (domain.md §2.10). A removed template is kept in
// the database for the instances that outlive it, and answers 404 everywhere.
const (
	TemplateActive  = "active"
	TemplatePaused  = "paused"
	TemplateRemoved = "removed"
)

// BillTemplateStatuses are the values a template's status (and the template
// list's status filter) takes.
var BillTemplateStatuses = []string{TemplateActive, TemplatePaused}

// BillTemplate is the recurring definition bills are materialized from. The
// default payment fields are what a payment uses when it names none.
type BillTemplate struct {
	ID                   string  `json:"id"`
	Name                 string  `json:"name"`
	Amount               Money   `json:"amount"`
	Currency             string  `json:"currency"` // ISO 4217: what is due is in it
	CategoryID           string  `json:"category_id"`
	Category             string  `json:"category"` // computed: the category's name
	Frequency            string  `json:"frequency"`
	StartDate            Date    `json:"start_date"`
	DueDay               *int    `json:"due_day,omitempty"`        // month-based frequencies only
	SecondDueDay         *int    `json:"second_due_day,omitempty"` // semimonthly only
	EndDate              Date    `json:"end_date,omitzero"`
	DefaultPaymentMethod *string `json:"default_payment_method,omitempty"`
	DefaultAccountID     *string `json:"default_account_id,omitempty"`
	DefaultCreditCardID  *string `json:"default_credit_card_id,omitempty"`
	Notes                *string `json:"notes,omitempty"`
	Status               string  `json:"status"`
	// GeneratedThrough is the last date through which occurrences have been
	// materialized; zero before the first generation.
	GeneratedThrough Date       `json:"-"`
	RemovedAt        *time.Time `json:"-"`
	CreatedAt        time.Time  `json:"created_at"`
	UpdatedAt        time.Time  `json:"updated_at"`
}

// schedule is the template's terms of recurrence.
func (t BillTemplate) schedule() Recurrence {
	return Recurrence{Frequency: t.Frequency, StartDate: t.StartDate, DueDay: t.DueDay, SecondDueDay: t.SecondDueDay}
}

// Occurrences returns the template's due dates after `after` (zero: from
// the first) through `through`, oldest first (Recurrence.Occurrences).
func (t BillTemplate) Occurrences(after, through Date) []Date {
	return t.schedule().Occurrences(after, through)
}

// BillHorizon is the last due date materialized for a request on today
// (§2.10): the end of next month, or the request's dateTo when later, capped
// at today + 12 months.
func BillHorizon(today, dateTo Date) Date {
	h := MonthAdd(today, 1, 31)
	if dateTo.After(h) {
		h = dateTo
		if limit := MonthAdd(today, 12, today.Day()); h.After(limit) {
			h = limit
		}
	}
	return h
}

// BillRepo is the persistence of bill templates, instances and payments.
type BillRepo interface {
	InsertBillTemplate(ctx context.Context, userID string, t BillTemplate) error
	UpdateBillTemplate(ctx context.Context, userID string, t BillTemplate) error
	// BillTemplate returns a template with Category; a removed one is not found.
	BillTemplate(ctx context.Context, userID, id string) (BillTemplate, error)
	ListBillTemplates(ctx context.Context, userID string, f BillTemplateFilter, p ListParams) ([]BillTemplate, int, error)
	// BillsBehind reports whether any active template of the user has
	// occurrences through horizon (and its end date) not yet materialized.
	BillsBehind(ctx context.Context, userID string, horizon Date) (bool, error)
	// TemplatesBehind returns those templates.
	TemplatesBehind(ctx context.Context, userID string, horizon Date) ([]BillTemplate, error)
	// MarkGenerated records that a template's occurrences exist through through.
	MarkGenerated(ctx context.Context, userID, templateID string, through Date) error
	// InsertBills stores new instances, skipping any whose (template,
	// scheduled date) already exists.
	InsertBills(ctx context.Context, userID string, bills []Bill) error
	// DeleteUntouchedBills deletes a template's instances due on or after
	// today that are unpaid, have never had a payment and were never edited,
	// and returns how many.
	DeleteUntouchedBills(ctx context.Context, userID, templateID string, today Date) (int, error)

	// Bill returns an instance with Category and its template's default
	// payment fields; the derived fields are left for the caller.
	Bill(ctx context.Context, userID, id string) (Bill, error)
	ListBills(ctx context.Context, userID string, f BillFilter, p ListParams) ([]Bill, int, error)
	UpdateBill(ctx context.Context, userID string, b Bill) error
	// BillPaidTotal sums an instance's posted payments.
	BillPaidTotal(ctx context.Context, billID string) (Money, error)
	// BillTotals sums the instances due from from to to, and the overdue
	// ones of any month, as of today, per currency (by code).
	BillTotals(ctx context.Context, userID string, from, to, today, dueSoonEnd Date) ([]BillTotals, error)

	InsertBillPayment(ctx context.Context, userID string, p BillPayment) error
	UpdateBillPayment(ctx context.Context, userID string, p BillPayment) error
	BillPayment(ctx context.Context, userID, id string) (BillPayment, error)
	ListBillPayments(ctx context.Context, userID, billID string, f BillPaymentFilter, p ListParams) ([]BillPayment, int, error)
}

// BillTemplateFilter narrows GET /bills/templates.
type BillTemplateFilter struct {
	Status   string // "" = active and paused
	Search   string
	Category string // a name, archived categories included
}

// BillTemplateList is the list spec of GET /bills/templates (§1.5).
var BillTemplateList = ListSpec{Sorts: []string{"name", "amount", "start_date", "created_at"}}

// MaxStartDaysBack bounds how far back a template's start date may be set.
const MaxStartDaysBack = 366

// BillTemplateRequest is the body of POST /bills/templates and of PUT
// /bills/templates/{id}. On PUT only the fields present change; status
// (active or paused) is read on PUT only.
type BillTemplateRequest struct {
	Name                 Field[string] `json:"name"`
	Amount               Field[Money]  `json:"amount"`
	Currency             Field[string] `json:"currency"`
	Category             Field[string] `json:"category"`
	Frequency            Field[string] `json:"frequency"`
	StartDate            Field[Date]   `json:"start_date"`
	DueDay               Field[int]    `json:"due_day"`
	SecondDueDay         Field[int]    `json:"second_due_day"`
	EndDate              Field[Date]   `json:"end_date"`
	DefaultPaymentMethod Field[string] `json:"default_payment_method"`
	DefaultAccountID     Field[string] `json:"default_account_id"`
	DefaultCreditCardID  Field[string] `json:"default_credit_card_id"`
	Notes                Field[string] `json:"notes"`
	Status               Field[string] `json:"status"`
}

// templateDraft is a template request after the checks of its shape: the
// merged template, the category name to resolve ("" when it does not
// change), and whether the default payment target changed.
type templateDraft struct {
	next          BillTemplate
	categoryName  string
	targetChanged bool
}

// shape validates the fields present in r (all required ones on create) over
// cur, as of today, without looking at other records.
func (r BillTemplateRequest) shape(cur BillTemplate, create bool, today Date) (templateDraft, error) {
	var v Validator
	d := templateDraft{next: cur}
	t := &d.next
	sched := t.schedule()
	recurringRequest{Name: r.Name, Category: r.Category, Frequency: r.Frequency, Currency: r.Currency, Amount: r.Amount,
		StartDate: r.StartDate, EndDate: r.EndDate, DueDay: r.DueDay, SecondDueDay: r.SecondDueDay}.
		shape(&v, recurringTerms{name: &t.Name, amount: &t.Amount, currency: &t.Currency, schedule: &sched, end: &t.EndDate, categoryTo: &d.categoryName},
			create, today, "bills")
	t.Frequency, t.StartDate, t.DueDay, t.SecondDueDay = sched.Frequency, sched.StartDate, sched.DueDay, sched.SecondDueDay
	d.targetChanged = r.shapeDefaults(&v, t, cur, create)
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

// shapeDefaults reads the default payment fields like an expense's payment
// fields (§2.4), all of them optional, and reports whether the account or
// card they name changed.
func (r BillTemplateRequest) shapeDefaults(v *Validator, t *BillTemplate, cur BillTemplate, create bool) bool {
	if create || r.DefaultPaymentMethod.Set {
		t.DefaultPaymentMethod = nil
		if r.DefaultPaymentMethod.Set && !r.DefaultPaymentMethod.Null {
			method := r.DefaultPaymentMethod
			if m, ok := ParsePaymentMethod(method.Value); ok && method.Has() {
				method.Value = m
			}
			if m := requiredEnum(v, "default_payment_method", method, strings.Join(PaymentMethods, ", "),
				func(s string) bool { return slices.Contains(PaymentMethods, s) }); m != "" {
				t.DefaultPaymentMethod = &m
			}
		}
	}
	if v.Has("default_payment_method") {
		return false
	}
	m := ""
	if t.DefaultPaymentMethod != nil {
		m = *t.DefaultPaymentMethod
	}
	curMethod := ""
	if cur.DefaultPaymentMethod != nil {
		curMethod = *cur.DefaultPaymentMethod
	}
	changed := m != curMethod
	if m == "" {
		for _, f := range []struct {
			name  string
			field Field[string]
		}{{"default_account_id", r.DefaultAccountID}, {"default_credit_card_id", r.DefaultCreditCardID}} {
			if f.field.Set && !f.field.Null {
				v.Add(f.name, "must be null or absent without a default_payment_method")
			}
		}
		t.DefaultAccountID, t.DefaultCreditCardID = nil, nil
		return false
	}
	t.DefaultAccountID = methodTarget(v, "default_account_id", r.DefaultAccountID, cur.DefaultAccountID,
		"default_payment_method", m, m == MethodAccountDebit, changed, "accounts")
	t.DefaultCreditCardID = methodTarget(v, "default_credit_card_id", r.DefaultCreditCardID, cur.DefaultCreditCardID,
		"default_payment_method", m, m == MethodCreditCard, changed, "credit cards")
	return create || changed || !samePtr(t.DefaultAccountID, cur.DefaultAccountID) || !samePtr(t.DefaultCreditCardID, cur.DefaultCreditCardID)
}

func samePtr[T comparable](a, b *T) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// resolve checks d against the user's records: the category when named and
// the default account or card when it changed. It fills the category.
func (c *refs) resolveTemplate(ctx context.Context, v *Validator, d *templateDraft) error {
	t := &d.next
	if d.categoryName != "" {
		cat, ok, err := c.expenseCategory(ctx, v, "category", d.categoryName)
		if err != nil {
			return err
		}
		if ok {
			t.CategoryID, t.Category = cat.ID, cat.Name
		}
	}
	if !d.targetChanged {
		return nil
	}
	if t.DefaultAccountID != nil {
		if _, _, err := c.activeAccount(ctx, v, "default_account_id", *t.DefaultAccountID); err != nil {
			return err
		}
	}
	if t.DefaultCreditCardID != nil {
		if _, _, err := c.activeCard(ctx, v, "default_credit_card_id", *t.DefaultCreditCardID); err != nil {
			return err
		}
	}
	return nil
}

// ListBillTemplates returns a page of the user's templates (removed ones never).
func (s *Service) ListBillTemplates(ctx context.Context, userID string, f BillTemplateFilter, p ListParams) (Page[BillTemplate], error) {
	items, total, err := s.store.Read().ListBillTemplates(ctx, userID, f, p)
	return pageOf(items, total, err, p)
}

// GetBillTemplate returns one template; a removed one is not found.
func (s *Service) GetBillTemplate(ctx context.Context, userID, id string) (BillTemplate, error) {
	return s.store.Read().BillTemplate(ctx, userID, id)
}

// CreateBillTemplate stores a template and, before it commits, materializes
// its instances through the horizon, so the reply's next list shows them.
func (s *Service) CreateBillTemplate(ctx context.Context, userID string, r BillTemplateRequest) (BillTemplate, error) {
	today := s.today(ctx, userID)
	now := s.stamp()
	d, err := r.shape(BillTemplate{ID: NewID(), Status: TemplateActive, Currency: s.currency(ctx, userID), CreatedAt: now, UpdatedAt: now}, true, today)
	if err != nil {
		return BillTemplate{}, err
	}
	var out BillTemplate
	err = s.store.Write(ctx, func(tx Repo) error {
		var v Validator
		if err := newRefs(tx, userID, today).resolveTemplate(ctx, &v, &d); err != nil {
			return err
		}
		if err := v.Err(); err != nil {
			return err
		}
		if err := tx.InsertBillTemplate(ctx, userID, d.next); err != nil {
			return err
		}
		if err := s.generateBills(ctx, tx, userID, today, BillHorizon(today, Date{})); err != nil {
			return err
		}
		if out, err = tx.BillTemplate(ctx, userID, d.next.ID); err != nil {
			return err
		}
		return s.recordTemplate(ctx, tx, userID, LogCreated, out, fmt.Sprintf("Bill %s of %s, %s from %s",
			quoted(out.Name), out.Amount, out.Frequency, out.StartDate))
	})
	return out, err
}

// UpdateBillTemplate is PUT /bills/templates/{id} (§2.10): the present
// fields change, the template's untouched instances are deleted, and, while
// it is active, its occurrences from today on are materialized again from the
// new terms (with new ids). Earlier instances are history and stay. status
// paused stops generation; active resumes it from today, leaving the paused
// weeks empty.
func (s *Service) UpdateBillTemplate(ctx context.Context, userID, id string, r BillTemplateRequest) (BillTemplate, error) {
	today := s.today(ctx, userID)
	var out BillTemplate
	err := s.store.Write(ctx, func(tx Repo) error {
		cur, err := tx.BillTemplate(ctx, userID, id)
		if err != nil {
			return err
		}
		d, err := r.shape(cur, false, today)
		if err != nil {
			return err
		}
		var v Validator
		if err := newRefs(tx, userID, today).resolveTemplate(ctx, &v, &d); err != nil {
			return err
		}
		if err := v.Err(); err != nil {
			return err
		}
		if err := changeCurrency(ctx, tx, userID, RecordBillTemplate, id, cur.Name, cur.Currency, d.next.Currency); err != nil {
			return err
		}
		if _, err := tx.DeleteUntouchedBills(ctx, userID, id, today); err != nil {
			return err
		}
		t := &d.next
		t.GeneratedThrough = resumeFrom(t.GeneratedThrough, cur.Status == TemplatePaused, t.Status == TemplateActive, today)
		t.UpdatedAt = s.stamp()
		if err := tx.UpdateBillTemplate(ctx, userID, *t); err != nil {
			return err
		}
		if err := s.generateBills(ctx, tx, userID, today, BillHorizon(today, Date{})); err != nil {
			return err
		}
		if out, err = tx.BillTemplate(ctx, userID, id); err != nil {
			return err
		}
		c := changes(cur, out, "name", "amount", "currency", "category", "frequency", "start_date", "due_day", "second_due_day", "end_date",
			"default_payment_method", "default_account_id", "default_credit_card_id", "notes", "status")
		if len(c) == 0 {
			return nil
		}
		return s.recordTemplate(ctx, tx, userID, LogUpdated, out, fmt.Sprintf("Bill %s: %s", quoted(out.Name), c))
	})
	return out, err
}

// DeleteBillTemplate removes a template and its untouched instances; the
// others stay with their own name, category and amount. It returns the
// template as removed; the template answers 404 afterwards.
func (s *Service) DeleteBillTemplate(ctx context.Context, userID, id string) (BillTemplate, error) {
	today := s.today(ctx, userID)
	var out BillTemplate
	err := s.store.Write(ctx, func(tx Repo) error {
		t, err := tx.BillTemplate(ctx, userID, id)
		if err != nil {
			return err
		}
		if _, err := tx.DeleteUntouchedBills(ctx, userID, id, today); err != nil {
			return err
		}
		now := s.stamp()
		t.Status, t.RemovedAt, t.UpdatedAt = TemplateRemoved, &now, now
		if err := tx.UpdateBillTemplate(ctx, userID, t); err != nil {
			return err
		}
		out = t
		if err := s.recordTemplate(ctx, tx, userID, LogDeleted, t, fmt.Sprintf("Bill %s of %s, %s, deleted",
			quoted(t.Name), t.Amount, t.Frequency)); err != nil {
			return err
		}
		return s.generateBills(ctx, tx, userID, today, BillHorizon(today, Date{}))
	})
	return out, err
}

// recordTemplate appends the entry of a write on the bill template t.
func (s *Service) recordTemplate(ctx context.Context, tx Repo, userID, action string, t BillTemplate, summary string) error {
	return s.record(ctx, tx, userID, Activity{Kind: RecordBillTemplate, RecordID: t.ID, Action: action, Summary: summary, Amount: &t.Amount})
}

// GenerateBills materializes the instances due through the horizon of a
// request on today with dateTo (zero: none) for every active template of the
// user (§1.7, §2.10). Requests under /bills, /dashboard and /reports call it
// first; it writes only when a template is behind, so a request with nothing
// to generate pays one indexed read.
func (s *Service) GenerateBills(ctx context.Context, userID string, dateTo Date) error {
	today := s.today(ctx, userID)
	horizon := BillHorizon(today, dateTo)
	behind, err := s.store.Read().BillsBehind(ctx, userID, horizon)
	if err != nil || !behind {
		return err
	}
	return s.store.Write(ctx, func(tx Repo) error { return s.generateBills(ctx, tx, userID, today, horizon) })
}

// generateBills creates, in tx, the missing instances of every active
// template through horizon (and its end date). Instances are unique per
// (template, scheduled date), so two requests generating at once, or a
// regeneration over a kept instance, create each occurrence once. Bill
// writes call it just before they commit.
func (s *Service) generateBills(ctx context.Context, tx Repo, userID string, today, horizon Date) error {
	templates, err := tx.TemplatesBehind(ctx, userID, horizon)
	if err != nil {
		return err
	}
	for _, t := range templates {
		through := horizon
		if !t.EndDate.IsZero() && t.EndDate.Before(through) {
			through = t.EndDate
		}
		dates := t.Occurrences(t.GeneratedThrough, through)
		if len(dates) > 0 {
			now := s.stamp()
			bills := make([]Bill, len(dates))
			for i, d := range dates {
				bills[i] = Bill{ID: NewID(), TemplateID: t.ID, Name: t.Name, CategoryID: t.CategoryID, Amount: t.Amount,
					ScheduledDate: d, DueDate: d, Status: BillUnpaid, CreatedAt: now, UpdatedAt: now}
			}
			if err := tx.InsertBills(ctx, userID, bills); err != nil {
				return err
			}
		}
		if err := tx.MarkGenerated(ctx, userID, t.ID, through); err != nil {
			return err
		}
	}
	return nil
}
