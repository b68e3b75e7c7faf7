package finance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Import batch states (domain.md "Importing a file").
const (
	ImportPreview   = "preview"
	ImportCommitted = "committed"
	ImportReverted  = "reverted"
)

// Targets of an import batch.
const (
	TargetAccount = "account"
	TargetCard    = "credit_card"
)

// Row directions: money out of the account (a charge on a card), or in.
const (
	DirectionDebit  = "debit"
	DirectionCredit = "credit"
)

// Row actions.
const (
	ActionCreate = "create"
	ActionSkip   = "skip"
)

// What a row becomes in the ledger.
const (
	RecordImportExpense = "expense"
	RecordImportIncome  = "income"
	RecordImportLine    = "account_line"
	RecordImportRefund  = "card_refund"
	RecordImportFee     = "card_fee"
)

// Why a row has its category.
const (
	ReasonSet     = "set"
	ReasonRule    = "rule"
	ReasonFile    = "file"
	ReasonHistory = "history"
	ReasonDefault = "default"
)

// Import limits (domain.md "Limits"). The file size is the server's.
const (
	MaxImportRows = 50000
	// ImportPreviewDays is how long a preview is kept.
	ImportPreviewDays = 7
)

// Import values the filters and forms accept.
var (
	ImportStatuses = []string{ImportPreview, ImportCommitted, ImportReverted}
	ImportActions  = []string{ActionCreate, ActionSkip}
	ImportMatches  = []string{MatchExact, MatchProbable, MatchNone}
	ImportRecords  = []string{RecordImportExpense, RecordImportIncome, RecordImportLine, RecordImportRefund, RecordImportFee}
)

// ImportList is the list spec of GET /imports and ImportRowList of its rows.
var (
	ImportList    = ListSpec{Sorts: []string{"created_at"}, DefaultDesc: true}
	ImportRowList = ListSpec{Sorts: []string{"line"}}
)

// ImportTarget is the account or card a batch writes to.
type ImportTarget struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
	Name string `json:"name"` // computed: the account's or card's name
}

// ImportSummary counts a batch's rows. Totals and dates are over the rows
// without an error.
type ImportSummary struct {
	Rows        int    `json:"rows"`
	New         int    `json:"new"`
	Duplicates  int    `json:"duplicates"`
	Errors      int    `json:"errors"`
	Created     int    `json:"created"`
	DebitTotal  Money  `json:"debit_total"`
	CreditTotal Money  `json:"credit_total"`
	DateFrom    *Date  `json:"date_from"`
	DateTo      *Date  `json:"date_to"`
	Currency    string `json:"currency"`
}

// ImportBatch is one file on its way into the ledger.
type ImportBatch struct {
	ID          string        `json:"id"`
	Status      string        `json:"status"`
	FileName    string        `json:"file_name"`
	Format      string        `json:"format"`
	Encoding    string        `json:"encoding"`
	Target      ImportTarget  `json:"target"`
	Actor       Actor         `json:"actor"`
	Summary     ImportSummary `json:"summary"`
	CreatedAt   time.Time     `json:"created_at"`
	CommittedAt *time.Time    `json:"committed_at"`
	RevertedAt  *time.Time    `json:"reverted_at"`
	// Items is the first page of rows, on the preview's reply only.
	Items []ImportRow `json:"items,omitempty"`
}

// ImportRow is one row of a batch.
type ImportRow struct {
	Line           int     `json:"line"`
	Date           *Date   `json:"date"`
	Amount         *Money  `json:"amount"`
	Currency       string  `json:"currency"` // computed: the batch's (summary.currency)
	Direction      string  `json:"direction"`
	Description    string  `json:"description"`
	Payee          *string `json:"payee"`
	BankID         *string `json:"bank_id"`
	Category       *string `json:"category"`
	CategoryReason *string `json:"category_reason"`
	CategoryUses   int     `json:"category_uses"` // earlier records behind a history choice
	// CategoryRule is the rule behind a rule's choice.
	CategoryRule *CategoryRuleRef `json:"category_rule"`
	Match        *ImportMatch     `json:"match"`
	Action       string           `json:"action"`
	Record       string           `json:"record"`
	Note         *string          `json:"note"`
	Error        *string          `json:"error"`
	// CreatedID is the record the commit created (an expense, income, account
	// line or card row) and CreatedRowID the account line or card row it wrote.
	CreatedID    *string `json:"created_id"`
	CreatedRowID *string `json:"-"`
	// fileCategory is the category the file names, for the category choice.
	fileCategory string
}

