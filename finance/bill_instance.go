package finance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Bill instance statuses and the list filters built on them (domain.md
// §2.10, §3.4). partially_paid is never requested: it is computed.
const (
	BillUnpaid        = "unpaid"
	BillPartiallyPaid = "partially_paid"
	BillPaid          = "paid"
	BillSkipped       = "skipped"
	// BillOpen and BillOverdue are filters: open is unpaid or partially
	// paid; overdue is open with the due date before today.
	BillOpen    = "open"
	BillOverdue = "overdue"
)

// Bill status lists: every status, the list filters, and what POST /bills/{id}/status accepts.
var (
	BillStatuses        = []string{BillUnpaid, BillPartiallyPaid, BillPaid, BillSkipped}
	BillStatusFilters   = []string{BillUnpaid, BillPartiallyPaid, BillPaid, BillSkipped, BillOpen, BillOverdue}
	BillStatusRequested = []string{BillPaid, BillUnpaid, BillSkipped}
)

// Bill is one occurrence of a template: what is due on a date and what was
// paid against it. It keeps its own copy of the template's name, category
// and amount. The fields marked computed are filled on read as of today.
type Bill struct {
	ID                 string  `json:"id"`
	TemplateID         string  `json:"template_id"`
	Name               string  `json:"name"`
	CategoryID         string  `json:"category_id"`
	Category           string  `json:"category"` // computed: the category's name
	Amount             Money   `json:"amount"`
	Currency           string  `json:"currency"` // computed: the template's; every amount of the bill is in it
	ScheduledDate      Date    `json:"scheduled_date"`
	DueDate            Date    `json:"due_date"`
	Notes              *string `json:"notes,omitempty"`
	Status             string  `json:"status"`
	PaidTotal          Money   `json:"paid_total"`
	Remaining          Money   `json:"remaining"`      // computed
	IsOverdue          bool    `json:"is_overdue"`     // computed
	DaysUntilDue       int     `json:"days_until_due"` // computed
	MarkedPaidManually bool    `json:"marked_paid_manually"`
	// The template's default payment fields (computed; null once the template is removed).
	DefaultPaymentMethod *string `json:"default_payment_method,omitempty"`
	DefaultAccountID     *string `json:"default_account_id,omitempty"`
	DefaultCreditCardID  *string `json:"default_credit_card_id,omitempty"`
	// Edited marks an instance changed by PUT /bills/{id}: template changes leave it alone.
	Edited    bool      `json:"-"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Open reports whether the bill still expects money: unpaid or partially paid.
func (b Bill) Open() bool { return b.Status == BillUnpaid || b.Status == BillPartiallyPaid }

// derive fills the fields computed as of today.
func (b *Bill) derive(today Date) {
	b.Remaining = max(0, b.Amount-b.PaidTotal)
	b.IsOverdue = b.Open() && b.DueDate.Before(today)
	b.DaysUntilDue = today.DaysUntil(b.DueDate)
}

// sticky reports whether the status is one set by hand that payments and
// amount edits leave alone: skipped, or paid without (enough) money.
func (b Bill) sticky() bool {
	return b.Status == BillSkipped || (b.Status == BillPaid && b.MarkedPaidManually)
}

// settle takes the sum of the posted payments and, unless the status is
// sticky, computes the status from it (§3.4).
func (b *Bill) settle(paid Money) {
	b.PaidTotal = paid
	if !b.sticky() {
		b.Status = billStatus(b.Amount, paid)
	}
}

func billStatus(amount, paid Money) string {
	switch {
	case paid <= 0:
		return BillUnpaid
	case paid < amount:
		return BillPartiallyPaid
	}
	return BillPaid
}

// BillFilter narrows GET /bills.
type BillFilter struct {
	Status     string // "" = every instance; or a value of BillStatusFilters
	DateFrom   Date   // on due_date
	DateTo     Date
	Search     string
	Category   string // a name, archived categories included
	TemplateID string
	Today      Date // for the overdue filter
}

// List specs of domain.md §1.5.
var (
	BillList        = ListSpec{Sorts: []string{"due_date", "amount", "name", "created_at"}}
	BillPaymentList = ListSpec{Sorts: []string{"date", "amount", "created_at"}, DefaultDesc: true}
)

// ListBills returns a page of the user's bills. A dateTo beyond the usual
// horizon materializes the instances up to it first (at most a year ahead).
func (s *Service) ListBills(ctx context.Context, userID string, f BillFilter, p ListParams) (Page[Bill], error) {
	if !f.DateTo.IsZero() {
		if err := s.GenerateBills(ctx, userID, f.DateTo); err != nil {
			return Page[Bill]{}, err
		}
	}
	today := s.today(ctx, userID)
	f.Today = today
	items, total, err := s.store.Read().ListBills(ctx, userID, f, p)
	if err != nil {
		return Page[Bill]{}, err
	}
	for i := range items {
		items[i].derive(today)
	}
	return NewPage(items, total, p), nil
}

// GetBill returns one bill instance.
func (s *Service) GetBill(ctx context.Context, userID, id string) (Bill, error) {
	return s.readBill(ctx, s.store.Read(), userID, id, s.today(ctx, userID))
}

func (s *Service) readBill(ctx context.Context, r Repo, userID, id string, today Date) (Bill, error) {
	b, err := r.Bill(ctx, userID, id)
	if err != nil {
		return Bill{}, err
	}
	b.derive(today)
	return b, nil
}

// changeBill runs change on the bill id in one write transaction, then
// materializes what is now due and reads the bill back, so a write's reply
// shows the state it committed.
func (s *Service) changeBill(ctx context.Context, userID, id string, change func(tx Repo, b *Bill, today Date) error) (Bill, error) {
	today := s.today(ctx, userID)
	var out Bill
	err := s.store.Write(ctx, func(tx Repo) error {
		b, err := tx.Bill(ctx, userID, id)
		if err != nil {
			return err
		}
		before := b
		if err := change(tx, &b, today); err != nil {
			return err
		}
		if out, err = s.finishBillWrite(ctx, tx, userID, id, today); err != nil {
			return err
		}
		c := changes(before, out, "amount", "due_date", "notes", "status")
		if len(c) == 0 {
			return nil
		}
		return s.record(ctx, tx, userID, Activity{Kind: RecordBill, RecordID: out.ID, Action: LogUpdated,
			Summary: fmt.Sprintf("Bill %s due %s: %s", quoted(out.Name), before.DueDate, c), Amount: &out.Amount})
	})
	return out, err
}

// finishBillWrite materializes the instances now due and reads the bill back.
func (s *Service) finishBillWrite(ctx context.Context, tx Repo, userID, id string, today Date) (Bill, error) {
	if err := s.generateBills(ctx, tx, userID, today, BillHorizon(today, Date{})); err != nil {
		return Bill{}, err
	}
	return s.readBill(ctx, tx, userID, id, today)
}

// BillRequest is the body of PUT /bills/{id}.
type BillRequest struct {
	Amount  Field[Money]  `json:"amount"`
	DueDate Field[Date]   `json:"due_date"`
	Notes   Field[string] `json:"notes"`
}

// UpdateBill changes one instance's amount (at least what was paid), due
// date and notes. The instance counts as edited from then on, so template
// changes leave it alone, and its status is recomputed unless set by hand.
func (s *Service) UpdateBill(ctx context.Context, userID, id string, r BillRequest) (Bill, error) {
	return s.changeBill(ctx, userID, id, func(tx Repo, b *Bill, today Date) error {
		var v Validator
		if r.Amount.Set {
			b.Amount = v.RequiredMoney("amount", r.Amount)
		}
		if r.DueDate.Set {
			b.DueDate = v.RequiredDate("due_date", r.DueDate)
		}
		if r.Notes.Set {
			b.Notes = v.OptionalText("notes", r.Notes, MaxNotes)
		}
		if err := v.Err(); err != nil {
			return err
		}
		if !r.Amount.Set && !r.DueDate.Set && !r.Notes.Set {
			return nil
		}
		if b.Amount < b.PaidTotal {
			return Invalid("amount", "must be at least the amount already paid, "+b.PaidTotal.String())
		}
		b.Edited, b.UpdatedAt = true, s.stamp()
		b.settle(b.PaidTotal)
		return tx.UpdateBill(ctx, userID, *b)
	})
}

// BillStatusRequest is the body of POST /bills/{id}/status.
type BillStatusRequest struct {
	Status Field[string] `json:"status"`
}

// SetBillStatus applies the state table of §3.4: paid (from unpaid or
// partially paid) marks the bill paid by hand and records no money; skipped
// needs an unpaid bill; unpaid undoes a skip or a manual paid, recomputing
// the status from the payments. Anything else, the current state included,
// is INVALID_STATUS.
func (s *Service) SetBillStatus(ctx context.Context, userID, id string, r BillStatusRequest) (Bill, error) {
	var v Validator
	want := requiredEnum(&v, "status", r.Status, strings.Join(BillStatusRequested, ", "),
		func(s string) bool { return slices.Contains(BillStatusRequested, s) })
	if err := v.Err(); err != nil {
		return Bill{}, err
	}
	return s.changeBill(ctx, userID, id, func(tx Repo, b *Bill, today Date) error {
		switch {
		case want == BillPaid && b.Open():
			b.Status, b.MarkedPaidManually = BillPaid, true
		case want == BillPaid && b.Status == BillPaid:
			return InvalidStatus("bill is already paid")
		case want == BillPaid:
			return InvalidStatus("bill is skipped; set it to unpaid first")
		case want == BillSkipped && b.Status == BillUnpaid:
			b.Status = BillSkipped
		case want == BillSkipped && b.Status == BillSkipped:
			return InvalidStatus("bill is already skipped")
		case want == BillSkipped:
			return InvalidStatus("bill is %s; only an unpaid bill without payments can be skipped (delete its payments first)", b.Status)
		case b.Status == BillSkipped, b.Status == BillPaid && b.MarkedPaidManually: // want unpaid
			b.Status, b.MarkedPaidManually = BillUnpaid, false
			b.settle(b.PaidTotal)
		case b.Status == BillUnpaid:
			return InvalidStatus("bill is already unpaid")
		default:
			return InvalidStatus("bill is %s from its payments; delete the payments instead", b.Status)
		}
		b.UpdatedAt = s.stamp()
		return tx.UpdateBill(ctx, userID, *b)
	})
}

// BillPayment is money paid against a bill. It records an expense (source
// bill_payment) with the usual effect of its payment method.
type BillPayment struct {
	ID            string     `json:"id"`
	BillID        string     `json:"bill_id"`
	Amount        Money      `json:"amount"`
	Currency      string     `json:"currency"` // computed: its expense's, the paying account's or card's or a Cash one's
	Date          Date       `json:"date"`
	PaymentMethod string     `json:"payment_method"`
	AccountID     *string    `json:"account_id,omitempty"`
	CreditCardID  *string    `json:"credit_card_id,omitempty"`
	ExpenseID     string     `json:"expense_id"`
	Notes         *string    `json:"notes,omitempty"`
	Status        string     `json:"status"`
	VoidedAt      *time.Time `json:"voided_at,omitempty"`
	CreatedAt     time.Time  `json:"created_at"`
	UpdatedAt     time.Time  `json:"updated_at"`
}

// BillPaymentFilter narrows GET /bills/{id}/payments.
type BillPaymentFilter struct {
	Status   string // posted (default) or voided
	DateFrom Date
	DateTo   Date
}

// BillPaymentRequest is the body of POST /bills/{id}/payments. The payment
// fields default to the bill's template's.
type BillPaymentRequest struct {
	Amount        Field[Money]  `json:"amount"`
	Date          Field[Date]   `json:"date"`
	PaymentMethod Field[string] `json:"payment_method"`
	AccountID     Field[string] `json:"account_id"`
	CreditCardID  Field[string] `json:"credit_card_id"`
	Category      Field[string] `json:"category"`
	Notes         Field[string] `json:"notes"`
}

// BillPaymentResult is the reply of a payment and of its deletion: the
// payment and the bill after it.
type BillPaymentResult struct {
	Payment BillPayment `json:"payment"`
	Bill    Bill        `json:"bill"`
	// Warnings: the answer's warnings, if any (warning.go).
	Warnings []Warning `json:"warnings,omitempty"`
}

// ListBillPayments returns a page of a bill's payments.
func (s *Service) ListBillPayments(ctx context.Context, userID, billID string, f BillPaymentFilter, p ListParams) (Page[BillPayment], error) {
	if f.Status == "" {
		f.Status = PaymentPosted
	}
	items, total, err := s.store.Read().ListBillPayments(ctx, userID, billID, f, p)
	return pageOf(items, total, err, p)
}

// GetBillPayment returns one payment (path checks).
func (s *Service) GetBillPayment(ctx context.Context, userID, id string) (BillPayment, error) {
	return s.store.Read().BillPayment(ctx, userID, id)
}

// billPaymentShape is a payment request after the checks of its shape.
type billPaymentShape struct {
	amount    Money
	date      Date
	method    string // "" = the template's default
	accountID *string
	cardID    *string
	category  string // "" = the bill's own
	notes     *string
}

func (r BillPaymentRequest) shape(today Date) (billPaymentShape, error) {
	var v Validator
	out := billPaymentShape{amount: v.RequiredMoney("amount", r.Amount), date: today}
	if r.Date.Set && !r.Date.Null {
		out.date = v.RequiredDate("date", r.Date)
	}
	if r.PaymentMethod.Set && !r.PaymentMethod.Null {
		method := r.PaymentMethod
		if m, ok := ParsePaymentMethod(method.Value); ok && method.Has() {
			method.Value = m
		}
		out.method = requiredEnum(&v, "payment_method", method, strings.Join(PaymentMethods, ", "),
			func(s string) bool { return slices.Contains(PaymentMethods, s) })
	}
	out.accountID = optionalID(&v, "account_id", r.AccountID, "accounts")
	out.cardID = optionalID(&v, "credit_card_id", r.CreditCardID, "credit cards")
	if out.method != "" {
		checkUnusedTarget(&v, out.method, out.accountID, out.cardID)
	}
	if r.Category.Set && !r.Category.Null {
		out.category = v.RequiredText("category", r.Category, MaxName)
	}
	out.notes = v.OptionalText("notes", r.Notes, MaxNotes)
	return out, v.Err()
}

// optionalID reads an optional id of one of the user's records; null and
// empty are absent.
func optionalID(v *Validator, name string, f Field[string], what string) *string {
	if !Readable(v, name, f) {
		return nil
	}
	id := strings.TrimSpace(f.Value)
	switch {
	case id == "":
		return nil
	case !ValidID(id):
		v.Add(name, "must be the id of one of your active "+what)
	}
	return &id
}

// checkUnusedTarget refuses the account or card id that method does not use.
func checkUnusedTarget(v *Validator, method string, accountID, cardID *string) {
	if accountID != nil && method != MethodAccountDebit {
		v.Add("account_id", "must be null or absent when payment_method is "+method)
	}
	if cardID != nil && method != MethodCreditCard {
		v.Add("credit_card_id", "must be null or absent when payment_method is "+method)
	}
}

// paymentMethodFor completes a payment's method and target from the bill's
// template defaults (§2.10) and checks them against the user's records.
func (c *refs) paymentMethodFor(ctx context.Context, v *Validator, b Bill, in *billPaymentShape) error {
	if in.method == "" {
		if b.DefaultPaymentMethod == nil {
			v.Add("payment_method", "is required: the bill's template has no default payment method")
			return nil
		}
		in.method = *b.DefaultPaymentMethod
		checkUnusedTarget(v, in.method, in.accountID, in.cardID)
	}
	defaulted := b.DefaultPaymentMethod != nil && *b.DefaultPaymentMethod == in.method
	switch in.method {
	case MethodAccountDebit:
		if in.accountID == nil && defaulted {
			in.accountID = b.DefaultAccountID
		}
		if in.accountID == nil {
			v.Add("account_id", "is required when payment_method is "+in.method)
			return nil
		}
		_, _, err := c.activeAccount(ctx, v, "account_id", *in.accountID)
		return err
	case MethodCreditCard:
		if in.cardID == nil && defaulted {
			in.cardID = b.DefaultCreditCardID
		}
		if in.cardID == nil {
			v.Add("credit_card_id", "is required when payment_method is "+in.method)
			return nil
		}
		_, _, err := c.activeCard(ctx, v, "credit_card_id", *in.cardID)
		return err
	}
	return nil
}

// expenseCategoryFor is the category a payment's expense takes: the
// override when given, else the bill's own, which must still be active.
func (c *refs) expenseCategoryFor(ctx context.Context, v *Validator, b Bill, override string) (Category, error) {
	if override != "" {
		cat, _, err := c.expenseCategory(ctx, v, "category", override)
		return cat, err
	}
	cat, err := c.tx.Category(ctx, c.userID, b.CategoryID)
	if err != nil {
		return Category{}, err
	}
	if cat.Status != StatusActive {
		v.Add("category", fmt.Sprintf("is required: the bill's category %q is archived; name an active expense category", cat.Name))
	}
	return cat, nil
}

// PayBill records a payment against an unpaid or partially paid bill: the
// payment and its expense (source bill_payment, described "<name> (due
// <date>)") with the method's account debit or card purchase, in one
// transaction. A back-dated card purchase may come back already billed.
func (s *Service) PayBill(ctx context.Context, userID, billID string, r BillPaymentRequest) (BillPaymentResult, error) {
	today := s.today(ctx, userID)
	in, err := r.shape(today)
	if err != nil {
		return BillPaymentResult{}, err
	}
	var out BillPaymentResult
	err = s.store.Write(ctx, func(tx Repo) error {
		w := s.watch(tx, userID, today)
		tx = w // every change below is watched
		b, err := tx.Bill(ctx, userID, billID)
		if err != nil {
			return err
		}
		b.derive(today)
		if !b.Open() {
			return InvalidStatus("bill is %s; only an unpaid or partially paid bill takes payments", b.Status)
		}
		var v Validator
		rf := newRefs(tx, userID, today)
		if err := rf.paymentMethodFor(ctx, &v, b, &in); err != nil {
			return err
		}
		cat, err := rf.expenseCategoryFor(ctx, &v, b, in.category)
		if err != nil {
			return err
		}
		if err := paidInBillCurrency(ctx, tx, &v, userID, today, b, in); err != nil {
			return err
		}
		if !v.Has("amount") && in.amount > b.Remaining {
			v.Add("amount", "must not exceed the remaining amount "+b.Remaining.String())
		}
		if err := v.Err(); err != nil {
			return err
		}
		p := BillPayment{ID: NewID(), BillID: b.ID, Amount: in.amount, Date: in.date, PaymentMethod: in.method,
			AccountID: in.accountID, CreditCardID: in.cardID, Notes: in.notes, Status: PaymentPosted}
		e := s.newExpense(ctx)
		e.Source, e.BillPaymentID = ExpenseBillPayment, &p.ID
		e.Amount, e.Date, e.Description = in.amount, in.date, fmt.Sprintf("%s (due %s)", b.Name, b.DueDate)
		e.CategoryID, e.Category = &cat.ID, &cat.Name
		e.PaymentMethod, e.AccountID, e.CreditCardID, e.Notes = in.method, in.accountID, in.cardID, in.notes
		e.Currency = b.Currency // a Cash payment is in the bill's currency, as every other one must be
		if err := s.insertExpense(ctx, tx, userID, &e); err != nil {
			return err
		}
		p.ExpenseID, p.Currency, p.CreatedAt, p.UpdatedAt = e.ID, e.Currency, e.CreatedAt, e.UpdatedAt
		if err := tx.InsertBillPayment(ctx, userID, p); err != nil {
			return err
		}
		if err := s.resettleBill(ctx, tx, userID, &b); err != nil {
			return err
		}
		// A back-dated card purchase lands on its statement before the commit.
		notes, err := s.billExpenses(ctx, tx, userID, today, []*Expense{&e})
		if err != nil {
			return err
		}
		out.Payment = p
		if out.Bill, err = s.finishBillWrite(ctx, tx, userID, b.ID, today); err != nil {
			return err
		}
		if err := s.recordBillPayment(ctx, tx, userID, LogPaid, p, fmt.Sprintf("Bill %s due %s paid %s by %s",
			quoted(b.Name), b.DueDate, p.Amount, p.PaymentMethod)); err != nil {
			return err
		}
		// The payment's expense may duplicate one recorded by hand; it is the
		// bill's payment, so it is never said to look like one.
		out.Warnings, err = w.written(ctx, e)
		out.Warnings = append(out.Warnings, notes[0]...)
		return err
	})
	return out, err
}

// recordBillPayment appends the entry of a write on the bill payment p.
func (s *Service) recordBillPayment(ctx context.Context, tx Repo, userID, action string, p BillPayment, summary string) error {
	return s.record(ctx, tx, userID, Activity{Kind: RecordBillPayment, RecordID: p.ID, Action: action, Summary: summary, Amount: &p.Amount})
}

// resettleBill refreshes a bill's paid total (and, unless sticky, its
// status) from its posted payments, and stores it.
func (s *Service) resettleBill(ctx context.Context, tx Repo, userID string, b *Bill) error {
	paid, err := tx.BillPaidTotal(ctx, b.ID)
	if err != nil {
		return err
	}
	b.settle(paid)
	b.UpdatedAt = s.stamp()
	return tx.UpdateBill(ctx, userID, *b)
}

// DeleteBillPayment voids a bill payment and its expense, which voids the
// account debit or the unbilled card purchase too; a purchase already billed
// or converted cannot be taken back (INVALID_STATUS). The bill is
// recomputed; a status set by hand stays.
func (s *Service) DeleteBillPayment(ctx context.Context, userID, paymentID string) (BillPaymentResult, error) {
	today := s.today(ctx, userID)
	var out BillPaymentResult
	err := s.store.Write(ctx, func(tx Repo) error {
		p, err := tx.BillPayment(ctx, userID, paymentID)
		if err != nil {
			return err
		}
		if p.Status == StatusVoided {
			return InvalidStatus("bill payment is already voided")
		}
		e, err := tx.Expense(ctx, userID, p.ExpenseID)
		if err != nil {
			return err
		}
		if st := e.CardTransactionStatus; st != nil && *st != CardUnbilled && *st != StatusVoided {
			return InvalidStatus("bill payment's card transaction is %s; only a payment whose card transaction is unbilled can be deleted", *st)
		}
		if err := s.unlinkExpense(ctx, tx, userID, e); err != nil {
			return err
		}
		if e.Status != StatusVoided {
			if err := s.markExpenseVoided(ctx, tx, userID, e); err != nil {
				return err
			}
		}
		now := s.stamp()
		p.Status, p.VoidedAt, p.UpdatedAt = StatusVoided, &now, now
		if err := tx.UpdateBillPayment(ctx, userID, p); err != nil {
			return err
		}
		b, err := tx.Bill(ctx, userID, p.BillID)
		if err != nil {
			return err
		}
		if err := s.resettleBill(ctx, tx, userID, &b); err != nil {
			return err
		}
		out.Payment = p
		if out.Bill, err = s.finishBillWrite(ctx, tx, userID, b.ID, today); err != nil {
			return err
		}
		return s.recordBillPayment(ctx, tx, userID, LogVoided, p, fmt.Sprintf("Payment of %s on bill %s due %s voided",
			p.Amount, quoted(b.Name), b.DueDate))
	})
	return out, err
}

// CountAmount is a number of bills and what they add up to.
type CountAmount struct {
	Count  int   `json:"count"`
	Amount Money `json:"amount"`
}

// BillStatusTotals are the bills of a month by status, with their amounts due.
type BillStatusTotals struct {
	Unpaid        CountAmount `json:"unpaid"`
	PartiallyPaid CountAmount `json:"partially_paid"`
	Paid          CountAmount `json:"paid"`
	Skipped       CountAmount `json:"skipped"`
}

// BillTotals are the sums GET /bills/summary is made of, of the bills of
// one Currency (their templates').
type BillTotals struct {
	Currency  string
	ByStatus  BillStatusTotals
	Paid      Money       // posted payments on the range's bills
	Remaining Money       // what is left of the range's open bills
	DueSoon   CountAmount // open bills of the range due from today to the due-soon end; amount = remaining
	Overdue   CountAmount // open bills of any month due before today; amount = remaining
}

// BillSummary is GET /bills/summary (domain.md §5.4): its amounts in the
// reporting Currency, each bill's converted at today's rate as amounts due
// are; the upcoming bills each in its own currency.
type BillSummary struct {
	Month    string `json:"month"`
	Currency string `json:"currency"`
	ConversionNote
	TotalCount      int              `json:"total_count"`
	TotalAmount     Money            `json:"total_amount"`
	PaidAmount      Money            `json:"paid_amount"`
	RemainingAmount Money            `json:"remaining_amount"`
	ByStatus        BillStatusTotals `json:"by_status"`
	Overdue         CountAmount      `json:"overdue"`
	DueSoon         CountAmount      `json:"due_soon"`
	Upcoming        []Bill           `json:"upcoming"`
}

// MaxUpcomingBills bounds the summary's upcoming list.
const MaxUpcomingBills = 5

// SummarizeBills covers the bills due in month (its first day; zero: the
// current month): their count and amounts (skipped ones add no amount),
// what was paid with payments, the open remainder, the due-soon ones and the
// next few open ones from today, and the overdue bills of every month.
func (s *Service) SummarizeBills(ctx context.Context, userID string, month Date) (BillSummary, error) {
	today := s.today(ctx, userID)
	if month.IsZero() {
		month = MonthAdd(today, 0, 1)
	}
	end := MonthAdd(month, 0, 31)
	if err := s.GenerateBills(ctx, userID, end); err != nil {
		return BillSummary{}, err
	}
	window := s.settingsOrDefault(ctx, userID).settings.DueSoonDays
	r := s.store.Read()
	byCurrency, err := r.BillTotals(ctx, userID, month, end, today, today.AddDays(window))
	if err != nil {
		return BillSummary{}, err
	}
	out := BillSummary{Month: month.MonthString(), Currency: s.currency(ctx, userID), Upcoming: []Bill{}}
	if err := s.convertBillTotals(ctx, userID, &out, byCurrency, today); err != nil {
		return BillSummary{}, err
	}
	from := month
	if today.After(from) {
		from = today
	}
	if !from.After(end) {
		upcoming, _, err := r.ListBills(ctx, userID, BillFilter{Status: BillOpen, DateFrom: from, DateTo: end, Today: today},
			ListParams{Page: 1, Limit: MaxUpcomingBills, SortBy: BillList.Sorts[0]})
		if err != nil {
			return BillSummary{}, err
		}
		for i := range upcoming {
			upcoming[i].derive(today)
		}
		out.Upcoming = append(out.Upcoming, upcoming...)
	}
	return out, nil
}

// convertBillTotals fills the counts and amounts of out from the bills of
// each currency, every amount converted to out.Currency at today's rate: a
// month's bills are what is due, as of today, so what is due stays what is
// paid plus what remains. A currency without a rate is left out of every
// amount and named by what is due in it, or, with nothing due in the
// month, by what is overdue; the counts keep every bill.
func (s *Service) convertBillTotals(ctx context.Context, userID string, out *BillSummary, byCurrency []BillTotals, today Date) error {
	figure := func(of func(BillTotals) Money) []DatedAmount {
		return datedGroups(byCurrency, today, func(t BillTotals) (string, Money) { return t.Currency, of(t) })
	}
	due := figure(func(t BillTotals) Money {
		return t.ByStatus.Unpaid.Amount + t.ByStatus.PartiallyPaid.Amount + t.ByStatus.Paid.Amount
	})
	overdue := figure(func(t BillTotals) Money { return t.Overdue.Amount })
	skipped := figure(func(t BillTotals) Money { return t.ByStatus.Skipped.Amount })
	conv, err := s.sumConverter(ctx, userID, out.Currency, due, overdue, skipped)
	if err != nil {
		return err
	}
	count := func(of func(BillTotals) CountAmount) CountAmount {
		var c CountAmount
		for _, t := range byCurrency {
			c.Count += of(t).Count
		}
		c.Amount = conv.sum(ctx, figure(func(t BillTotals) Money { return of(t).Amount }))
		return c
	}
	out.ByStatus = BillStatusTotals{
		Unpaid:        count(func(t BillTotals) CountAmount { return t.ByStatus.Unpaid }),
		PartiallyPaid: count(func(t BillTotals) CountAmount { return t.ByStatus.PartiallyPaid }),
		Paid:          count(func(t BillTotals) CountAmount { return t.ByStatus.Paid }),
		Skipped:       count(func(t BillTotals) CountAmount { return t.ByStatus.Skipped }),
	}
	out.Overdue = count(func(t BillTotals) CountAmount { return t.Overdue })
	out.DueSoon = count(func(t BillTotals) CountAmount { return t.DueSoon })
	out.TotalAmount = conv.sum(ctx, due)
	out.PaidAmount = conv.sum(ctx, figure(func(t BillTotals) Money { return t.Paid }))
	out.RemainingAmount = conv.sum(ctx, figure(func(t BillTotals) Money { return t.Remaining }))
	for _, c := range []CountAmount{out.ByStatus.Unpaid, out.ByStatus.PartiallyPaid, out.ByStatus.Paid, out.ByStatus.Skipped} {
		out.TotalCount += c.Count
	}
	out.ConversionNote = conv.NoteOf(ctx, due, slices.DeleteFunc(overdue, func(o DatedAmount) bool {
		return slices.ContainsFunc(due, func(d DatedAmount) bool { return d.Currency == o.Currency && d.Amount != 0 })
	}))
	return conv.Err()
}

// TemplateOption is a template as write forms offer it.
type TemplateOption struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// BillFormOptions is GET /bills/form-options (§2.10).
type BillFormOptions struct {
	Categories     []CategoryOption `json:"categories"`
	Accounts       []AccountOption  `json:"accounts"`
	CreditCards    []CardOption     `json:"credit_cards"`
	PaymentMethods []string         `json:"payment_methods"`
	Frequencies    []string         `json:"frequencies"`
	Statuses       []string         `json:"statuses"`
	Templates      []TemplateOption `json:"templates"`
}

// BillFormOptions returns what bill forms offer: the active expense
// categories, accounts and cards, the methods, frequencies and statuses, and
// the user's templates (active and paused) by name.
func (s *Service) BillFormOptions(ctx context.Context, userID string) (BillFormOptions, error) {
	var out BillFormOptions
	var err error
	if out.Categories, err = s.CategoryOptions(ctx, userID, KindExpense); err != nil {
		return out, err
	}
	if out.Accounts, err = s.AccountOptions(ctx, userID); err != nil {
		return out, err
	}
	if out.CreditCards, err = s.CardOptions(ctx, userID); err != nil {
		return out, err
	}
	templates, _, err := s.store.Read().ListBillTemplates(ctx, userID, BillTemplateFilter{},
		ListParams{Page: 1, Limit: allRows, SortBy: BillTemplateList.Sorts[0]})
	if err != nil {
		return out, err
	}
	out.Templates = make([]TemplateOption, len(templates))
	for i, t := range templates {
		out.Templates[i] = TemplateOption{ID: t.ID, Name: t.Name}
	}
	out.PaymentMethods, out.Frequencies, out.Statuses = PaymentMethods, Frequencies, BillStatuses
	return out, nil
}
