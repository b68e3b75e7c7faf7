package finance

import (
	"fmt"
	"slices"
	"strings"
)

// A recurrence is when a recurring template falls due: bill templates and
// income templates share it (domain.md "Frequencies and the semi-monthly
// rule"), so both step their dates through this one piece of code.

// Recurrence frequencies, in display order.
const (
	FrequencyWeekly      = "weekly"
	FrequencyBiweekly    = "biweekly"
	FrequencySemimonthly = "semimonthly"
	FrequencyMonthly     = "monthly"
	FrequencyQuarterly   = "quarterly"
	FrequencySemiannual  = "semiannual"
	FrequencyYearly      = "yearly"
)

// Frequencies are the frequencies a bill or income template may have, in display order.
var Frequencies = []string{FrequencyWeekly, FrequencyBiweekly, FrequencySemimonthly, FrequencyMonthly,
	FrequencyQuarterly, FrequencySemiannual, FrequencyYearly}

// MaxSemimonthlyFirstDay is the latest first day of a semi-monthly
// schedule: with the first day at most 27, the second day clamped to a
// February of 28 days still falls after it, so a month never has its two
// dates on one day.
const MaxSemimonthlyFirstDay = 27

// frequencyStep is how far apart a frequency's occurrences are: days for the
// weekly ones, months for the others. Semi-monthly steps a month at a time,
// with two dates in each.
func frequencyStep(f string) (days, months int) {
	switch f {
	case FrequencyWeekly:
		return 7, 0
	case FrequencyBiweekly:
		return 14, 0
	case FrequencyMonthly, FrequencySemimonthly:
		return 0, 1
	case FrequencyQuarterly:
		return 0, 3
	case FrequencySemiannual:
		return 0, 6
	case FrequencyYearly:
		return 0, 12
	}
	return 0, 0
}

// Recurrence is a template's terms of recurrence. DueDay is set for the
// month-based frequencies, SecondDueDay for semimonthly alone.
type Recurrence struct {
	Frequency    string
	StartDate    Date
	DueDay       *int
	SecondDueDay *int
}

// monthDays are the days of month a month-based schedule falls on, in order.
func (s Recurrence) monthDays() []int {
	if s.Frequency == FrequencySemimonthly && s.SecondDueDay != nil {
		return []int{*s.DueDay, *s.SecondDueDay}
	}
	return []int{*s.DueDay}
}

// Occurrences returns the schedule's dates after `after` (zero: from the
// first) through `through`, oldest first. The first is start_date for the
// weekly frequencies; else the first date on or after it whose day is a due
// day clamped to its month. Month-based dates are computed from the start's
// month with the due day, never from the previous date, so a date on the
// 31st falls on Feb 28 and then on Mar 31 again.
func (s Recurrence) Occurrences(after, through Date) []Date {
	days, months := frequencyStep(s.Frequency)
	var out []Date
	keep := func(d Date) bool {
		if d.After(through) {
			return false
		}
		if after.IsZero() || d.After(after) {
			out = append(out, d)
		}
		return true
	}
	switch {
	case days > 0:
		k := 0
		if after.After(s.StartDate) {
			k = s.StartDate.DaysUntil(after) / days // skip the whole steps before after
		}
		for ; keep(s.StartDate.AddDays(k * days)); k++ {
		}
	case months > 0 && s.DueDay != nil:
		// The first period is the start's month, or the next one when every
		// due day of the start's month is before the start.
		first := 0
		if dd := s.monthDays(); MonthAdd(s.StartDate, 0, dd[len(dd)-1]).Before(s.StartDate) {
			first = months
		}
		for k := first; ; k += months {
			for _, day := range s.monthDays() {
				d := MonthAdd(s.StartDate, k, day)
				if d.Before(s.StartDate) {
					continue
				}
				if !keep(d) {
					return out
				}
			}
		}
	}
	return out
}

