package finance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Loan and loan instance statuses (domain.md §2.11, §3.5, §3.6).
const (
	LoanActive    = "active"
	LoanCompleted = "completed"
	LoanCancelled = "cancelled"

	InstanceUnpaid        = "unpaid"
	InstancePartiallyPaid = "partially_paid"
	InstancePaid          = "paid"
	InstanceWaived        = "waived"
	InstanceCancelled     = "cancelled"
	// InstanceOverdue is a filter, not a stored status: open and due before today.
	InstanceOverdue = "overdue"
)

// The values the loan routes accept.
var (
	LoanStatuses = []string{LoanActive, LoanCompleted, LoanCancelled}
	// LoanInstanceStatusFilters are the status filter of GET /loans/{id}/instances.
	LoanInstanceStatusFilters = []string{InstanceUnpaid, InstancePartiallyPaid, InstancePaid, InstanceWaived,
		InstanceCancelled, InstanceOverdue}
	// LoanInstanceStatusTargets are what PATCH /loans/instances/{id}/status sets.
	LoanInstanceStatusTargets = []string{InstancePaid, InstanceUnpaid, InstanceWaived}
)

// Loan term bounds (domain.md §2.11).
const (
	MinLoanMonths = 1
	MaxLoanMonths = 360
	MaxLender     = 100
)

// List specs of domain.md §1.5.
var (
	LoanList         = ListSpec{Sorts: []string{"start_date", "name", "principal", "created_at"}, DefaultDesc: true}
	LoanInstanceList = ListSpec{Sorts: []string{"installment_number", "due_date"}}
	LoanDuesList     = ListSpec{Sorts: []string{"due_date"}}
)

