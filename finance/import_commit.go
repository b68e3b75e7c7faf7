package finance

import (
	"context"
	"errors"
	"fmt"
)

// CommitImport is POST /imports/{id}/commit: every row whose action is
// create becomes its record, in one transaction; on a card, statements are
// generated once, after all rows. allowed refuses a record kind the caller
// may not create. A row that cannot be written (no active category) fails
// the whole commit with rows[line].category, and nothing is written.
func (s *Service) CommitImport(ctx context.Context, userID, id string, allowed ImportAllowed) (ImportBatch, error) {
	today := s.today(ctx, userID)
	var out ImportBatch
	err := s.store.Write(ctx, func(tx Repo) error {
		b, rows, err := batchIn(ctx, tx, userID, id, ImportPreview, "only a preview can be committed")
		if err != nil {
			return err
		}
		var create []*ImportRow
		for i := range rows {
			if rows[i].Action == ActionCreate {
				create = append(create, &rows[i])
			}
		}
		if err := allowedAll(allowed, create); err != nil {
			return err
		}
		var card CreditCard
		switch b.Target.Kind {
		case TargetAccount:
			a, err := tx.Account(ctx, userID, b.Target.ID)
			if err != nil {
				return err
			}
			if a.Status != StatusActive {
				return InvalidStatus("account is archived; unarchive it before committing the import")
			}
		case TargetCard:
			if card, err = tx.CreditCard(ctx, userID, b.Target.ID, today); err != nil {
				return err
			}
			if card.Status != StatusActive {
				return InvalidStatus("credit card is archived; unarchive it before committing the import")
			}
		}
		// An account or card takes money in its own currency only (domain.md
		// "What each amount is in"); a file in another belongs elsewhere.
		if in, err := targetCurrency(ctx, tx, userID, b.Target, today); err != nil {
			return err
		} else if in != b.Summary.Currency {
			what := "account"
			if b.Target.Kind == TargetCard {
				what = "card"
			}
			return Invalid("currency", fmt.Sprintf("the file is in %s and the %s %s is in %s; import it into one in %s",
				b.Summary.Currency, what, quoted(b.Target.Name), in, b.Summary.Currency))
		}
		cats, err := importCategories(ctx, tx, userID, today, create)
		if err != nil {
			return err
		}
		ctx := importing(ctx, b)
		if b.Target.Kind == TargetCard {
			if err := s.moveCycleStart(ctx, tx, userID, card, create); err != nil {
				return err
			}
		}
		done := make([]ImportRow, len(create))
		for i, r := range create {
			if err := s.createImported(ctx, tx, userID, b.Target, card, r, cats[i]); err != nil {
				return err
			}
			done[i] = *r
		}
		if err := tx.SetImportCreated(ctx, id, done); err != nil {
			return err
		}
		if err := tx.MarkImportedCleared(ctx, userID, id); err != nil {
			return err
		}
		if b.Target.Kind == TargetCard {
			// After every row: a card's history bills as its statements did.
			if err := s.generate(ctx, tx, userID, today); err != nil {
				return err
			}
		}
		now := s.stamp()
		b.Status, b.CommittedAt, b.Summary = ImportCommitted, &now, summarize(rows, b.Summary.Currency)
		if err := tx.UpdateImport(ctx, userID, b); err != nil {
			return err
		}
		out = b
		return nil
	})
	return out, err
}

// batchIn loads a batch that must be in status, and all its rows.
func batchIn(ctx context.Context, tx Repo, userID, id, status, rule string) (ImportBatch, []ImportRow, error) {
	b, err := tx.Import(ctx, userID, id)
	if err != nil {
		return ImportBatch{}, nil, err
	}
	if b.Status != status {
		return ImportBatch{}, nil, InvalidStatus("import is %s; %s", b.Status, rule)
	}
	rows, _, err := tx.ImportRows(ctx, id, ImportRowFilter{}, ListParams{Page: 1, Limit: allRows, SortBy: "line"})
	return b, rows, err
}

// allowedAll checks that the caller may write the record of every row (nil allows all).
func allowedAll(allowed ImportAllowed, rows []*ImportRow) error {
	if allowed == nil {
		return nil
	}
	for _, r := range rows {
		if err := allowed(r.Record); err != nil {
			return err
		}
	}
	return nil
}