func (r *ImportRow) setError(msg string) {
	r.Error, r.Action, r.Match = &msg, ActionSkip, nil
}

// ImportRowFilter narrows GET /imports/{id}/rows.
type ImportRowFilter struct {
	Action string
	Match  string // exact, probable or none
	// Matched keeps the rows with a match of either kind, and Failed the rows
	// with an error: the web page's "duplicates" and "errors", which the
	// summary counts the same way.
	Matched, Failed bool
}

// ImportFile is a file as the readers understood it.
type ImportFile struct {
	Name, Format, Encoding, Currency string
	Rows                             []ImportFileRow
	Errors                           []ImportLineError
}

// ImportFileRow is a transaction the file holds. Amount is positive.
type ImportFileRow struct {
	Line                                 int
	Date                                 Date
	Amount                               Money
	Direction                            string
	Description, Payee, Category, BankID string
}

// ImportLineError is a line of the file that could not be read.
type ImportLineError struct {
	Line    int
	Message string
}

// ImportTargetRequest names the batch's target: one of the two.
type ImportTargetRequest struct {
	AccountID, CardID string
}

// ImportRowRequest is the body of PUT /imports/{id}/rows/{line}.
type ImportRowRequest struct {
	Action      Field[string] `json:"action"`
	Record      Field[string] `json:"record"`
	Category    Field[string] `json:"category"`
	Description Field[string] `json:"description"`
}

// ImportRepo is the persistence of import batches.
type ImportRepo interface {
	InsertImport(ctx context.Context, userID string, b ImportBatch, rows []ImportRow) error
	// Import returns a batch with its target's name.
	Import(ctx context.Context, userID, id string) (ImportBatch, error)
	ListImports(ctx context.Context, userID string, p ListParams) ([]ImportBatch, int, error)
	ImportRows(ctx context.Context, batchID string, f ImportRowFilter, p ListParams) ([]ImportRow, int, error)
	ImportRow(ctx context.Context, batchID string, line int) (ImportRow, error)
	UpdateImportRow(ctx context.Context, batchID string, r ImportRow) error
	// SetImportCreated stores the CreatedID and CreatedRowID of rows.
	SetImportCreated(ctx context.Context, batchID string, rows []ImportRow) error
	// UpdateImport stores a batch's status, times and summary.
	UpdateImport(ctx context.Context, userID string, b ImportBatch) error
	DeleteImport(ctx context.Context, userID, id string) error
	// DeleteStaleImports removes the user's previews made before t.
	DeleteStaleImports(ctx context.Context, userID string, before time.Time) error
	// ImportLedger returns the target's records dated in [from, to], oldest made first.
	ImportLedger(ctx context.Context, userID string, t ImportTarget, from, to Date) ([]LedgerEntry, error)
	// ImportBankIDs returns the bank ids of the target's committed rows, each
	// with the account line or card row it stands for.
	ImportBankIDs(ctx context.Context, userID string, t ImportTarget) (map[string]string, error)
	// CategoryUses returns, per description key (nameKey), the active category
	// of kind most used by the user's active records with that description.
	CategoryUses(ctx context.Context, userID string, kind CategoryKind, descriptions []string) (map[string]CategoryUse, error)
	// VoidImported voids every record a batch's commit created, and the
	// account lines and card rows they wrote.
	VoidImported(ctx context.Context, userID, batchID string, now time.Time) error
}

// CategoryUse is a category and how many records used it.
type CategoryUse struct {
	Name  string
	Count int
}

// importKey carries the batch whose commit or revert makes ctx's writes.
type importKey struct{}

// importing returns ctx whose activity entries name batch b.
func importing(ctx context.Context, b ImportBatch) context.Context {
	return context.WithValue(ctx, importKey{}, fmt.Sprintf(" (import %s of %s)", b.ID, quoted(b.FileName)))
}

// importNote is what an entry's summary adds for the batch of ctx, if any.
func importNote(ctx context.Context) string {
	n, _ := ctx.Value(importKey{}).(string)
	return n
}

