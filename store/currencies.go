package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/finance-app/finance/finance"
)

// moneyRecordedSQL is, per kind of record, the rows that hold money in the
// record's currency (finance.CurrencyRepo): while none exists its currency
// may change. Voided rows count: they still show their amounts in it.
var moneyRecordedSQL = map[string]string{
	finance.RecordAccount: `SELECT EXISTS (SELECT 1 FROM account_transactions WHERE account_id = ? AND user_id = ?)`,
	finance.LogCreditCard: `SELECT EXISTS (SELECT 1 FROM card_transactions WHERE credit_card_id = ? AND user_id = ?)
		OR EXISTS (SELECT 1 FROM soa_payments WHERE credit_card_id = ? AND user_id = ?)`,
	finance.RecordLoan: `SELECT EXISTS (SELECT 1 FROM loan_payments WHERE loan_id = ? AND user_id = ?)`,
	finance.RecordBillTemplate: `SELECT EXISTS (SELECT 1 FROM bill_instances WHERE template_id = ? AND user_id = ?
		AND (status IN ('paid', 'partially_paid') OR paid_total > 0))`,
	finance.RecordIncomeTemplate: `SELECT EXISTS (SELECT 1 FROM expected_income WHERE template_id = ? AND user_id = ?
		AND status = 'received')`,
}

func (l ledger) MoneyRecorded(ctx context.Context, userID, kind, id string) (bool, error) {
	q, ok := moneyRecordedSQL[kind]
	if !ok {
		return false, fmt.Errorf("store: no money rows known for %q", kind)
	}
	var args []any // each subquery takes the record's id and the user's
	for range strings.Count(q, "?") / 2 {
		args = append(args, id, userID)
	}
	var found bool
	err := l.db.QueryRowContext(ctx, q, args...).Scan(&found)
	return found, err
}