// importCategories resolves the category of each row to create, naming
// every row whose category is missing or no longer active.
func importCategories(ctx context.Context, tx Repo, userID string, today Date, rows []*ImportRow) ([]Category, error) {
	var v Validator
	rf := newRefs(tx, userID, today)
	income := map[string]Category{}
	out := make([]Category, len(rows))
	for i, r := range rows {
		kind := ImportCategoryKind(r.Record)
		field := fmt.Sprintf("rows[%d].category", r.Line)
		switch {
		case kind == "":
			continue
		case r.Category == nil:
			v.Add(field, "is required: choose a "+string(kind)+" category")
			continue
		case kind == KindExpense:
			c, _, err := rf.expenseCategory(ctx, &v, field, *r.Category)
			if err != nil {
				return nil, err
			}
			out[i] = c
		default:
			c, ok := income[nameKey(*r.Category)]
			if !ok {
				var iv Validator
				var err error
				if c, err = activeCategory(ctx, tx, &iv, field, userID, KindIncome, *r.Category); err != nil {
					return nil, err
				}
				if iv.Err() != nil {
					v.Add(field, "must be the name of an active income category")
					continue
				}
				income[nameKey(*r.Category)] = c
			}
			out[i] = c
		}
	}
	return out, v.Err()
}

// moveCycleStart moves a card's cycle start back so that the statements of
// its imported history bill every row: to the day after the statement date
// before the earliest row.
func (s *Service) moveCycleStart(ctx context.Context, tx Repo, userID string, c CreditCard, rows []*ImportRow) error {
	var earliest Date
	for _, r := range rows {
		if earliest.IsZero() || r.Date.Before(earliest) {
			earliest = *r.Date
		}
	}
	if earliest.IsZero() {
		return nil
	}
	return s.moveCycleStartTo(ctx, tx, userID, c, cycleStartFor(c.StatementDay, earliest))
}

// moveCycleStartTo moves a card's cycle start back to start, if that is earlier, and logs it.
func (s *Service) moveCycleStartTo(ctx context.Context, tx Repo, userID string, c CreditCard, start Date) error {
	if !start.Before(c.CycleStartDate) {
		return nil
	}
	before := c
	c.CycleStartDate, c.UpdatedAt = start, s.stamp()
	if err := tx.UpdateCreditCard(ctx, userID, c); err != nil {
		return err
	}
	return s.logCard(ctx, tx, userID, c, LogUpdated, fmt.Sprintf("Credit card %s updated: %s", c.Name, cardChanges(before, c)), nil)
}

// cycleStartFor is the cycle start that bills a charge dated earliest: the
// day after the statement date before it.
func cycleStartFor(statementDay int, earliest Date) Date {
	prev := StatementDate(statementDay, earliest)
	if !prev.Before(earliest) {
		prev = MonthAdd(earliest, -1, statementDay)
	}
	return prev.AddDays(1)
}

// createImported writes the record a row becomes and notes it on the row.
func (s *Service) createImported(ctx context.Context, tx Repo, userID string, t ImportTarget, card CreditCard, r *ImportRow, cat Category) error {
	desc := r.Description
	var id, rowID string
	switch r.Record {
	case RecordImportExpense:
		e := s.newExpense(ctx)
		e.Source, e.Amount, e.Date, e.Description = ExpenseImport, *r.Amount, *r.Date, desc
		e.CategoryID, e.Category = &cat.ID, &cat.Name
		if t.Kind == TargetAccount {
			e.PaymentMethod, e.AccountID = MethodAccountDebit, &t.ID
		} else {
			e.PaymentMethod, e.CreditCardID = MethodCreditCard, &t.ID
		}
		if err := s.insertExpense(ctx, tx, userID, &e); err != nil {
			return err
		}
		if err := s.recordExpense(ctx, tx, userID, LogCreated, e, expenseCreated(e)); err != nil {
			return err
		}
		id = e.ID
		if e.AccountTransactionID != nil {
			rowID = *e.AccountTransactionID
		} else {
			rowID = *e.CardTransactionID
		}
	case RecordImportIncome:
		in := Income{ID: NewID(), Status: IncomeActive, Amount: *r.Amount, Date: *r.Date, Description: &desc,
			CategoryID: cat.ID, Category: cat.Name}
		if err := s.insertIncome(ctx, tx, userID, &in, t.ID); err != nil {
			return err
		}
		id, rowID = in.ID, *in.AccountTransactionID
	case RecordImportLine:
		line, err := s.insertLine(ctx, tx, userID, s.newLine(t.ID, r.Direction, *r.Amount, *r.Date, &desc, SourceManual, nil))
		if err != nil {
			return err
		}
		id, rowID = line.ID, line.ID
	case RecordImportRefund, RecordImportFee:
		row := CardTransaction{Type: CardFee, Amount: *r.Amount, Date: *r.Date, Description: desc}
		if r.Record == RecordImportRefund {
			row.Type, row.CategoryID, row.Category = CardRefund, &cat.ID, &cat.Name
		}
		row, err := s.insertCardRow(ctx, tx, userID, card, row)
		if err != nil {
			return err
		}
		id, rowID = row.ID, row.ID
	default:
		return fmt.Errorf("import row %d: unknown record %q", r.Line, r.Record)
	}
	r.CreatedID, r.CreatedRowID = &id, &rowID
	return nil
}