// paymentWords are what a card's credit says when it is the payment of a statement.
var paymentWords = []string{"payment", "thank you", "bayad", "auto debit", "autopay"}

const notePayment = "a card payment is recorded as a statement payment from the account that paid it"

// defaultRecord is what a row becomes unless the person says otherwise.
func defaultRecord(target, direction string) string {
	switch {
	case target == TargetAccount && direction == DirectionDebit:
		return RecordImportExpense
	case target == TargetAccount:
		return RecordImportIncome
	case direction == DirectionDebit:
		return RecordImportExpense
	}
	return RecordImportRefund
}

// ImportRecordChoices are the records a row of direction may become on target.
func ImportRecordChoices(target, direction string) []string {
	switch {
	case target == TargetAccount && direction == DirectionDebit:
		return []string{RecordImportExpense, RecordImportLine}
	case target == TargetAccount:
		return []string{RecordImportIncome, RecordImportLine}
	case direction == DirectionDebit:
		return []string{RecordImportExpense, RecordImportFee}
	}
	return []string{RecordImportRefund}
}

// ImportCategoryKind is the kind of category a record needs ("" for none).
func ImportCategoryKind(record string) CategoryKind {
	switch record {
	case RecordImportExpense, RecordImportRefund:
		return KindExpense
	case RecordImportIncome:
		return KindIncome
	}
	return ""
}

// resolveTarget checks the request's target: exactly one, active, the user's.
func resolveTarget(ctx context.Context, tx Repo, userID string, r ImportTargetRequest, today Date) (ImportTarget, error) {
	var v Validator
	switch {
	case r.AccountID != "" && r.CardID != "":
		v.Add("target_credit_card_id", "must be absent when target_account_id is given (a batch has one target)")
	case r.AccountID != "":
		a, ok, err := activeAccount(ctx, tx, &v, "target_account_id", userID, r.AccountID)
		if err != nil || !ok {
			return ImportTarget{}, firstErr(err, v.Err())
		}
		return ImportTarget{Kind: TargetAccount, ID: a.ID, Name: a.Name}, nil
	case r.CardID != "":
		c, ok, err := activeCard(ctx, tx, &v, "target_credit_card_id", userID, r.CardID, today)
		if err != nil || !ok {
			return ImportTarget{}, firstErr(err, v.Err())
		}
		return ImportTarget{Kind: TargetCard, ID: c.ID, Name: c.Name}, nil
	default:
		v.Add("target_account_id", "is required (or target_credit_card_id)")
	}
	return ImportTarget{}, v.Err()
}