// shapeDueDays reads due_day and second_due_day over s: only month-based
// frequencies take a due day, defaulting to the start date's day; only
// semimonthly takes the second, required and after the first. A change to
// a frequency that does not take them drops them. noun names the records
// in messages ("bills", "income templates").
func shapeDueDays(v *Validator, s *Recurrence, dueDay, secondDueDay Field[int], create bool, noun string) {
	if v.Has("frequency") {
		return
	}
	_, months := frequencyStep(s.Frequency)
	given := dueDay.Set && !dueDay.Null
	switch {
	case months == 0:
		if given {
			v.Add("due_day", "must be absent for "+s.Frequency+" "+noun+", which repeat every 7 or 14 days from start_date")
		}
		s.DueDay = nil
	case given:
		day := dayOfMonth(v, "due_day", dueDay)
		s.DueDay = &day
	case create || dueDay.Null || s.DueDay == nil:
		if s.StartDate.IsZero() {
			return // start_date has its own problem
		}
		day := s.StartDate.Day()
		s.DueDay = &day
	}
	secondGiven := secondDueDay.Set && !secondDueDay.Null
	if s.Frequency != FrequencySemimonthly {
		if secondGiven {
			v.Add("second_due_day", "must be absent unless frequency is semimonthly")
		}
		s.SecondDueDay = nil
		return
	}
	if secondGiven || secondDueDay.Null || s.SecondDueDay == nil {
		day := dayOfMonth(v, "second_due_day", secondDueDay)
		s.SecondDueDay = &day
	}
	if s.DueDay == nil || v.Has("due_day") || v.Has("second_due_day") {
		return
	}
	if *s.DueDay > MaxSemimonthlyFirstDay {
		v.Add("due_day", "must be from 1 to 27 for semimonthly (the first of the two days; 31 as second_due_day means the last day)")
	} else if *s.SecondDueDay <= *s.DueDay {
		v.Add("second_due_day", "must be after due_day (up to 31, the last day of the month)")
	}
}

// recurringRequest is what the requests of bill and income templates share:
// the name, amount and category, and when the template falls due.
type recurringRequest struct {
	Name, Category, Frequency, Currency Field[string]
	Amount                              Field[Money]
	StartDate, EndDate                  Field[Date]
	DueDay, SecondDueDay                Field[int]
}

// recurringTerms are the fields of a template that a recurringRequest
// shapes, in place.
type recurringTerms struct {
	name       *string
	amount     *Money
	currency   *string // absent or null keeps it (the reporting currency on create)
	schedule   *Recurrence
	end        *Date
	categoryTo *string // the category name to resolve, "" when it does not change
}

// shape validates the fields present in r (all required ones on create)
// into t, as of today; noun names the records in messages ("bills").
func (r recurringRequest) shape(v *Validator, t recurringTerms, create bool, today Date, noun string) {
	s := t.schedule
	if create || r.Name.Set {
		*t.name = v.RequiredText("name", r.Name, MaxName)
	}
	if create || r.Amount.Set {
		*t.amount = v.RequiredMoney("amount", r.Amount)
	}
	cur := recordCurrency(v, "currency", r.Currency, currencyOf(*t.currency))
	*t.currency = cur.Code
	if create || r.Amount.Set || r.Currency.Set {
		checkDecimals(v, "amount", *t.amount, cur)
	}
	if create || r.Category.Set {
		*t.categoryTo = v.RequiredText("category", r.Category, MaxName)
	}
	if create || r.Frequency.Set {
		s.Frequency = requiredEnum(v, "frequency", r.Frequency, strings.Join(Frequencies, ", "),
			func(f string) bool { return slices.Contains(Frequencies, f) })
	}
	if create || r.StartDate.Set {
		s.StartDate = v.RequiredDate("start_date", r.StartDate)
		earliest := today.AddDays(-MaxStartDaysBack)
		if !v.Has("start_date") && s.StartDate.Before(earliest) {
			v.Add("start_date", fmt.Sprintf("must be on or after %s (at most %d days before today)", earliest, MaxStartDaysBack))
		}
	}
	shapeDueDays(v, s, r.DueDay, r.SecondDueDay, create, noun)
	switch {
	case r.EndDate.Null:
		*t.end = Date{}
	case r.EndDate.Set:
		*t.end = v.RequiredDate("end_date", r.EndDate)
	}
	if !t.end.IsZero() && !s.StartDate.IsZero() && t.end.Before(s.StartDate) && !v.Has("end_date") {
		v.Add("end_date", "must be on or after start_date "+s.StartDate.String())
	}
}

// resumeFrom is where a template's generation picks up after a change on
// today: from today on the new terms apply, and an active template that was
// paused resumes from today, its paused stretch left empty.
func resumeFrom(generated Date, wasPaused, active bool, today Date) Date {
	yesterday := today.AddDays(-1)
	if !generated.IsZero() && generated.After(yesterday) {
		return yesterday
	}
	if wasPaused && active && generated.Before(yesterday) {
		return yesterday
	}
	return generated
}