// RevertImport is POST /imports/{id}/revert: every record the commit created
// is voided, in one transaction, while none of them changed since. On a
// card, the statements that billed them are voided and generated again
// without them. allowed refuses a record kind the caller may not void.
func (s *Service) RevertImport(ctx context.Context, userID, id string, allowed ImportAllowed) (ImportBatch, error) {
	today := s.today(ctx, userID)
	var out ImportBatch
	err := s.store.Write(ctx, func(tx Repo) error {
		b, rows, err := batchIn(ctx, tx, userID, id, ImportCommitted, "only a committed import can be reverted")
		if err != nil {
			return err
		}
		var created []*ImportRow
		for i := range rows {
			if rows[i].CreatedID != nil {
				created = append(created, &rows[i])
			}
		}
		if err := allowedAll(allowed, created); err != nil {
			return err
		}
		records, statements, err := s.unchangedRecords(ctx, tx, userID, created)
		if err != nil {
			return err
		}
		// The batch voids its lines in bulk, past the reconciled guard of each line's update.
		if line, err := tx.ImportReconciledLine(ctx, userID, id); err != nil || line != "" {
			if err != nil {
				return err
			}
			return InvalidStatus("the import wrote account transaction %s, which is reconciled; set its cleared to cleared before reverting the import", line)
		}
		ctx := importing(ctx, b)
		now := s.stamp()
		var released []SOA
		for _, soaID := range statements {
			a, err := tx.SOA(ctx, userID, soaID)
			if err != nil {
				return err
			}
			if err := releaseSOA(ctx, tx, userID, &a, now); err != nil {
				return err
			}
			released = append(released, a)
		}
		// A batch holds up to MaxImportRows records: they are voided in a
		// few statements, and each void recorded as its own void would.
		if err := tx.VoidImported(ctx, userID, id, now); err != nil {
			return err
		}
		for _, rec := range records {
			if err := s.recordVoid(ctx, tx, userID, rec); err != nil {
				return err
			}
		}
		if len(released) > 0 {
			if err := s.rebill(ctx, tx, userID, today, released); err != nil {
				return err
			}
		}
		b.Status, b.RevertedAt = ImportReverted, &now
		if err := tx.UpdateImport(ctx, userID, b); err != nil {
			return err
		}
		out = b
		return nil
	})
	return out, err
}

// imported is a record a commit created, as a revert reads it: the
// expense, income or account line, and the card row it wrote (or is).
type imported struct {
	row     ImportRow
	expense *Expense
	income  *Income
	line    *AccountTransaction
	card    *CardTransaction
}

// unchangedRecords reads the records a commit created and refuses the revert
// when any has changed since (edited, voided, split, converted, on a paid
// statement), naming each; it returns them and the statements that billed
// their card rows.
func (s *Service) unchangedRecords(ctx context.Context, tx Repo, userID string, rows []*ImportRow) ([]imported, []string, error) {
	changed := map[string]string{}
	var statements []string
	seen := map[string]bool{}
	records := make([]imported, 0, len(rows))
	for _, r := range rows {
		rec, same, err := readImported(ctx, tx, userID, *r)
		if err != nil {
			return nil, nil, err
		}
		if !same {
			changed[fmt.Sprintf("rows[%d]", r.Line)] = "record " + *r.CreatedID + " changed since the commit"
			continue
		}
		records = append(records, rec)
		if rec.card != nil && rec.card.SOAID != nil && !seen[*rec.card.SOAID] {
			seen[*rec.card.SOAID] = true
			statements = append(statements, *rec.card.SOAID)
		}
	}
	for _, soaID := range statements {
		paid, _, err := tx.ListSOAPayments(ctx, userID, soaID, SOAPaymentFilter{Status: PaymentPosted}, ListParams{Page: 1, Limit: 1, SortBy: SOAPaymentList.Sorts[0]})
		if err != nil {
			return nil, nil, err
		}
		if len(paid) > 0 {
			changed["statement "+soaID] = "has a payment; a paid statement's rows cannot be taken back"
		}
	}
	if len(changed) > 0 {
		return nil, nil, InvalidStatusOf(changed, "import cannot be reverted: %d of its records changed since the commit", len(changed))
	}
	return records, statements, nil
}