// targetCurrency is the currency of an import's account or card.
func targetCurrency(ctx context.Context, r Repo, userID string, t ImportTarget, today Date) (string, error) {
	if t.Kind == TargetCard {
		c, err := r.CreditCard(ctx, userID, t.ID, today)
		return c.Currency, err
	}
	a, err := r.Account(ctx, userID, t.ID)
	return a.Currency, err
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// PreviewImport is POST /imports: the file's rows, matched against the
// target's ledger and given a category, are stored as a batch in preview.
// Nothing in the ledger changes.
func (s *Service) PreviewImport(ctx context.Context, userID string, target ImportTargetRequest, f ImportFile) (ImportBatch, error) {
	if n := len(f.Rows) + len(f.Errors); n > MaxImportRows {
		return ImportBatch{}, Invalid("file", fmt.Sprintf("holds %d rows; at most %d can be imported at once", n, MaxImportRows))
	}
	if len(f.Rows) == 0 {
		return ImportBatch{}, Invalid("file", "holds no transactions")
	}
	today := s.today(ctx, userID)
	r := s.store.Read()
	t, err := resolveTarget(ctx, r, userID, target, today)
	if err != nil {
		return ImportBatch{}, err
	}
	rows := importRows(t, f, today)
	if err := s.matchImport(ctx, r, userID, t, rows); err != nil {
		return ImportBatch{}, err
	}
	if err := s.suggestCategories(ctx, r, userID, rows); err != nil {
		return ImportBatch{}, err
	}
	actor, ok := ActorOf(ctx)
	if !ok {
		actor = SystemActor
	}
	currency := f.Currency
	if currency == "" {
		// A file that names no currency (CSV, QIF) is in its target's.
		if currency, err = targetCurrency(ctx, r, userID, t, today); err != nil {
			return ImportBatch{}, err
		}
	}
	b := ImportBatch{ID: NewID(), Status: ImportPreview, FileName: f.Name, Format: f.Format, Encoding: f.Encoding,
		Target: t, Actor: actor, CreatedAt: s.stamp(), Summary: summarize(rows, currency)}
	err = s.store.Write(ctx, func(tx Repo) error {
		if err := tx.DeleteStaleImports(ctx, userID, s.now().AddDate(0, 0, -ImportPreviewDays)); err != nil {
			return err
		}
		return tx.InsertImport(ctx, userID, b, rows)
	})
	if err != nil {
		return ImportBatch{}, err
	}
	b.Items = inCurrency(rows[:min(len(rows), DefaultLimit)], currency)
	return b, nil
}

// importRows turns the file into the batch's rows, with the checks that
// need nothing but the row.
func importRows(t ImportTarget, f ImportFile, today Date) []ImportRow {
	oldest := MonthAdd(today, -12*MaxCycleStartYears, today.Day())
	rows := make([]ImportRow, 0, len(f.Rows)+len(f.Errors))
	for _, e := range f.Errors {
		msg := e.Message
		rows = append(rows, ImportRow{Line: e.Line, Action: ActionSkip, Error: &msg})
	}
	for _, fr := range f.Rows {
		r := ImportRow{Line: fr.Line, Date: &fr.Date, Amount: &fr.Amount, Direction: fr.Direction,
			Description: strings.TrimSpace(fr.Description), Payee: optional(fr.Payee), BankID: optional(fr.BankID),
			Action: ActionCreate, Record: defaultRecord(t.Kind, fr.Direction), fileCategory: strings.TrimSpace(fr.Category)}
		if r.Description == "" && r.Payee != nil {
			r.Description = *r.Payee
		}
		switch {
		case fr.Amount <= 0:
			r.setError("amount must be greater than 0")
		case fr.Direction != DirectionDebit && fr.Direction != DirectionCredit:
			r.setError("direction must be debit or credit")
		case r.Description == "":
			r.setError("has no description")
		case len([]rune(r.Description)) > MaxDescription:
			r.setError(fmt.Sprintf("description is longer than %d characters", MaxDescription))
		case t.Kind == TargetCard && fr.Date.Before(oldest):
			r.setError("older than five years")
		case t.Kind == TargetCard && fr.Direction == DirectionCredit && readsAsPayment(r.Description):
			note := notePayment
			r.Action, r.Note = ActionSkip, &note
		}
		rows = append(rows, r)
	}
	slices.SortStableFunc(rows, func(a, b ImportRow) int { return a.Line - b.Line })
	return rows
}

func optional(s string) *string {
	if s = strings.TrimSpace(s); s == "" {
		return nil
	}
	return &s
}

func readsAsPayment(description string) bool {
	d := strings.ToLower(description)
	for _, w := range paymentWords {
		if strings.Contains(d, w) {
			return true
		}
	}
	return false
}

// matchImport matches rows against the target's ledger and earlier batches;
// a matched row is skipped.
func (s *Service) matchImport(ctx context.Context, r Repo, userID string, t ImportTarget, rows []ImportRow) error {
	var from, to Date
	for _, row := range rows {
		if row.Date == nil {
			continue
		}
		if from.IsZero() || row.Date.Before(from) {
			from = *row.Date
		}
		if to.IsZero() || row.Date.After(to) {
			to = *row.Date
		}
	}
	if from.IsZero() {
		return nil
	}
	ledger, err := r.ImportLedger(ctx, userID, t, from.AddDays(-probableDays), to.AddDays(probableDays))
	if err != nil {
		return err
	}
	bankIDs, err := r.ImportBankIDs(ctx, userID, t)
	if err != nil {
		return err
	}
	matchRows(rows, ledger, bankIDs)
	for i := range rows {
		if rows[i].Match != nil {
			rows[i].Action = ActionSkip
		}
	}
	return nil
}

// suggestCategories gives each row that needs one a category, in the order
// of domain.md: the first rule that matches, the file's, the person's habit
// for that description, the default one; else the row cannot be created
// until one is set.
func (s *Service) suggestCategories(ctx context.Context, r Repo, userID string, rows []ImportRow) error {
	rules, err := r.CategoryRules(ctx, userID)
	if err != nil {
		return err
	}
	for _, kind := range []CategoryKind{KindExpense, KindIncome} {
		applyRules(rules, kind, rows)
		opts, err := s.CategoryOptions(ctx, userID, kind)
		if err != nil {
			return err
		}
		active := map[string]string{}
		for _, o := range opts {
			active[nameKey(o.Name)] = o.Name
		}
		var descs []string
		for _, row := range rows {
			if ImportCategoryKind(row.Record) == kind && row.Error == nil && row.Category == nil {
				descs = append(descs, row.Description)
			}
		}
		if len(descs) == 0 {
			continue
		}
		uses, err := r.CategoryUses(ctx, userID, kind, descs)
		if err != nil {
			return err
		}
		fallback := active[nameKey(defaultCategory(kind))]
		for i := range rows {
			row := &rows[i]
			if ImportCategoryKind(row.Record) != kind || row.Error != nil || row.Category != nil {
				continue
			}
			name, reason, n := "", "", 0
			if c, ok := active[nameKey(row.fileCategory)]; ok && row.fileCategory != "" {
				name, reason = c, ReasonFile
			} else if u, ok := uses[nameKey(row.Description)]; ok {
				name, reason, n = u.Name, ReasonHistory, u.Count
			} else if fallback != "" {
				name, reason = fallback, ReasonDefault
			}
			if name == "" {
				row.setError(errNoCategory)
				continue
			}
			row.Category, row.CategoryReason, row.CategoryUses = &name, &reason, n
		}
	}
	return nil
}

// defaultCategory is the category a row of kind gets when nothing says better.
func defaultCategory(kind CategoryKind) string {
	if kind == KindIncome {
		return "Other Income"
	}
	return "Miscellaneous"
}

// summarize counts rows.
func summarize(rows []ImportRow, currency string) ImportSummary {
	sum := ImportSummary{Rows: len(rows), Currency: currency}
	for _, r := range rows {
		switch {
		case r.Error != nil:
			sum.Errors++
			continue
		case r.Match != nil:
			sum.Duplicates++
		}
		if r.Action == ActionCreate {
			sum.New++
		}
		if r.CreatedID != nil {
			sum.Created++
		}
		if r.Direction == DirectionDebit {
			sum.DebitTotal += *r.Amount
		} else {
			sum.CreditTotal += *r.Amount
		}
		if sum.DateFrom == nil || r.Date.Before(*sum.DateFrom) {
			sum.DateFrom = r.Date
		}
		if sum.DateTo == nil || r.Date.After(*sum.DateTo) {
			sum.DateTo = r.Date
		}
	}
	return sum
}

// ListImports returns a page of the user's batches, newest first.
func (s *Service) ListImports(ctx context.Context, userID string, p ListParams) (Page[ImportBatch], error) {
	items, total, err := s.store.Read().ListImports(ctx, userID, p)
	return pageOf(items, total, err, p)
}

// GetImport returns one batch.
func (s *Service) GetImport(ctx context.Context, userID, id string) (ImportBatch, error) {
	return s.store.Read().Import(ctx, userID, id)
}

// ListImportRows returns a page of a batch's rows in file order.
func (s *Service) ListImportRows(ctx context.Context, userID, id string, f ImportRowFilter, p ListParams) (Page[ImportRow], error) {
	r := s.store.Read()
	b, err := r.Import(ctx, userID, id)
	if err != nil {
		return Page[ImportRow]{}, err
	}
	items, total, err := r.ImportRows(ctx, id, f, p)
	return pageOf(inCurrency(items, b.Summary.Currency), total, err, p)
}

// inCurrency gives rows their batch's currency: the file's, which the
// batch's account or card must have for it to commit. The rows store none
// of their own.
func inCurrency(rows []ImportRow, code string) []ImportRow {
	for i := range rows {
		rows[i].Currency = code
	}
	return rows
}

// UpdateImportRow is PUT /imports/{id}/rows/{line}: a preview's row gets
// another action, record, category or description.
func (s *Service) UpdateImportRow(ctx context.Context, userID, id string, line int, req ImportRowRequest) (ImportRow, error) {
	var out ImportRow
	err := s.store.Write(ctx, func(tx Repo) error {
		b, err := tx.Import(ctx, userID, id)
		if err != nil {
			return err
		}
		row, err := tx.ImportRow(ctx, id, line)
		if err != nil {
			return err
		}
		var v Validator
		if req.Action.Set {
			row.Action = requiredEnum(&v, "action", req.Action, strings.Join(ImportActions, ", "),
				func(s string) bool { return slices.Contains(ImportActions, s) })
		}
		if req.Record.Set {
			choices := ImportRecordChoices(b.Target.Kind, row.Direction)
			row.Record = requiredEnum(&v, "record", req.Record, strings.Join(choices, ", "),
				func(s string) bool { return slices.Contains(choices, s) })
		}
		if req.Description.Set {
			row.Description = v.RequiredText("description", req.Description, MaxDescription)
		}
		var category string
		if req.Category.Set {
			category = v.RequiredText("category", req.Category, MaxName)
		}
		if err := v.Err(); err != nil {
			return err
		}
		if b.Status != ImportPreview {
			return InvalidStatus("import is %s; only a preview's rows can change", b.Status)
		}
		if err := s.recategorize(ctx, tx, userID, &row, category, req.Action.Set); err != nil {
			return err
		}
		if row.Action == ActionCreate && row.Error != nil {
			return Invalid("action", "cannot be create: the row has an error ("+*row.Error+")")
		}
		if err := tx.UpdateImportRow(ctx, id, row); err != nil {
			return err
		}
		rows, _, err := tx.ImportRows(ctx, id, ImportRowFilter{}, ListParams{Page: 1, Limit: allRows, SortBy: "line"})
		if err != nil {
			return err
		}
		b.Summary = summarize(rows, b.Summary.Currency)
		out = inCurrency([]ImportRow{row}, b.Summary.Currency)[0]
		return tx.UpdateImport(ctx, userID, b)
	})
	return out, err
}

// errNoCategory is the error of a row that needs a category and has none.
const errNoCategory = "choose a category"

// recategorize keeps a row's category in step with its record after an
// edit: the category named (the person's choice), none for a record without
// one, or the error asking for one. Naming the missing category makes an
// unmatched row one to create, unless the request also set the action.
func (s *Service) recategorize(ctx context.Context, tx Repo, userID string, row *ImportRow, category string, actionSet bool) error {
	kind := ImportCategoryKind(row.Record)
	missing := row.Error != nil && *row.Error == errNoCategory
	switch {
	case category != "" && kind == "":
		return Invalid("category", "must be absent: a "+row.Record+" has no category")
	case category != "":
		var v Validator
		c, err := activeCategory(ctx, tx, &v, "category", userID, kind, category)
		if err != nil {
			return err
		}
		if err := v.Err(); err != nil {
			return err
		}
		reason := ReasonSet
		row.Category, row.CategoryReason, row.CategoryUses, row.CategoryRule = &c.Name, &reason, 0, nil
		if missing {
			row.Error = nil
			if !actionSet && row.Match == nil {
				row.Action = ActionCreate
			}
		}
	case kind == "":
		row.Category, row.CategoryReason, row.CategoryUses, row.CategoryRule = nil, nil, 0, nil
		if missing {
			row.Error = nil
		}
	case row.Category == nil && row.Error == nil:
		msg := errNoCategory
		row.Error = &msg
		if row.Action == ActionCreate && !actionSet {
			row.Action = ActionSkip
		}
	}
	return nil
}

// DeleteImport is DELETE /imports/{id}: a preview and its rows are removed.
func (s *Service) DeleteImport(ctx context.Context, userID, id string) error {
	return s.store.Write(ctx, func(tx Repo) error {
		b, err := tx.Import(ctx, userID, id)
		if err != nil {
			return err
		}
		if b.Status != ImportPreview {
			return InvalidStatus("import is %s; only a preview can be deleted (revert a committed import)", b.Status)
		}
		return tx.DeleteImport(ctx, userID, id)
	})
}

// ImportAllowed checks, for each record kind a commit creates, that the
// caller may create it (the handler's scope check); nil allows everything.
type ImportAllowed func(record string) error
