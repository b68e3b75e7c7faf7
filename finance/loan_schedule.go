package finance

import (
	"fmt"
	"math/big"
)

// Loan interest types and rate periods (domain.md §2.11). InterestNone and
// InterestAddOn are shared with installment plans.
const (
	InterestDiminishing = "diminishing"

	RateMonthly = "monthly"
	RateAnnual  = "annual"
)

// LoanInterestTypes and RatePeriods are the values a loan accepts.
var (
	LoanInterestTypes = []string{InterestNone, InterestAddOn, InterestDiminishing}
	RatePeriods       = []string{RateMonthly, RateAnnual}
)

// LoanTerms are the financial terms a loan's schedule is computed from.
type LoanTerms struct {
	Principal     Money
	InterestType  string
	Rate          Rate   // 0 when absent
	RatePeriod    string // monthly or annual; how Rate is quoted
	Months        int
	MonthlyAmount *Money // the lender's quote, add_on or diminishing only
	// Currency is the loan's: rows are rounded to its minor units (whole
	// yen for JPY), stored in hundredths like every amount. Empty is a
	// currency of 2 decimals.
	Currency string
}

// monthlyRate is the monthly rate r as the exact fraction num/den: rate/100
// a month, or rate/100/12 when the rate is annual.
func (t LoanTerms) monthlyRate() (num, den int64) {
	den = 100 * RateScale
	if t.RatePeriod == RateAnnual {
		den *= 12
	}
	return int64(t.Rate), den
}

// LoanRow is one computed row of a loan schedule: the amounts of instance
// Number. Dates are the caller's (LoanDueDate).
type LoanRow struct {
	Number    int
	Principal Money
	Interest  Money
}

// Amount is what the row asks for.
func (r LoanRow) Amount() Money { return r.Principal + r.Interest }

// LoanSchedule computes the rows of a loan (domain.md §4.5) on exact
// rationals, rounding each computed amount half-up to the minor unit of
// the loan's currency (the centavo; the whole yen), the last row absorbing
// what rounding left. It returns the total interest and the rows, or a
// *ValidationError when the terms cannot make a schedule: a quoted monthly
// amount that pays no principal or repays the loan before its last row, or
// a principal too small to give every row an amount.
//
// Every step (split, interest, annuity) scales with its amounts, so the
// schedule is computed in the currency's minor units (a yen loan's
// principal, already whole yen, divided by 100) and each row multiplied
// back to hundredths: the same code rounds centavos and yen.
func LoanSchedule(t LoanTerms) (Money, []LoanRow, error) {
	unit := currencyOf(t.Currency).storedUnit()
	t.Principal /= unit
	if t.MonthlyAmount != nil {
		m := *t.MonthlyAmount / unit
		t.MonthlyAmount = &m
	}
	var rows []LoanRow
	var err error
	switch t.InterestType {
	case InterestDiminishing:
		rows, err = diminishingRows(t, unit)
	case InterestAddOn:
		rows, err = addOnRows(t, unit)
	default:
		rows = splitRows(floorSplit(t.Principal, t.Months), make([]Money, t.Months))
	}
	if err != nil {
		return 0, nil, err
	}
	var interest Money
	for k, r := range rows {
		if r.Principal <= 0 {
			return 0, nil, Invalid("principal", fmt.Sprintf("is too small to spread over %d monthly installments", t.Months))
		}
		rows[k].Principal, rows[k].Interest = r.Principal*unit, r.Interest*unit
		interest += rows[k].Interest
	}
	return interest, rows, nil
}

func splitRows(principal, interest []Money) []LoanRow {
	rows := make([]LoanRow, len(principal))
	for k := range rows {
		rows[k] = LoanRow{Number: k + 1, Principal: principal[k], Interest: interest[k]}
	}
	return rows
}