// readImported reads the record of row r and reports whether it is as the
// commit made it.
func readImported(ctx context.Context, tx Repo, userID string, r ImportRow) (imported, bool, error) {
	rec := imported{row: r}
	id := *r.CreatedID
	same := func(amount Money, date Date, desc string) bool {
		return amount == *r.Amount && date == *r.Date && desc == r.Description
	}
	cardRow := func(rowID string) (bool, error) {
		t, err := tx.CardTransaction(ctx, userID, rowID)
		rec.card = &t
		return err == nil && (t.Status == CardUnbilled || t.Status == CardBilled) && same(t.Amount, t.Date, t.Description), err
	}
	switch r.Record {
	case RecordImportExpense:
		e, err := tx.Expense(ctx, userID, id)
		if err != nil {
			return rec, false, err
		}
		rec.expense = &e
		if e.Status != StatusActive || e.IsSplit || e.Notes != nil || e.Category == nil || r.Category == nil ||
			*e.Category != *r.Category || !same(e.Amount, e.Date, e.Description) {
			return rec, false, nil
		}
		if e.CardTransactionID == nil {
			return rec, true, nil
		}
		ok, err := cardRow(*e.CardTransactionID)
		return rec, ok, err
	case RecordImportIncome:
		in, err := tx.Income(ctx, userID, id)
		rec.income = &in
		return rec, err == nil && in.Status == StatusActive && in.Notes == nil && in.Description != nil && r.Category != nil &&
			in.Category == *r.Category && same(in.Amount, in.Date, *in.Description), err
	case RecordImportLine:
		t, err := tx.AccountTransaction(ctx, userID, id)
		rec.line = &t
		return rec, err == nil && t.Status == LinePosted && t.Description != nil && same(t.Amount, t.Date, *t.Description), err
	}
	ok, err := cardRow(id)
	return rec, ok, err
}

// recordVoid appends the activity entries of voiding rec, as its own void
// would: an expense's or income's entry, a manual line's, a card row's.
func (s *Service) recordVoid(ctx context.Context, tx Repo, userID string, rec imported) error {
	if rec.card != nil {
		t := *rec.card
		t.Status = StatusVoided
		if err := s.logRowWritten(ctx, tx, userID, LogVoided, t); err != nil {
			return err
		}
	}
	switch {
	case rec.expense != nil:
		e := *rec.expense
		return s.recordExpense(ctx, tx, userID, LogVoided, e, fmt.Sprintf("Expense %s %s on %s voided", quoted(e.Description), e.Amount, e.Date))
	case rec.income != nil:
		in := *rec.income
		return s.recordIncome(ctx, tx, userID, LogVoided, in, fmt.Sprintf("Income %s on %s voided", in.Amount, in.Date))
	case rec.line != nil:
		return s.recordLine(ctx, tx, userID, LogVoided, *rec.line, lineSummary(*rec.line, "voided"))
	}
	return nil
}

// rebill generates statements again after the statements released were
// voided, names each one's replacement and logs its void, as voiding a
// statement does.
func (s *Service) rebill(ctx context.Context, tx Repo, userID string, today Date, released []SOA) error {
	if err := s.generate(ctx, tx, userID, today); err != nil {
		return err
	}
	for i, a := range released {
		switch fresh, err := tx.LiveSOA(ctx, userID, a.CreditCardID, a.StatementDate); {
		case err == nil:
			released[i].ReplacedByID = &fresh.ID
			if err := tx.UpdateSOA(ctx, userID, released[i]); err != nil {
				return err
			}
		case !errors.Is(err, ErrNotFound):
			return err
		}
	}
	if err := s.settlePlans(ctx, tx, userID, released[0].CreditCardID); err != nil {
		return err
	}
	for _, a := range released {
		if err := s.log(ctx, tx, userID, CardLog{CreditCardID: &a.CreditCardID, EntityType: LogSOA, EntityID: a.ID, Action: LogVoided,
			Message: fmt.Sprintf("Statement of %s voided; replacement: %s", a.StatementDate, replacement(a)),
			Amount:  &a.StatementBalance}); err != nil {
			return err
		}
	}
	return nil
}