// Loan is money borrowed and repaid in monthly instances. Its terms are
// fixed at creation; the figures are computed from its instances.
type Loan struct {
	ID            string  `json:"id"`
	Name          string  `json:"name"`
	Lender        *string `json:"lender,omitempty"`
	Principal     Money   `json:"principal"`
	Currency      string  `json:"currency"` // ISO 4217: the principal, schedule and payments are in it
	InterestType  string  `json:"interest_type"`
	InterestRate  *Rate   `json:"interest_rate,omitempty"`
	RatePeriod    *string `json:"rate_period,omitempty"` // absent for interest_type none
	TermMonths    int     `json:"term_months"`
	StartDate     Date    `json:"start_date"`
	FirstDueDate  Date    `json:"first_due_date"`
	MonthlyAmount *Money  `json:"monthly_amount,omitempty"`
	Notes         *string `json:"notes,omitempty"`
	Status        string  `json:"status"`
	TotalInterest Money   `json:"total_interest"` // Σ interest_due, fixed at creation
	LoanFigures
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// LoanFigures are the loan fields computed from its instances (§4.5).
type LoanFigures struct {
	TotalPayable       Money  `json:"total_payable"`             // principal + total_interest
	PaidPrincipal      Money  `json:"paid_principal"`            // Σ principal parts of its payments
	PaidInterest       Money  `json:"paid_interest"`             // Σ interest parts of its payments
	PaidTotal          Money  `json:"paid_total"`                // Σ its payments
	RemainingPrincipal Money  `json:"remaining_principal"`       // Σ principal_due − paid_principal over open instances
	RemainingPayable   Money  `json:"remaining_payable"`         // Σ amount_due − paid_total over open instances
	PaidCount          int    `json:"paid_count"`                // instances paid (by payments or marked)
	NextDueDate        *Date  `json:"next_due_date,omitempty"`   // the earliest open instance's due date
	NextDueAmount      *Money `json:"next_due_amount,omitempty"` // what remains of that instance
}

// LoanDetail is a loan with all its instances by number, each with its payments.
type LoanDetail struct {
	Loan
	Instances []LoanInstance `json:"instances"`
}

// LoanInstanceFigures is one monthly installment of a loan: its schedule,
// what was paid on it and its state. Its paid amounts are kept by the
// payments written against it. A write on one instance (a payment, a status
// change) answers with these figures and not the payments, so the answer
// keeps its size however many payments the instance has.
type LoanInstanceFigures struct {
	ID                 string    `json:"id"`
	LoanID             string    `json:"loan_id"`
	LoanName           string    `json:"loan_name"` // computed
	Currency           string    `json:"currency"`  // computed: the loan's
	InstallmentNumber  int       `json:"installment_number"`
	DueDate            Date      `json:"due_date"`
	AmountDue          Money     `json:"amount_due"`
	PrincipalDue       Money     `json:"principal_due"`
	InterestDue        Money     `json:"interest_due"`
	PaidTotal          Money     `json:"paid_total"`
	PaidPrincipal      Money     `json:"paid_principal"`
	PaidInterest       Money     `json:"paid_interest"`
	Remaining          Money     `json:"remaining"` // computed: amount_due − paid_total while open, else 0
	Status             string    `json:"status"`
	MarkedPaidManually bool      `json:"marked_paid_manually"`
	IsOverdue          bool      `json:"is_overdue"` // computed: open and due before today
	CreatedAt          time.Time `json:"created_at"`
	UpdatedAt          time.Time `json:"updated_at"`
}

// LoanInstance is an instance with its payments, as the reads show it.
type LoanInstance struct {
	LoanInstanceFigures
	Payments []LoanPayment `json:"payments"` // computed: oldest first
}

// open reports whether the instance still expects money.
func (i LoanInstanceFigures) open() bool {
	return i.Status == InstanceUnpaid || i.Status == InstancePartiallyPaid
}

// derive sets the figures computed on read.
func (i *LoanInstanceFigures) derive(today Date) {
	i.Remaining, i.IsOverdue = 0, false
	if i.open() {
		i.Remaining = i.AmountDue - i.PaidTotal
		i.IsOverdue = i.DueDate.Before(today)
	}
}

// statusFromPayments is an instance's status as its payments alone make it (§3.6).
func (i LoanInstanceFigures) statusFromPayments() string {
	switch {
	case i.PaidTotal == 0:
		return InstanceUnpaid
	case i.PaidTotal < i.AmountDue:
		return InstancePartiallyPaid
	}
	return InstancePaid
}

// LoanPayment is money paid on one instance, split interest first. It is
// permanent: there is no route to delete or void it.
type LoanPayment struct {
	ID                   string    `json:"id"`
	LoanID               string    `json:"loan_id"`
	InstanceID           string    `json:"instance_id"`
	Amount               Money     `json:"amount"`
	InterestPart         Money     `json:"interest_part"`  // counts as spending (Loan Interest) on the payment date
	PrincipalPart        Money     `json:"principal_part"` // never spending
	Date                 Date      `json:"date"`
	AccountID            *string   `json:"account_id,omitempty"`   // absent: paid in cash
	AccountName          *string   `json:"account_name,omitempty"` // computed
	AccountTransactionID *string   `json:"account_transaction_id,omitempty"`
	Notes                *string   `json:"notes,omitempty"`
	CreatedAt            time.Time `json:"created_at"`
	UpdatedAt            time.Time `json:"updated_at"`
}

// LoanFilter narrows GET /loans.
type LoanFilter struct {
	Status   string // "" = every loan
	DateFrom Date   // on start_date
	DateTo   Date
	Search   string
}

// LoanInstanceFilter narrows GET /loans/{id}/instances.
type LoanInstanceFilter struct {
	Status   string // "" = every instance; overdue = open and due before Today
	DateFrom Date   // on due_date
	DateTo   Date
	Today    Date
}

// LoanDuesWindow is what GET /loans/current-month-dues selects (§5.6):
// instances of active loans due in [MonthStart, MonthEnd], paid ones
// included, and open ones due before MonthStart; never cancelled or waived.
type LoanDuesWindow struct {
	MonthStart Date
	MonthEnd   Date
	Today      Date // overdue_amount: open instances due before it
}

// LoanDuesSummary sums every instance of the window, not just the page:
// per currency as the store sums it (LoanDuesTotals), in the reporting
// currency as GET /loans/current-month-dues answers it.
type LoanDuesSummary struct {
	DueAmount       Money `json:"due_amount"`
	PaidAmount      Money `json:"paid_amount"`
	RemainingAmount Money `json:"remaining_amount"`
	OverdueAmount   Money `json:"overdue_amount"`
	Count           int   `json:"count"`
}

// LoanDuesTotals is the summary of the instances of the loans of one
// currency.
type LoanDuesTotals struct {
	Currency string
	LoanDuesSummary
}

// LoanDues is GET /loans/current-month-dues: a list, each instance in its
// loan's currency, plus the month and its summary in the reporting
// Currency.
type LoanDues struct {
	Items      []LoanInstance `json:"items"`
	Pagination Pagination     `json:"pagination"`
	Month      string         `json:"month"`
	Currency   string         `json:"currency"`
	ConversionNote
	Summary LoanDuesSummary `json:"summary"`
}

// LoanRepo is the persistence of loans, their instances and payments.
type LoanRepo interface {
	InsertLoan(ctx context.Context, userID string, l Loan) error
	UpdateLoan(ctx context.Context, userID string, l Loan) error
	// DeleteLoan erases a loan and its instances; the caller checks it has no payments.
	DeleteLoan(ctx context.Context, userID, id string) error
	// DeleteLoanInstances erases a loan's instances; the caller checks none has a payment.
	DeleteLoanInstances(ctx context.Context, userID, loanID string) error
	// Loan returns a loan with its figures.
	Loan(ctx context.Context, userID, id string) (Loan, error)
	ListLoans(ctx context.Context, userID string, f LoanFilter, p ListParams) ([]Loan, int, error)
	InsertLoanInstances(ctx context.Context, userID string, in []LoanInstance) error
	UpdateLoanInstance(ctx context.Context, userID string, in LoanInstance) error
	// LoanInstance returns one instance with its loan's name, without payments.
	LoanInstance(ctx context.Context, userID, id string) (LoanInstance, error)
	// LoanInstances returns every instance of a loan by number, without payments.
	LoanInstances(ctx context.Context, userID, loanID string) ([]LoanInstance, error)
	ListLoanInstances(ctx context.Context, userID, loanID string, f LoanInstanceFilter, p ListParams) ([]LoanInstance, int, error)
	// LoanDues returns a page of the window's instances and the summary of all of them.
	LoanDues(ctx context.Context, userID string, w LoanDuesWindow, p ListParams) ([]LoanInstance, int, []LoanDuesTotals, error)
	// UnsettledInstances counts a loan's instances that are neither paid nor waived.
	UnsettledInstances(ctx context.Context, loanID string) (int, error)
	InsertLoanPayment(ctx context.Context, userID string, p LoanPayment) error
	// LoanPayments returns the payments of the given instances, oldest first.
	LoanPayments(ctx context.Context, userID string, instanceIDs []string) ([]LoanPayment, error)
	// LoanHasPayments reports whether any payment was made on the loan.
	LoanHasPayments(ctx context.Context, loanID string) (bool, error)
	// LoanInterestPaid sums the interest parts of the user's loan payments dated in [from, to].
	LoanInterestPaid(ctx context.Context, userID string, from, to Date) (Money, error)
}

// LoanRequest is the body of POST /loans.
type LoanRequest struct {
	Name          Field[string] `json:"name"`
	Lender        Field[string] `json:"lender"`
	Principal     Field[Money]  `json:"principal"`
	InterestType  Field[string] `json:"interest_type"`
	InterestRate  Field[Rate]   `json:"interest_rate"`
	RatePeriod    Field[string] `json:"rate_period"`
	TermMonths    Field[int]    `json:"term_months"`
	StartDate     Field[Date]   `json:"start_date"`
	FirstDueDate  Field[Date]   `json:"first_due_date"`
	MonthlyAmount Field[Money]  `json:"monthly_amount"`
	Currency      Field[string] `json:"currency"`
	Notes         Field[string] `json:"notes"`
}

// newLoan validates r (§2.11) and builds the loan with its instances, in
// r's currency or else in fallback (the reporting currency of a new loan,
// the loan's own on PUT).
func (s *Service) newLoan(r LoanRequest, fallback string) (LoanDetail, error) {
	var v Validator
	l := Loan{Status: LoanActive}
	cur := recordCurrency(&v, "currency", r.Currency, currencyOf(fallback))
	l.Currency = cur.Code
	l.Name = v.RequiredText("name", r.Name, MaxName)
	l.Lender = v.OptionalText("lender", r.Lender, MaxLender)
	l.Notes = v.OptionalText("notes", r.Notes, MaxNotes)
	l.Principal = v.RequiredMoney("principal", r.Principal)
	l.InterestType = requiredEnum(&v, "interest_type", r.InterestType, strings.Join(LoanInterestTypes, ", "),
		func(s string) bool { return slices.Contains(LoanInterestTypes, s) })
	switch {
	case Readable(&v, "term_months", r.TermMonths):
		l.TermMonths = r.TermMonths.Value
		if l.TermMonths < MinLoanMonths || l.TermMonths > MaxLoanMonths {
			v.Add("term_months", fmt.Sprintf("must be an integer from %d to %d", MinLoanMonths, MaxLoanMonths))
		}
	case !v.Has("term_months"):
		v.Add("term_months", "is required")
	}
	if Readable(&v, "interest_rate", r.InterestRate) {
		rate := r.InterestRate.Value
		l.InterestRate = &rate
	}
	var period *string
	if Readable(&v, "rate_period", r.RatePeriod) {
		if !slices.Contains(RatePeriods, r.RatePeriod.Value) {
			v.Add("rate_period", "must be one of: "+strings.Join(RatePeriods, ", "))
		}
		p := r.RatePeriod.Value
		period = &p
	}
	if Readable(&v, "monthly_amount", r.MonthlyAmount) {
		m := v.PositiveMoney("monthly_amount", r.MonthlyAmount.Value)
		l.MonthlyAmount = &m
	}
	switch l.InterestType {
	case InterestNone:
		for field, set := range map[string]bool{"interest_rate": l.InterestRate != nil, "rate_period": period != nil,
			"monthly_amount": l.MonthlyAmount != nil} {
			if set {
				v.Add(field, "must be absent when interest_type is none")
			}
		}
	case InterestAddOn:
		if l.InterestRate == nil && l.MonthlyAmount == nil && !v.Has("interest_rate") && !v.Has("monthly_amount") {
			v.Add("interest_rate", "is required when interest_type is add_on, unless monthly_amount is given")
		}
		l.RatePeriod = defaultPeriod(period, RateMonthly)
	case InterestDiminishing:
		if l.InterestRate == nil && !v.Has("interest_rate") {
			v.Add("interest_rate", "is required when interest_type is diminishing")
		}
		l.RatePeriod = defaultPeriod(period, RateAnnual)
	}
	checkDecimals(&v, "principal", l.Principal, cur)
	if l.MonthlyAmount != nil {
		checkDecimals(&v, "monthly_amount", *l.MonthlyAmount, cur)
	}
	l.StartDate = v.RequiredDate("start_date", r.StartDate)
	anchorDay := l.StartDate.Day()
	if Readable(&v, "first_due_date", r.FirstDueDate) {
		l.FirstDueDate = r.FirstDueDate.Value
		anchorDay = l.FirstDueDate.Day()
		if !l.StartDate.IsZero() && !l.FirstDueDate.After(l.StartDate) {
			v.Add("first_due_date", "must be after start_date "+l.StartDate.String())
		}
	} else if !l.StartDate.IsZero() {
		l.FirstDueDate = MonthAdd(l.StartDate, 1, anchorDay)
	}
	if err := v.Err(); err != nil {
		return LoanDetail{}, err
	}
	if last := LoanDueDate(l.FirstDueDate, anchorDay, l.TermMonths); last.After(lastDate) {
		return LoanDetail{}, Invalid("term_months", fmt.Sprintf("puts the last due date on %s, after %s", last, lastDate))
	}
	terms := LoanTerms{Principal: l.Principal, InterestType: l.InterestType, Months: l.TermMonths, MonthlyAmount: l.MonthlyAmount,
		Currency: l.Currency}
	if l.RatePeriod != nil {
		terms.RatePeriod = *l.RatePeriod
	}
	if l.InterestRate != nil && !(l.InterestType == InterestAddOn && l.MonthlyAmount != nil) {
		terms.Rate = *l.InterestRate // informational only for add_on with a quoted amount
	}
	interest, rows, err := LoanSchedule(terms)
	if err != nil {
		return LoanDetail{}, err
	}
	now := s.stamp()
	l.ID, l.TotalInterest, l.CreatedAt, l.UpdatedAt = NewID(), interest, now, now
	out := LoanDetail{Loan: l, Instances: make([]LoanInstance, len(rows))}
	for k, row := range rows {
		out.Instances[k] = LoanInstance{LoanInstanceFigures: LoanInstanceFigures{ID: NewID(), LoanID: l.ID, LoanName: l.Name, Currency: l.Currency,
			InstallmentNumber: row.Number, DueDate: LoanDueDate(l.FirstDueDate, anchorDay, row.Number), AmountDue: row.Amount(),
			PrincipalDue: row.Principal, InterestDue: row.Interest, Status: InstanceUnpaid, CreatedAt: now, UpdatedAt: now}}
	}
	return out, nil
}

func defaultPeriod(p *string, def string) *string {
	if p != nil {
		return p
	}
	return &def
}

// CreateLoan is POST /loans: the loan and every instance, in one
// transaction. No money moves: the proceeds are neither income nor an
// account line.
func (s *Service) CreateLoan(ctx context.Context, userID string, r LoanRequest) (LoanDetail, error) {
	d, err := s.newLoan(r, s.currency(ctx, userID))
	if err != nil {
		return LoanDetail{}, err
	}
	today := s.today(ctx, userID)
	var out LoanDetail
	err = s.store.Write(ctx, func(tx Repo) error {
		if err := tx.InsertLoan(ctx, userID, d.Loan); err != nil {
			return err
		}
		if err := tx.InsertLoanInstances(ctx, userID, d.Instances); err != nil {
			return err
		}
		if out, err = s.loanDetail(ctx, tx, userID, d.ID, today); err != nil {
			return err
		}
		return s.recordLoan(ctx, tx, userID, LogCreated, out.Loan, fmt.Sprintf("Loan %s of %s over %d months from %s, %s",
			quoted(out.Name), out.Principal, out.TermMonths, out.StartDate, interestWords[out.InterestType]))
	})
	return out, err
}

// interestWords are the interest types as a summary writes them.
var interestWords = map[string]string{InterestNone: "no interest", InterestAddOn: "add-on interest",
	InterestDiminishing: "diminishing interest"}

// GetLoan returns a loan with its figures and every instance with its payments.
func (s *Service) GetLoan(ctx context.Context, userID, id string) (LoanDetail, error) {
	return s.loanDetail(ctx, s.store.Read(), userID, id, s.today(ctx, userID))
}

// FindLoan returns a loan with its figures (the path check of its routes).
func (s *Service) FindLoan(ctx context.Context, userID, id string) (Loan, error) {
	return s.store.Read().Loan(ctx, userID, id)
}

func (s *Service) loanDetail(ctx context.Context, r Repo, userID, id string, today Date) (LoanDetail, error) {
	l, err := r.Loan(ctx, userID, id)
	if err != nil {
		return LoanDetail{}, err
	}
	in, err := r.LoanInstances(ctx, userID, id)
	if err != nil {
		return LoanDetail{}, err
	}
	if err := withPayments(ctx, r, userID, in, today); err != nil {
		return LoanDetail{}, err
	}
	return LoanDetail{Loan: l, Instances: in}, nil
}

// withPayments attaches each instance's payments (one query) and derives its computed fields.
func withPayments(ctx context.Context, r Repo, userID string, in []LoanInstance, today Date) error {
	if len(in) == 0 {
		return nil
	}
	ids := make([]string, len(in))
	byID := make(map[string]int, len(in))
	for i, x := range in {
		ids[i], byID[x.ID] = x.ID, i
	}
	payments, err := r.LoanPayments(ctx, userID, ids)
	if err != nil {
		return err
	}
	for _, p := range payments {
		i := byID[p.InstanceID]
		in[i].Payments = append(in[i].Payments, p)
	}
	for i := range in {
		in[i].derive(today)
		if in[i].Payments == nil {
			in[i].Payments = []LoanPayment{}
		}
	}
	return nil
}

// ListLoans returns a page of the user's loans with their figures.
func (s *Service) ListLoans(ctx context.Context, userID string, f LoanFilter, p ListParams) (Page[Loan], error) {
	items, total, err := s.store.Read().ListLoans(ctx, userID, f, p)
	return pageOf(items, total, err, p)
}

// ListLoanInstances returns a page of one loan's instances with their payments.
func (s *Service) ListLoanInstances(ctx context.Context, userID, loanID string, f LoanInstanceFilter, p ListParams) (Page[LoanInstance], error) {
	r := s.store.Read()
	f.Today = s.today(ctx, userID)
	items, total, err := r.ListLoanInstances(ctx, userID, loanID, f, p)
	if err != nil {
		return Page[LoanInstance]{}, err
	}
	if err := withPayments(ctx, r, userID, items, f.Today); err != nil {
		return Page[LoanInstance]{}, err
	}
	return NewPage(items, total, p), nil
}

// CurrentMonthLoanDues is GET /loans/current-month-dues (§5.6).
func (s *Service) CurrentMonthLoanDues(ctx context.Context, userID string, p ListParams) (LoanDues, error) {
	r := s.store.Read()
	today := s.today(ctx, userID)
	first, last := MonthRange(today)
	items, total, byCurrency, err := r.LoanDues(ctx, userID, LoanDuesWindow{MonthStart: first, MonthEnd: last, Today: today}, p)
	if err != nil {
		return LoanDues{}, err
	}
	if err := withPayments(ctx, r, userID, items, today); err != nil {
		return LoanDues{}, err
	}
	pg := NewPage(items, total, p)
	out := LoanDues{Items: pg.Items, Pagination: pg.Pagination, Month: today.MonthString(), Currency: s.currency(ctx, userID)}
	out.Summary, out.ConversionNote, err = s.convertLoanDues(ctx, userID, out.Currency, byCurrency, today)
	return out, err
}

// convertLoanDues adds the dues of each currency in reporting, all
// converted at today's rate as amounts due are, so what is due stays what
// is paid plus what remains. A currency without a rate is left out of every
// amount, named by what is due in it; the count keeps every instance.
func (s *Service) convertLoanDues(ctx context.Context, userID, reporting string, byCurrency []LoanDuesTotals,
	today Date) (LoanDuesSummary, ConversionNote, error) {
	figure := func(of func(LoanDuesSummary) Money) []DatedAmount {
		return datedGroups(byCurrency, today, func(t LoanDuesTotals) (string, Money) { return t.Currency, of(t.LoanDuesSummary) })
	}
	due := figure(func(t LoanDuesSummary) Money { return t.DueAmount })
	conv, err := s.sumConverter(ctx, userID, reporting, due)
	if err != nil {
		return LoanDuesSummary{}, ConversionNote{}, err
	}
	out := LoanDuesSummary{DueAmount: conv.sum(ctx, due),
		PaidAmount:      conv.sum(ctx, figure(func(t LoanDuesSummary) Money { return t.PaidAmount })),
		RemainingAmount: conv.sum(ctx, figure(func(t LoanDuesSummary) Money { return t.RemainingAmount })),
		OverdueAmount:   conv.sum(ctx, figure(func(t LoanDuesSummary) Money { return t.OverdueAmount }))}
	for _, t := range byCurrency {
		out.Count += t.Count
	}
	return out, conv.NoteOf(ctx, due), conv.Err()
}

// LoanUpdateRequest is the body of PATCH /loans/{id}: the state and the
// descriptive fields; the financial terms are immutable.
type LoanUpdateRequest struct {
	Status Field[string] `json:"status"`
	Name   Field[string] `json:"name"`
	Lender Field[string] `json:"lender"`
	Notes  Field[string] `json:"notes"`
}

// UpdateLoan is PATCH /loans/{id} (§3.5). Cancelling closes the open
// instances (their payments stay); reactivating reopens them from their
// payments. Same-state requests and leaving completed are INVALID_STATUS;
// completed itself is never set by a client.
func (s *Service) UpdateLoan(ctx context.Context, userID, id string, r LoanUpdateRequest) (LoanDetail, error) {
	var v Validator
	var status string
	if Readable(&v, "status", r.Status) {
		switch status = r.Status.Value; status {
		case LoanActive, LoanCancelled:
		case LoanCompleted:
			v.Add("status", "cannot be set: a loan completes by itself once every instance is paid or waived")
		default:
			v.Add("status", "must be one of: active, cancelled")
		}
	} else if r.Status.Set && !v.Has("status") {
		v.Add("status", "must be one of: active, cancelled")
	}
	var name string
	if r.Name.Set {
		name = v.RequiredText("name", r.Name, MaxName)
	}
	lender := v.OptionalText("lender", r.Lender, MaxLender)
	notes := v.OptionalText("notes", r.Notes, MaxNotes)
	if err := v.Err(); err != nil {
		return LoanDetail{}, err
	}
	today := s.today(ctx, userID)
	var out LoanDetail
	err := s.store.Write(ctx, func(tx Repo) error {
		l, err := tx.Loan(ctx, userID, id)
		if err != nil {
			return err
		}
		before := l
		now := s.stamp()
		if status != "" {
			if err := checkLoanTransition(l.Status, status); err != nil {
				return err
			}
			if err := s.moveInstances(ctx, tx, userID, id, status, now); err != nil {
				return err
			}
			l.Status = status
		}
		if r.Name.Set {
			l.Name = name
		}
		if r.Lender.Set {
			l.Lender = lender
		}
		if r.Notes.Set {
			l.Notes = notes
		}
		l.UpdatedAt = now
		if err := tx.UpdateLoan(ctx, userID, l); err != nil {
			return err
		}
		if out, err = s.loanDetail(ctx, tx, userID, id, today); err != nil {
			return err
		}
		c := changes(before, l, "name", "lender", "notes", "status")
		if len(c) == 0 {
			return nil
		}
		action := LogUpdated
		if status == LoanCancelled {
			action = LogCancelled
		}
		return s.recordLoan(ctx, tx, userID, action, out.Loan, fmt.Sprintf("Loan %s: %s", quoted(l.Name), c))
	})
	return out, err
}

// recordLoan appends the entry of a write on the loan l; its amount is the principal.
func (s *Service) recordLoan(ctx context.Context, tx Repo, userID, action string, l Loan, summary string) error {
	return s.record(ctx, tx, userID, Activity{Kind: RecordLoan, RecordID: l.ID, Action: action, Summary: summary, Amount: &l.Principal})
}

// checkLoanTransition applies the loan state table (§3.5) to a PATCH.
func checkLoanTransition(from, to string) error {
	switch {
	case from == to:
		return InvalidStatus("loan is already %s", from)
	case from == LoanCompleted:
		return InvalidStatus("loan is completed: every instance is paid or waived; set an instance back to unpaid to reopen it")
	}
	return nil
}

// moveInstances closes the open instances of a loan being cancelled, or
// recomputes from their payments the instances a cancel closed.
func (s *Service) moveInstances(ctx context.Context, tx Repo, userID, loanID, to string, now time.Time) error {
	in, err := tx.LoanInstances(ctx, userID, loanID)
	if err != nil {
		return err
	}
	for _, x := range in {
		switch {
		case to == LoanCancelled && x.open():
			x.Status = InstanceCancelled
		case to == LoanActive && x.Status == InstanceCancelled:
			x.Status = x.statusFromPayments()
		default:
			continue
		}
		x.UpdatedAt = now
		if err := tx.UpdateLoanInstance(ctx, userID, x); err != nil {
			return err
		}
	}
	return nil
}

// DeleteLoan is DELETE /loans/{id}: the loan and its instances are erased,
// in any status, but only while no payment was made on it (§2.11).
func (s *Service) DeleteLoan(ctx context.Context, userID, id string) (Loan, error) {
	var out Loan
	err := s.store.Write(ctx, func(tx Repo) error {
		l, err := tx.Loan(ctx, userID, id)
		if err != nil {
			return err
		}
		paid, err := tx.LoanHasPayments(ctx, id)
		if err != nil {
			return err
		}
		if paid {
			return InvalidStatus("loan has payments, which are permanent; cancel the loan instead")
		}
		out = l
		if err := tx.DeleteLoan(ctx, userID, id); err != nil {
			return err
		}
		return s.recordLoan(ctx, tx, userID, LogDeleted, l, fmt.Sprintf("Loan %s of %s deleted", quoted(l.Name), l.Principal))
	})
	return out, err
}

// FindLoanInstance returns one of the user's instances (the path check of its routes).
func (s *Service) FindLoanInstance(ctx context.Context, userID, id string) (LoanInstance, error) {
	return s.store.Read().LoanInstance(ctx, userID, id)
}

// LoanInstanceResult is the reply of an instance status change: the
// instance's figures and its loan after it.
type LoanInstanceResult struct {
	Instance LoanInstanceFigures `json:"instance"`
	Loan     Loan                `json:"loan"`
}

// LoanInstanceStatusRequest is the body of PATCH /loans/instances/{id}/status.
type LoanInstanceStatusRequest struct {
	Status Field[string] `json:"status"`
}

// SetLoanInstanceStatus is PATCH /loans/instances/{id}/status (§3.6): paid
// settles the remainder without money (marked_paid_manually), waived
// forgives it, and unpaid undoes either, recomputing from the payments. The
// loan completes, or reopens, accordingly.
func (s *Service) SetLoanInstanceStatus(ctx context.Context, userID, instanceID string, r LoanInstanceStatusRequest) (LoanInstanceResult, error) {
	var v Validator
	to := requiredEnum(&v, "status", r.Status, strings.Join(LoanInstanceStatusTargets, ", "),
		func(s string) bool { return slices.Contains(LoanInstanceStatusTargets, s) })
	if err := v.Err(); err != nil {
		return LoanInstanceResult{}, err
	}
	today := s.today(ctx, userID)
	var out LoanInstanceResult
	err := s.store.Write(ctx, func(tx Repo) error {
		x, err := tx.LoanInstance(ctx, userID, instanceID)
		if err != nil {
			return err
		}
		l, err := tx.Loan(ctx, userID, x.LoanID)
		if err != nil {
			return err
		}
		if err := s.setInstanceStatus(ctx, tx, userID, l, x, to); err != nil {
			return err
		}
		out, err = s.finishInstanceWrite(ctx, tx, userID, l, x.ID, today)
		return err
	})
	return out, err
}

// setInstanceStatus moves instance x of loan l to status to (§3.6) and
// records it in the activity log: paid settles the remainder without money
// (marked_paid_manually), waived forgives it, and unpaid undoes either,
// recomputing from the payments. The caller completes or reopens the loan
// (settleLoan) once its instances are written.
func (s *Service) setInstanceStatus(ctx context.Context, tx Repo, userID string, l Loan, x LoanInstance, to string) error {
	if err := checkInstanceTransition(l, x, to); err != nil {
		return err
	}
	before := x.Status
	switch to {
	case InstancePaid:
		x.Status, x.MarkedPaidManually = InstancePaid, true
	case InstanceWaived:
		x.Status = InstanceWaived
	case InstanceUnpaid:
		x.MarkedPaidManually = false
		x.Status = x.statusFromPayments()
	}
	x.UpdatedAt = s.stamp()
	if err := tx.UpdateLoanInstance(ctx, userID, x); err != nil {
		return err
	}
	return s.record(ctx, tx, userID, Activity{Kind: RecordLoanInstance, RecordID: x.ID, Action: LogUpdated,
		Summary: fmt.Sprintf("Loan %s installment %d due %s: status %s → %s", quoted(l.Name), x.InstallmentNumber,
			x.DueDate, before, x.Status), Amount: &x.AmountDue})
}

// checkInstanceTransition applies the instance state table (§3.6).
func checkInstanceTransition(l Loan, x LoanInstance, to string) error {
	if l.Status == LoanCancelled || x.Status == InstanceCancelled {
		return InvalidStatus("loan is cancelled; reactivate it (PATCH status active) before changing its instances")
	}
	if x.Status == to {
		return InvalidStatus("loan instance is already %s", to)
	}
	switch to {
	case InstancePaid, InstanceWaived:
		if !x.open() {
			return InvalidStatus("loan instance is %s; only an unpaid or partially paid instance can be set to %s", x.Status, to)
		}
	case InstanceUnpaid:
		switch {
		case x.Status == InstancePaid && !x.MarkedPaidManually:
			return InvalidStatus("loan instance is paid by its payments, which are permanent; it cannot be set back to unpaid")
		case x.Status != InstancePaid && x.Status != InstanceWaived:
			return InvalidStatus("loan instance is %s; only an instance marked paid or waived can be set back to unpaid", x.Status)
		}
	}
	return nil
}

// finishInstanceWrite completes or reopens the loan after one of its
// instances changed, then reads back the instance and the loan.
func (s *Service) finishInstanceWrite(ctx context.Context, tx Repo, userID string, l Loan, instanceID string, today Date) (LoanInstanceResult, error) {
	var out LoanInstanceResult
	var err error
	if out.Loan, err = s.settleLoan(ctx, tx, userID, l); err != nil {
		return LoanInstanceResult{}, err
	}
	x, err := tx.LoanInstance(ctx, userID, instanceID)
	if err != nil {
		return LoanInstanceResult{}, err
	}
	x.derive(today)
	out.Instance = x.LoanInstanceFigures
	return out, nil
}

// settleLoan completes loan l once none of its instances is left unsettled,
// or reopens it when one is again (§3.5), and reads it back with its figures.
func (s *Service) settleLoan(ctx context.Context, tx Repo, userID string, l Loan) (Loan, error) {
	unsettled, err := tx.UnsettledInstances(ctx, l.ID)
	if err != nil {
		return Loan{}, err
	}
	next := l.Status
	switch {
	case l.Status == LoanActive && unsettled == 0:
		next = LoanCompleted
	case l.Status == LoanCompleted && unsettled > 0:
		next = LoanActive
	}
	if next != l.Status {
		l.Status, l.UpdatedAt = next, s.stamp()
		if err := tx.UpdateLoan(ctx, userID, l); err != nil {
			return Loan{}, err
		}
	}
	return tx.Loan(ctx, userID, l.ID)
}

// LoanPaymentRequest is the body of POST /loans/instances/{id}/payments.
type LoanPaymentRequest struct {
	Amount    Field[Money]  `json:"amount"`
	Date      Field[Date]   `json:"date"`
	AccountID Field[string] `json:"account_id"`
	Notes     Field[string] `json:"notes"`
}

// LoanPaymentResult is the reply of a payment: the new payment, and the
// instance's figures and the loan after it (GET /loans/{id} lists every
// payment).
type LoanPaymentResult struct {
	Payment  LoanPayment         `json:"payment"`
	Instance LoanInstanceFigures `json:"instance"`
	Loan     Loan                `json:"loan"`
	// Warnings: the answer's warnings, if any (warning.go).
	Warnings []Warning `json:"warnings,omitempty"`
}

// PayLoanInstance records a payment on an open instance of an active loan
// (§2.11): at most what remains, allocated interest first. With account_id
// it also posts a debit on that account; without, it was paid in cash. Only
// the interest part is spending. The loan completes when this settles its
// last instance.
func (s *Service) PayLoanInstance(ctx context.Context, userID, instanceID string, r LoanPaymentRequest) (LoanPaymentResult, error) {
	var v Validator
	amount := v.RequiredMoney("amount", r.Amount)
	today := s.today(ctx, userID)
	date := today
	if Readable(&v, "date", r.Date) {
		date = r.Date.Value
	}
	var accountID string
	if Readable(&v, "account_id", r.AccountID) {
		accountID = strings.TrimSpace(r.AccountID.Value)
	}
	notes := v.OptionalText("notes", r.Notes, MaxNotes)
	if err := v.Err(); err != nil {
		return LoanPaymentResult{}, err
	}
	var out LoanPaymentResult
	err := s.store.Write(ctx, func(tx Repo) error {
		w := s.watch(tx, userID, today)
		tx = w // every change below is watched
		x, err := tx.LoanInstance(ctx, userID, instanceID)
		if err != nil {
			return err
		}
		l, err := tx.Loan(ctx, userID, x.LoanID)
		if err != nil {
			return err
		}
		switch {
		case l.Status != LoanActive:
			return InvalidStatus("loan is %s; payments are recorded only on an active loan", l.Status)
		case !x.open():
			return InvalidStatus("loan instance is %s; only an unpaid or partially paid instance takes payments", x.Status)
		}
		var acct Account
		if accountID != "" {
			if acct, _, err = activeAccount(ctx, tx, &v, "account_id", userID, accountID); err != nil {
				return err
			}
			if acct.ID != "" {
				paidIn(&v, "account_id", "account", acct.Currency, l.Currency)
			}
		}
		if remaining := x.AmountDue - x.PaidTotal; amount > remaining {
			v.Add("amount", "must not exceed the remaining amount "+remaining.String())
		}
		if err := v.Err(); err != nil {
			return err
		}
		now := s.stamp()
		interest := min(amount, x.InterestDue-x.PaidInterest)
		p := LoanPayment{ID: NewID(), LoanID: l.ID, InstanceID: x.ID, Amount: amount, InterestPart: interest,
			PrincipalPart: amount - interest, Date: date, Notes: notes, CreatedAt: now, UpdatedAt: now}
		if accountID != "" {
			desc := fmt.Sprintf("Loan payment: %s, installment %d of %d", l.Name, x.InstallmentNumber, l.TermMonths)
			if len([]rune(desc)) > MaxDescription {
				desc = string([]rune(desc)[:MaxDescription])
			}
			line := s.newLine(acct.ID, LineDebit, amount, date, &desc, SourceLoanPayment, &p.ID)
			if err := tx.InsertAccountTransaction(ctx, userID, line); err != nil {
				return err
			}
			p.AccountID, p.AccountName, p.AccountTransactionID = &acct.ID, &acct.Name, &line.ID
		}
		if err := tx.InsertLoanPayment(ctx, userID, p); err != nil {
			return err
		}
		x.PaidTotal += amount
		x.PaidInterest += p.InterestPart
		x.PaidPrincipal += p.PrincipalPart
		x.Status, x.UpdatedAt = x.statusFromPayments(), now
		if err := tx.UpdateLoanInstance(ctx, userID, x); err != nil {
			return err
		}
		res, err := s.finishInstanceWrite(ctx, tx, userID, l, x.ID, today)
		if err != nil {
			return err
		}
		out = LoanPaymentResult{Payment: p, Instance: res.Instance, Loan: res.Loan}
		if err := s.record(ctx, tx, userID, Activity{Kind: RecordLoanPayment, RecordID: p.ID, Action: LogPaid,
			Summary: fmt.Sprintf("Loan %s installment %d paid %s (interest %s, principal %s)", quoted(l.Name),
				x.InstallmentNumber, p.Amount, p.InterestPart, p.PrincipalPart), Amount: &p.Amount}); err != nil {
			return err
		}
		out.Warnings, err = w.balances(ctx)
		return err
	})
	return out, err
}