// addOnRows: I = half_up(P × r × n), principal and interest each floor-split;
// with a quoted M, I = n·M − P, interest floor-split and principal_k = M − interest_k.
// Amounts are in minor units of unit hundredths (LoanSchedule); a problem
// names them in hundredths, as every amount is written.
func addOnRows(t LoanTerms, unit Money) ([]LoanRow, error) {
	n := t.Months
	if m := t.MonthlyAmount; m != nil {
		total := Money(n) * *m
		if total < t.Principal {
			return nil, Invalid("monthly_amount", fmt.Sprintf("times %d months is %s, less than the principal %s", n, total*unit, t.Principal*unit))
		}
		interests := floorSplit(total-t.Principal, n)
		principal := make([]Money, n)
		for k := range principal {
			principal[k] = *m - interests[k]
			if principal[k] <= 0 {
				return nil, Invalid("monthly_amount", fmt.Sprintf("leaves installment %d without principal: %s of interest in a %s payment",
					k+1, interests[k]*unit, *m*unit))
			}
		}
		return splitRows(principal, interests), nil
	}
	num, den := t.monthlyRate()
	interest := mulDivHalfUp(t.Principal, num*int64(n), den)
	return splitRows(floorSplit(t.Principal, n), floorSplit(interest, n)), nil
}

// diminishingRows: interest on the declining balance. With the monthly
// payment M (the lender's, or the annuity payment), rows 1..n−1 pay
// half_up(balance × r) of interest and the rest of M as principal; row n pays
// the remaining balance plus its interest. Amounts are in minor units of
// unit hundredths, as in addOnRows.
func diminishingRows(t LoanTerms, unit Money) ([]LoanRow, error) {
	num, den := t.monthlyRate()
	n := t.Months
	var m Money
	field := "principal"
	if t.MonthlyAmount != nil {
		m, field = *t.MonthlyAmount, "monthly_amount"
	} else {
		m = AnnuityPayment(t.Principal, num, den, n)
	}
	rows := make([]LoanRow, n)
	balance := t.Principal
	for k := range rows {
		interest := mulDivHalfUp(balance, num, den)
		if k == n-1 {
			rows[k] = LoanRow{Number: n, Principal: balance, Interest: interest}
			break
		}
		principal := m - interest
		if principal <= 0 {
			if field == "monthly_amount" {
				return nil, Invalid(field, fmt.Sprintf("must be more than the interest of installment %d (%s)", k+1, interest*unit))
			}
			return nil, Invalid(field, fmt.Sprintf("is too small to spread over %d monthly installments", n))
		}
		balance -= principal
		if balance <= 0 {
			return nil, Invalid(field, fmt.Sprintf("repays the loan by installment %d of %d; the term and the monthly amount disagree", k+1, n))
		}
		rows[k] = LoanRow{Number: k + 1, Principal: principal, Interest: interest}
	}
	return rows, nil
}

// AnnuityPayment is the level monthly payment of a diminishing-balance loan
// (domain.md §4.5): M = half_up(P·r / (1 − (1+r)^−n)) with r = num/den,
// computed exactly. With r = a/b it is P·a·(a+b)^n / (b·((a+b)^n − b^n)).
func AnnuityPayment(p Money, num, den int64, n int) Money {
	a, b := big.NewInt(num), big.NewInt(den)
	exp := big.NewInt(int64(n))
	grown := new(big.Int).Exp(new(big.Int).Add(a, b), exp, nil) // (a+b)^n
	base := new(big.Int).Exp(b, exp, nil)                       // b^n
	x := new(big.Int).Mul(big.NewInt(int64(p)), a)
	x.Mul(x, grown)
	d := new(big.Int).Sub(grown, base)
	d.Mul(d, b)
	// floor(x/d + 1/2) = floor((2x + d) / 2d); d > 0.
	x.Mul(x, big.NewInt(2)).Add(x, d)
	return Money(x.Div(x, d.Mul(d, big.NewInt(2))).Int64())
}

// LoanDueDate is the due date of instance k (from 1): k−1 months after the
// first due date, on the anchor day clamped to the month (domain.md §2.11).
func LoanDueDate(first Date, anchorDay, k int) Date { return MonthAdd(first, k-1, anchorDay) }
