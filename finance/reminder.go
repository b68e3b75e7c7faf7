package finance

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ReminderSettings are a user's reminder preferences (docs/domain.md,
// Reminders). A user who never saved them has DefaultReminderSettings: off.
type ReminderSettings struct {
	Enabled         bool    `json:"enabled"`
	BillDays        int     `json:"bill_days"`
	StatementDays   int     `json:"statement_days"`
	LoanDays        int     `json:"loan_days"`
	BudgetThreshold bool    `json:"budget_threshold"`
	DigestDay       string  `json:"digest_day"`
	DigestHour      int     `json:"digest_hour"`
	QuietStart      *string `json:"quiet_start"`
	QuietEnd        *string `json:"quiet_end"`
}

// DigestDays are the choices of digest_day: off, or a day of the week.
var DigestDays = []string{"off", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// MaxReminderDays bounds the days-before fields: a month ahead.
const MaxReminderDays = 31

// DefaultReminderSettings are the preferences of a user who never chose any.
func DefaultReminderSettings() ReminderSettings {
	start, end := "22:00", "07:00"
	return ReminderSettings{BillDays: 3, StatementDays: 5, LoanDays: 3, BudgetThreshold: true,
		DigestDay: "monday", DigestHour: 8, QuietStart: &start, QuietEnd: &end}
}

// ReminderSettingsRequest is the body of PUT /user-settings/reminders: a
// partial update. Only the quiet hours take null (none); every other field
// has a value to send, so null there is refused rather than guessed at.
type ReminderSettingsRequest struct {
	Enabled         Field[bool]   `json:"enabled"`
	BillDays        Field[int]    `json:"bill_days"`
	StatementDays   Field[int]    `json:"statement_days"`
	LoanDays        Field[int]    `json:"loan_days"`
	BudgetThreshold Field[bool]   `json:"budget_threshold"`
	DigestDay       Field[string] `json:"digest_day"`
	DigestHour      Field[int]    `json:"digest_hour"`
	QuietStart      Field[string] `json:"quiet_start"`
	QuietEnd        Field[string] `json:"quiet_end"`
}

// Apply validates the fields present in r and sets them on st.
func (r ReminderSettingsRequest) Apply(v *Validator, st *ReminderSettings) {
	flag := func(name string, f Field[bool], dst *bool) {
		switch {
		case !v.readable(name, f) || !f.Set:
		case f.Null:
			v.Add(name, "must be true or false")
		default:
			*dst = f.Value
		}
	}
	number := func(name string, f Field[int], dst *int, hi int) {
		switch {
		case !v.readable(name, f) || !f.Set:
		case f.Null || f.Value < 0 || f.Value > hi:
			v.Add(name, "must be an integer from 0 to "+strconv.Itoa(hi))
		default:
			*dst = f.Value
		}
	}
	flag("enabled", r.Enabled, &st.Enabled)
	number("bill_days", r.BillDays, &st.BillDays, MaxReminderDays)
	number("statement_days", r.StatementDays, &st.StatementDays, MaxReminderDays)
	number("loan_days", r.LoanDays, &st.LoanDays, MaxReminderDays)
	flag("budget_threshold", r.BudgetThreshold, &st.BudgetThreshold)
	number("digest_hour", r.DigestHour, &st.DigestHour, 23)
	switch f := r.DigestDay; {
	case !v.readable("digest_day", f) || !f.Set:
	case f.Null || !slices.Contains(DigestDays, f.Value):
		v.Add("digest_day", "must be one of: "+strings.Join(DigestDays, ", "))
	default:
		st.DigestDay = f.Value
	}
	// The quiet window is one setting in two fields: null in either turns it
	// off, and a time in one needs a time in the other.
	clock := func(name string, f Field[string], dst **string) {
		switch {
		case !v.readable(name, f) || !f.Set:
		case f.Null:
			*dst = nil
		case strings.TrimSpace(f.Value) == "":
			v.Add(name, "is required with the other end of the quiet hours (both HH:MM, or both null)")
		default:
			if _, ok := clockMinutes(f.Value); !ok {
				v.Add(name, "must be a time HH:MM from 00:00 to 23:59, or null for no quiet hours")
				return
			}
			t := f.Value
			*dst = &t
		}
	}
	clock("quiet_start", r.QuietStart, &st.QuietStart)
	clock("quiet_end", r.QuietEnd, &st.QuietEnd)
	if v.Err() != nil {
		return
	}
	switch {
	case r.QuietStart.Null || r.QuietEnd.Null:
		st.QuietStart, st.QuietEnd = nil, nil
	case (st.QuietStart == nil) != (st.QuietEnd == nil):
		missing := "quiet_end"
		if st.QuietStart == nil {
			missing = "quiet_start"
		}
		v.Add(missing, "is required with the other end of the quiet hours (both HH:MM, or both null)")
	case st.QuietStart != nil && *st.QuietStart == *st.QuietEnd:
		v.Add("quiet_start", "must differ from quiet_end")
	}
}

// clockMinutes reads "HH:MM" (24-hour, two digits each) as minutes after midnight.
func clockMinutes(s string) (int, bool) {
	if len(s) != 5 || s[2] != ':' {
		return 0, false
	}
	h, err1 := strconv.Atoi(s[:2])
	m, err2 := strconv.Atoi(s[3:])
	if err1 != nil || err2 != nil || s[0] == '+' || s[3] == '+' || h < 0 || h > 23 || m < 0 || m > 59 {
		return 0, false
	}
	return h*60 + m, true
}

// quiet reports whether the local time at falls in the quiet window
// [start, end), which crosses midnight when end comes before start.
func (st ReminderSettings) quiet(at time.Time) bool {
	if st.QuietStart == nil || st.QuietEnd == nil {
		return false
	}
	start, ok1 := clockMinutes(*st.QuietStart)
	end, ok2 := clockMinutes(*st.QuietEnd)
	if !ok1 || !ok2 {
		return false
	}
	m := at.Hour()*60 + at.Minute()
	if start < end {
		return m >= start && m < end
	}
	return m >= start || m < end
}

// Reminder kinds.
const (
	ReminderBill      = "bill_due"
	ReminderStatement = "statement_due"
	ReminderLoan      = "loan_due"
	ReminderBudget    = "budget_threshold"
	ReminderDigest    = "weekly_digest"
)

// Deliveries of a claimed reminder to the user's chats.
const (
	DeliveryPending  = "pending"   // claimed; not sent, and never will be if its process stopped
	DeliverySent     = "sent"      // accepted for at least one linked chat
	DeliveryFailed   = "failed"    // the send failed; not retried
	DeliveryHomeOnly = "home_only" // no linked chat or no bot: shown on Home only
)

// Reminder is one claimed reminder. (UserID, Kind, Subject, Occurrence) is
// its key: a reminder with the key of one already claimed is never claimed.
type Reminder struct {
	ID         string     `json:"id"`
	Kind       string     `json:"kind"`
	Subject    string     `json:"subject"`
	Occurrence string     `json:"occurrence"`
	Message    string     `json:"message"`
	Delivery   string     `json:"delivery"`
	Error      *string    `json:"error"`
	CreatedAt  time.Time  `json:"created_at"`
	SentAt     *time.Time `json:"sent_at"`
}

// RecentReminders is how many reminders GET /reminders and Home show.
const RecentReminders = 50

// ReminderRepo is the persistence of reminder preferences and claims.
type ReminderRepo interface {
	// ReminderSettings returns the user's preferences, or the defaults.
	ReminderSettings(ctx context.Context, userID string) (ReminderSettings, error)
	SaveReminderSettings(ctx context.Context, userID string, st ReminderSettings, at time.Time) error
	// RemindedUsers returns the users with reminders enabled.
	RemindedUsers(ctx context.Context) ([]string, error)
	// ClaimReminder inserts r unless a reminder with its key exists, and
	// reports whether it did.
	ClaimReminder(ctx context.Context, userID string, r Reminder) (bool, error)
	// SetReminderDelivery records what the send of a claimed reminder did.
	SetReminderDelivery(ctx context.Context, userID, id, delivery string, problem *string, at time.Time) error
	// ListReminders returns the user's newest reminders, up to limit.
	ListReminders(ctx context.Context, userID string, limit int) ([]Reminder, error)
}

// ReminderSettings is GET /user-settings/reminders.
func (s *Service) ReminderSettings(ctx context.Context, userID string) (ReminderSettings, error) {
	return s.store.Read().ReminderSettings(ctx, userID)
}

// UpdateReminderSettings is PUT /user-settings/reminders.
func (s *Service) UpdateReminderSettings(ctx context.Context, userID string, req ReminderSettingsRequest) (ReminderSettings, error) {
	var out ReminderSettings
	err := s.store.Write(ctx, func(tx Repo) error {
		st, err := tx.ReminderSettings(ctx, userID)
		if err != nil {
			return err
		}
		cur := st
		var v Validator
		req.Apply(&v, &st)
		if err := v.Err(); err != nil {
			return err
		}
		out = st
		if err := tx.SaveReminderSettings(ctx, userID, st, s.stamp()); err != nil {
			return err
		}
		c := changes(cur, st, "enabled", "bill_days", "statement_days", "loan_days", "budget_threshold", "digest_day",
			"digest_hour", "quiet_start", "quiet_end")
		if len(c) == 0 {
			return nil
		}
		return s.record(ctx, tx, userID, Activity{Kind: RecordReminderSettings, RecordID: userID, Action: LogUpdated,
			Summary: "Reminders: " + c.String()})
	})
	return out, err
}

// Reminders is GET /reminders: the user's newest claimed reminders.
func (s *Service) Reminders(ctx context.Context, userID string) ([]Reminder, error) {
	out, err := s.store.Read().ListReminders(ctx, userID, RecentReminders)
	if out == nil {
		out = []Reminder{}
	}
	return out, err
}

// ReminderSender delivers a reminder's message to the user's linked chats.
// It reports sent false with a nil error when the user has no chat to send
// to (or no bot runs), and an error when a send failed.
type ReminderSender interface {
	SendReminder(ctx context.Context, userID, message string) (sent bool, err error)
}

// RunReminders is one pass of the scheduler: for each user with reminders
// on, claim every reminder due now, each in its own transaction, and send
// the ones this pass claimed. It returns how many it claimed. A user whose
// reminders cannot be read is skipped, so one user's failure holds back no
// one else's; the first such error is returned after the pass.
func (s *Service) RunReminders(ctx context.Context, send ReminderSender) (int, error) {
	users, err := s.store.Read().RemindedUsers(ctx)
	if err != nil {
		return 0, err
	}
	claimed := 0
	var first error
	for _, userID := range users {
		if ctx.Err() != nil {
			return claimed, ctx.Err()
		}
		n, err := s.remindUser(ctx, userID, send)
		claimed += n
		if err != nil && first == nil {
			first = fmt.Errorf("reminders of user %s: %w", userID, err)
		}
	}
	return claimed, first
}

func (s *Service) remindUser(ctx context.Context, userID string, send ReminderSender) (int, error) {
	due, err := s.DueReminders(ctx, userID)
	if err != nil {
		return 0, err
	}
	claimed := 0
	for _, r := range due {
		r.ID, r.Delivery, r.CreatedAt = NewID(), DeliveryPending, s.stamp()
		var won bool
		if err := s.store.Write(ctx, func(tx Repo) error {
			won, err = tx.ClaimReminder(ctx, userID, r)
			return err
		}); err != nil {
			return claimed, err
		}
		if !won {
			continue
		}
		claimed++
		delivery, problem := DeliveryHomeOnly, (*string)(nil)
		sent, err := send.SendReminder(ctx, userID, r.Message)
		switch {
		case err != nil:
			msg := err.Error()
			delivery, problem = DeliveryFailed, &msg
		case sent:
			delivery = DeliverySent
		}
		// The outcome is written even when the pass is being stopped: the
		// send happened (or failed), and the row should say so.
		wctx := context.WithoutCancel(ctx)
		if err := s.store.Write(wctx, func(tx Repo) error {
			return tx.SetReminderDelivery(wctx, userID, r.ID, delivery, problem, s.stamp())
		}); err != nil {
			return claimed, err
		}
	}
	return claimed, nil
}

// DueReminders are the reminders due for the user now, by their
// preferences, whether claimed before or not (the claim tells). None while
// reminders are off or the user's local time is in the quiet hours.
func (s *Service) DueReminders(ctx context.Context, userID string) ([]Reminder, error) {
	st, err := s.store.Read().ReminderSettings(ctx, userID)
	if err != nil || !st.Enabled {
		return nil, err
	}
	prefs := s.settingsOrDefault(ctx, userID)
	local := s.now().In(prefs.loc)
	if st.quiet(local) {
		return nil, nil
	}
	today := DateOf(local)
	cur := prefs.settings.Currency
	money := func(m Money) string { return FormatMoney(cur, m) }
	var out []Reminder
	add := func(kind, subject, occurrence, message string) {
		out = append(out, Reminder{Kind: kind, Subject: subject, Occurrence: occurrence, Message: message})
	}
	if st.BillDays > 0 {
		if err := s.GenerateBills(ctx, userID, Date{}); err != nil {
			return nil, err
		}
		bills, err := s.store.Read().OpenBillsDue(ctx, userID, today, today.AddDays(st.BillDays), maxRemindersPerKind)
		if err != nil {
			return nil, err
		}
		for _, b := range bills {
			add(ReminderBill, b.ID, b.DueDate.String(), fmt.Sprintf("%s: %s due %s.", b.Name, FormatMoney(b.Currency, b.Amount-b.PaidTotal), dueIn(today, b.DueDate)))
		}
	}
	if st.StatementDays > 0 {
		if err := s.GenerateStatements(ctx, userID); err != nil {
			return nil, err
		}
		soas, err := s.openStatementsDue(ctx, userID, today, today, today.AddDays(st.StatementDays))
		if err != nil {
			return nil, err
		}
		for _, a := range soas {
			add(ReminderStatement, a.ID, a.DueDate.String(), fmt.Sprintf("%s statement: %s due %s, minimum %s.",
				a.CreditCardName, FormatMoney(a.Currency, a.Remaining), dueIn(today, a.DueDate), FormatMoney(a.Currency, max(a.MinimumDue-a.PaidTotal, 0))))
		}
	}
	if st.LoanDays > 0 {
		dues, err := s.store.Read().OpenInstancesDue(ctx, userID, today, today.AddDays(st.LoanDays))
		if err != nil {
			return nil, err
		}
		for _, x := range dues {
			add(ReminderLoan, x.ID, x.DueDate.String(), fmt.Sprintf("%s installment %d: %s due %s.",
				x.LoanName, x.InstallmentNumber, FormatMoney(x.Currency, x.AmountDue-x.PaidTotal), dueIn(today, x.DueDate)))
		}
	}
	from, to := MonthRange(today)
	var spending []CategorySpending
	var spendingNote ConversionNote
	if st.BudgetThreshold || st.DigestDay != "off" {
		if spending, spendingNote, err = s.spendingByCategory(ctx, s.store.Read(), userID, from, to); err != nil {
			return nil, err
		}
	}
	if st.BudgetThreshold {
		limits, err := s.store.Read().BudgetThresholds(ctx, userID)
		if err != nil {
			return nil, err
		}
		for _, t := range measureLimits(limits, spending) {
			if t.State == BudgetOK {
				continue
			}
			add(ReminderBudget, t.CategoryID, from.MonthString()+":"+t.State, fmt.Sprintf("%s: %s spent of %s this month (%s%%)%s.",
				t.Category, money(t.Spent), money(t.MonthlyLimit), wholePercent(t.PercentUsed), overLimit(t)))
		}
	}
	if day, ok := digestDate(st, local); ok {
		msg, err := s.digest(ctx, userID, cur, today, spending, spendingNote, money)
		if err != nil {
			return nil, err
		}
		add(ReminderDigest, "digest", day.String(), msg)
	}
	return out, nil
}

// openStatementsDue are the user's open statements with money left to pay, due
// from from through through, soonest first; today marks the overdue ones.
func (s *Service) openStatementsDue(ctx context.Context, userID string, today, from, through Date) ([]SOA, error) {
	open, _, err := s.store.Read().ListSOAs(ctx, userID, SOAFilter{Status: SOAOpen, Today: today},
		ListParams{Page: 1, Limit: maxRemindersPerKind, SortBy: "due_date"})
	if err != nil {
		return nil, err
	}
	var out []SOA
	for _, a := range open {
		a.derive(today)
		if a.Remaining > 0 && !a.DueDate.Before(from) && !a.DueDate.After(through) {
			out = append(out, a)
		}
	}
	return out, nil
}

// maxRemindersPerKind bounds what one pass reads of each kind for a user.
const maxRemindersPerKind = 100

// dueIn says when a due date is, seen from today: "2025-03-05 (tomorrow)".
func dueIn(today, due Date) string {
	return due.String() + " (" + strings.TrimPrefix(DueWords(today.DaysUntil(due)), "due ") + ")"
}

// wholePercent drops the decimals of a percent: a reminder says 82%, not 82.37%.
func wholePercent(p Money) string {
	whole, _, _ := strings.Cut(p.String(), ".")
	return whole
}

func overLimit(t BudgetThreshold) string {
	if t.State == BudgetExceeded {
		return ", over the limit"
	}
	return ""
}

// digestDate is the date of the weekly digest due at the local time at: the
// last digest day whose digest hour has come, within the past seven days.
func digestDate(st ReminderSettings, at time.Time) (Date, bool) {
	i := slices.Index(DigestDays, st.DigestDay)
	if i <= 0 {
		return Date{}, false
	}
	want := time.Weekday(i % 7) // monday is 1 … sunday is 0
	back := (int(at.Weekday()) - int(want) + 7) % 7
	day := DateOf(at).AddDays(-back)
	if back == 0 && at.Hour() < st.DigestHour {
		day = day.AddDays(-7)
	}
	return day, true
}

// digest is the weekly digest's message: the month's spending and income,
// and the bills and statements due in the next seven days.
// Its figures are in the reporting currency, as the dashboard's are: income
// each at its date's rate, what is due at today's; money without a rate is
// named at the end, never added 1:1.
func (s *Service) digest(ctx context.Context, userID, reporting string, today Date, spending []CategorySpending,
	spendingNote ConversionNote, money func(Money) string) (string, error) {
	from, to := MonthRange(today)
	var spent Money
	for _, c := range spending {
		spent += c.Amount
	}
	days, err := s.store.Read().IncomeByDay(ctx, userID, from, to)
	if err != nil {
		return "", err
	}
	week := today.AddDays(7)
	bills, err := s.store.Read().OpenBillsDue(ctx, userID, today, week, maxRemindersPerKind)
	if err != nil {
		return "", err
	}
	soas, err := s.openStatementsDue(ctx, userID, today, today, week)
	if err != nil {
		return "", err
	}
	billsDue := datedGroups(bills, today, func(b Bill) (string, Money) { return b.Currency, b.Amount - b.PaidTotal })
	statementsDue := datedGroups(soas, today, func(a SOA) (string, Money) { return a.Currency, a.Remaining })
	conv, err := s.sumConverter(ctx, userID, reporting, days, billsDue, statementsDue)
	if err != nil {
		return "", err
	}
	statements := len(soas)
	msg := fmt.Sprintf("Week digest: spent %s this month, income %s; %d bill%s (%s) and %d statement%s (%s) due in the next 7 days.",
		money(spent), money(conv.sum(ctx, days)), len(bills), plural(len(bills)), money(conv.sum(ctx, billsDue)),
		statements, plural(statements), money(conv.sum(ctx, statementsDue)))
	if err := conv.Err(); err != nil {
		return "", err
	}
	if missing := spendingNote.join(conv.NoteOf(ctx, days, billsDue, statementsDue)).MissingRates; len(missing) > 0 {
		left := make([]string, len(missing))
		for i, m := range missing {
			left[i] = FormatMoney(m.Currency, m.Amount)
		}
		msg += " Not counted, for want of a rate: " + strings.Join(left, ", ") + "."
	}
	return msg, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
