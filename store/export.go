package store

import (
	"archive/zip"
	"bufio"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

// An export document holds every record of one user: the stored rows of each
// kind, one array per table, each row with its own id and every column but
// the owner's (docs/domain.md "Export and restore"). Rows rather than the
// API's shapes because a restore must reproduce the ledger exactly: the rows
// carry what the API leaves out or computes (kept statement figures, a
// template's generated_through, a line's statement link and states), and
// reading rows in one query per table is what lets a large ledger stream.

// ExportFormat and ExportVersion name the document; Restore refuses any other.
const (
	ExportFormat  = "finance-export"
	ExportVersion = 1
)

// exportKind is one table of user records in the document.
type exportKind struct {
	key   string // the document's array (the table's name unless the API names it otherwise)
	table string
	// money are the INTEGER columns of centavos, written as exact decimals;
	// integers are the other INTEGER columns (days, counts, positions),
	// written as they are. Every INTEGER column is one or the other (a test
	// holds the lists to the schema), so a new money column cannot leave as
	// centavos unnoticed.
	money, integers []string
	order           string // the rows' order: rowid, or the key of a WITHOUT ROWID table
}

// exportKinds are the tables of user records in the order a restore inserts
// them: parents before the rows that reference them, expenses before their
// splits (the splits' kept-totals triggers read the expense), categories
// before card fees and loan payments (theirs look up the system categories).
var exportKinds = []exportKind{
	{key: "user", table: "user_settings", integers: []string{"budget_warning_percent", "due_soon_days"}, order: "user_id"},
	{key: "categories", table: "categories"},
	{key: "accounts", table: "accounts", money: []string{"opening_balance"}},
	{key: "credit_cards", table: "credit_cards", money: []string{"credit_limit", "minimum_due_floor"},
		integers: []string{"statement_day", "due_day"}},
	{key: "expenses", table: "expenses", money: []string{"amount", "original_amount"}},
	{key: "expense_splits", table: "expense_splits", money: []string{"amount"}, integers: []string{"position"}},
	{key: "account_transactions", table: "account_transactions", money: []string{"amount"}},
	{key: "income", table: "income", money: []string{"amount"}},
	{key: "transfers", table: "transfers", money: []string{"amount", "fee", "to_amount"}},
	{key: "card_transactions", table: "card_transactions",
		money: []string{"amount", "principal_portion", "interest_portion", "original_amount"}, integers: []string{"installment_number"}},
	{key: "statements", table: "soas",
		money:    []string{"minimum_due", "charges_total", "credits_total", "statement_balance", "paid_total"},
		integers: []string{"transaction_count"}},
	{key: "statement_payments", table: "soa_payments", money: []string{"amount"}},
	{key: "installment_plans", table: "installment_plans",
		money: []string{"principal", "monthly_amount", "total_interest"}, integers: []string{"months"}},
	{key: "bill_templates", table: "bill_templates", money: []string{"amount"}, integers: []string{"due_day", "second_due_day"}},
	{key: "bills", table: "bill_instances", money: []string{"amount", "paid_total"}},
	{key: "bill_payments", table: "bill_payments", money: []string{"amount"}},
	{key: "income_templates", table: "income_templates", money: []string{"amount"}, integers: []string{"due_day", "second_due_day"}},
	{key: "expected_income", table: "expected_income", money: []string{"amount"}},
	{key: "loans", table: "loans", money: []string{"principal", "monthly_amount", "total_interest"},
		integers: []string{"term_months"}},
	{key: "loan_instances", table: "loan_instances",
		money:    []string{"amount_due", "principal_due", "interest_due", "paid_total", "paid_principal", "paid_interest"},
		integers: []string{"installment_number"}},
	{key: "loan_payments", table: "loan_payments", money: []string{"amount", "interest_part", "principal_part"}},
	{key: "budget_thresholds", table: "budget_thresholds", money: []string{"monthly_limit"},
		integers: []string{"warning_percent"}, order: "category_id"},
	{key: "category_rules", table: "category_rules", money: []string{"amount_min", "amount_max"}, integers: []string{"position"},
		order: "position"},
	{key: "reminder_settings", table: "reminder_settings",
		integers: []string{"bill_days", "statement_days", "loan_days", "digest_hour"}, order: "user_id"},
	// The reminders claimed travel too, so a restored server does not send
	// again what this one sent.
	{key: "reminders", table: "reminders", order: "id"},
	// Only the person's manual rates are theirs: the rows of the user. The
	// fetched rates are the server's, and the new server fetches its own.
	{key: "exchange_rates", table: "exchange_rates", order: "id"},
}

// exportLeftOut are the tables an export leaves out on purpose, and why. A
// test fails for a table in neither list, so a table added later is either
// exported or named here with its reason.
var exportLeftOut = map[string]string{
	"users":                   "the account itself: the user to restore into is made on the new server; its settings travel as user",
	"api_keys":                "credentials of this server: made anew where the ledger moves",
	"web_sessions":            "credentials of this server",
	"oauth_clients":           "connected apps register with each server",
	"oauth_grants":            "credentials of this server",
	"oauth_codes":             "credentials of this server",
	"oauth_tokens":            "credentials of this server",
	"credential_generation":   "the credential cache's counter",
	"server_secrets":          "the server's own secrets (the key that signs sign-ins): they never leave it",
	"profile_pictures":        "part of the account, which the export leaves out (users); the upload is at its public address",
	"idempotency_keys":        "replays of recent requests, kept a day",
	"activity":                "who did what on this server: its actors are this server's keys, apps and sessions",
	"activity_actors":         "the actors of the activity log",
	"assistant_conversations": "conversations with the assistant, not records of money",
	"assistant_turns":         "conversations with the assistant",
	"assistant_proposals":     "the assistant's proposals, which expire",
	"import_batches": "bank-file imports: previews and each batch's history stay on this server; the records a " +
		"committed batch created are exported as records (a later import finds them by date and amount, not by bank id)",
	"import_rows":          "the rows of an import batch",
	"telegram_updates":     "the Telegram bot's inbox",
	"telegram_link_codes":  "codes that link a chat to this server, which expire",
	"telegram_chats":       "chats linked to this server's bot",
	"telegram_drafts":      "the bot's unconfirmed drafts, which expire",
	"expense_counts":       "kept totals: the triggers rebuild them as the records are restored",
	"account_line_totals":  "kept totals: the triggers rebuild them as the records are restored",
	"card_totals":          "kept totals: the triggers rebuild them as the records are restored",
	"spending_days":        "kept totals: the triggers rebuild them as the records are restored",
	"expense_months":       "kept totals: the triggers rebuild them as the records are restored",
	"card_totals_deferred": "empty outside a statement's billing",
	"health_probe":         "the server's own",
	"bun_migrations":       "the server's own: the document names the last one as schema_version",
	"bun_migration_locks":  "the server's own",
	"sqlite_sequence":      "the server's own",
}

// ownerColumns are written by the restore for the user restored into, never
// taken from the document.
var ownerColumns = []string{"user_id", "user_seq"}

// valueKind is how a column's values are written in the document.
type valueKind int

const (
	textValue    valueKind = iota // a JSON string
	moneyValue                    // an exact decimal JSON number
	integerValue                  // a JSON integer
	boolValue                     // true or false
	instantValue                  // an RFC 3339 UTC string (stored as microseconds)
)

type exportColumn struct {
	name string
	kind valueKind
}

// columns are the columns of k's table the document carries, in the
// table's order. A column whose kind k does not say (an INTEGER in neither
// list, a BLOB) is an error, never a guess.
func (k exportKind) columns(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, d dialect) ([]exportColumn, error) {
	declared, err := declaredColumns(ctx, q, d, k.table)
	if err != nil {
		return nil, fmt.Errorf("store: export: %w", err)
	}
	var cols []exportColumn
	for _, dc := range declared {
		name, typ := dc.name, dc.typ
		if slices.Contains(ownerColumns, name) {
			continue
		}
		c := exportColumn{name: name}
		switch {
		case slices.Contains(k.money, name):
			c.kind = moneyValue
		case slices.Contains(k.integers, name):
			c.kind = integerValue
		case typ == "TEXT":
			c.kind = textValue
		case typ == "BOOLEAN":
			c.kind = boolValue
		case typ == "TIMESTAMP":
			c.kind = instantValue
		default:
			return nil, fmt.Errorf("store: export: %s.%s (%s) has no export rule", k.table, name, typ)
		}
		cols = append(cols, c)
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("store: export: no table %s", k.table)
	}
	return cols, nil
}

// SchemaVersion is the last migration this binary knows: a document written
// under a later one may hold what this binary cannot restore.
func SchemaVersion() string {
	all, err := allMigrations()
	if err != nil {
		panic(err) // the migrations are embedded: they read the same on every run
	}
	sorted := all.Sorted()
	return sorted[len(sorted)-1].Name
}

// Export writes every record of the user as one export document to w. It
// reads one snapshot (a read transaction: writes that commit meanwhile are
// not in it) and writes each row as it reads it, so memory stays bounded
// however large the ledger.
func (db *DB) Export(ctx context.Context, userID string, exportedAt time.Time, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := db.exportRows(ctx, userID, &jsonExport{w: bw, exportedAt: exportedAt}); err != nil {
		return err
	}
	return bw.Flush()
}

// ExportCSV writes every record of the user as a zip of CSV files to w: one
// file per kind of the export document, named for its array, with the same
// columns as a header row and the same values as text (money as exact
// decimals, dates as YYYY-MM-DD, instants in RFC 3339 UTC, true or false,
// an empty cell for null), and last a manifest.json naming the format, the
// schema version and each file's row count. It reads the same snapshot the
// document does, through the same code, and streams the same way: each file
// is compressed as its rows are read. Restore reads only the JSON document.
func (db *DB) ExportCSV(ctx context.Context, userID string, exportedAt time.Time, w io.Writer) error {
	return db.exportRows(ctx, userID, &csvExport{zw: zip.NewWriter(w), exportedAt: exportedAt})
}

// exportOut is one format of an export: it is handed the schema version,
// then each kind's columns followed by its rows, then told the end.
type exportOut interface {
	start(schema string) error
	kind(k exportKind, cols []exportColumn) error
	row(cells []exportCell) error
	endKind(n int) error
	end() error
}

// exportCell is one value of a row as the export writes it.
type exportCell struct {
	text string // money as an exact decimal, integers, true or false, an RFC 3339 instant, or the text
	kind valueKind
	null bool
}

// exportRows reads every record of the user from one snapshot and hands it
// to out: the one reading, and the one list of kinds and columns, behind
// both formats.
func (db *DB) exportRows(ctx context.Context, userID string, out exportOut) error {
	// On Postgres the read-only snapshot is REPEATABLE READ: every read of
	// the export sees the same commits, as SQLite's read transaction does.
	opts := &sql.TxOptions{ReadOnly: true}
	if db.dialect == postgresDialect {
		opts.Isolation = sql.LevelRepeatableRead
	}
	stx, err := db.reader.DB.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	tx := boundTx{Tx: stx, d: db.dialect}
	defer func() { _ = tx.Rollback() }() // a read: nothing to commit
	// The first read starts the snapshot; every later one reads the same.
	var schema string
	if err := tx.QueryRowContext(ctx, "SELECT max(name) FROM bun_migrations").Scan(&schema); err != nil {
		return fmt.Errorf("store: export: %w", err)
	}
	if err := out.start(schema); err != nil {
		return err
	}
	for _, k := range exportKinds {
		if err := k.export(ctx, tx, userID, out); err != nil {
			return err
		}
	}
	return out.end()
}

// export reads the rows of k and hands them to out.
func (k exportKind) export(ctx context.Context, tx boundTx, userID string, out exportOut) error {
	cols, err := k.columns(ctx, tx, tx.d)
	if err != nil {
		return err
	}
	list := make([]string, len(cols))
	for i, c := range cols {
		// Read instants as their stored microseconds (times.go): the
		// driver would otherwise turn them into times in its own way.
		list[i] = `"` + c.name + `"`
		if c.kind == instantValue && tx.d == sqliteDialect {
			list[i] = fmt.Sprintf(`CAST("%s" AS INTEGER)`, c.name)
		}
	}
	order := k.order
	if order == "" {
		order = tx.d.insertionOrder()
	}
	rows, err := tx.QueryContext(ctx, fmt.Sprintf("SELECT %s FROM %s WHERE user_id = ? ORDER BY %s",
		strings.Join(list, ", "), k.table, order), userID)
	if err != nil {
		return fmt.Errorf("store: export %s: %w", k.key, err)
	}
	defer rows.Close()
	if err := out.kind(k, cols); err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	cells := make([]exportCell, len(cols))
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("store: export %s: %w", k.key, err)
		}
		for i, c := range cols {
			if cells[i], err = c.cell(vals[i]); err != nil {
				return fmt.Errorf("store: export %s: %w", k.key, err)
			}
		}
		if err := out.row(cells); err != nil {
			return err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: export %s: %w", k.key, err)
	}
	return out.endKind(n)
}

// cell is the stored value v of c as the export writes it.
func (c exportColumn) cell(v any) (exportCell, error) {
	if v == nil {
		return exportCell{kind: c.kind, null: true}, nil
	}
	switch c.kind {
	case moneyValue, integerValue, boolValue:
		if b, ok := v.(bool); ok { // Postgres's boolean
			return exportCell{text: strconv.FormatBool(b), kind: c.kind}, nil
		}
		n, ok := v.(int64)
		if !ok {
			return exportCell{}, fmt.Errorf("%s is %T, not an integer", c.name, v)
		}
		switch c.kind {
		case moneyValue:
			return exportCell{text: finance.Money(n).String(), kind: c.kind}, nil
		case boolValue:
			return exportCell{text: strconv.FormatBool(n != 0), kind: c.kind}, nil
		default:
			return exportCell{text: strconv.FormatInt(n, 10), kind: c.kind}, nil
		}
	case instantValue:
		if t, ok := v.(time.Time); ok { // Postgres's timestamptz
			return exportCell{text: t.UTC().Format(time.RFC3339Nano), kind: c.kind}, nil
		}
		n, ok := v.(int64)
		if !ok {
			return exportCell{}, fmt.Errorf("%s is %T, not a timestamp", c.name, v)
		}
		return exportCell{text: time.UnixMicro(n).UTC().Format(time.RFC3339Nano), kind: c.kind}, nil
	default:
		s, ok := v.(string)
		if !ok {
			return exportCell{}, fmt.Errorf("%s is %T, not text", c.name, v)
		}
		return exportCell{text: s, kind: c.kind}, nil
	}
}

// jsonExport writes the export document: a header, then the user object
// and an array per kind with one row a line.
type jsonExport struct {
	w          *bufio.Writer
	exportedAt time.Time
	k          exportKind
	cols       []exportColumn
	n          int
}

func (j *jsonExport) start(schema string) error {
	_, err := fmt.Fprintf(j.w, "{\"format\":%s,\"version\":%d,\"exported_at\":%s,\"schema_version\":%s",
		jsonString(ExportFormat), ExportVersion, jsonString(j.exportedAt.UTC().Format(time.RFC3339)), jsonString(schema))
	return err
}

func (j *jsonExport) single() bool { return j.k.key == "user" }

func (j *jsonExport) kind(k exportKind, cols []exportColumn) error {
	j.k, j.cols, j.n = k, cols, 0
	fmt.Fprintf(j.w, ",\n%s:", jsonString(k.key))
	if !j.single() {
		j.w.WriteString("[")
	}
	return nil
}

// row writes one row as a JSON object of its columns.
func (j *jsonExport) row(cells []exportCell) error {
	if j.n > 0 {
		j.w.WriteString(",")
	}
	if !j.single() {
		j.w.WriteString("\n")
	}
	j.n++
	j.w.WriteString("{")
	for i, c := range cells {
		if i > 0 {
			j.w.WriteString(",")
		}
		j.w.WriteString(jsonString(j.cols[i].name))
		j.w.WriteString(":")
		switch {
		case c.null:
			j.w.WriteString("null")
		case c.kind == textValue || c.kind == instantValue:
			j.w.WriteString(jsonString(c.text))
		default:
			j.w.WriteString(c.text)
		}
	}
	_, err := j.w.WriteString("}")
	return err
}

func (j *jsonExport) endKind(n int) error {
	switch {
	case j.single() && n == 0:
		j.w.WriteString("{}") // settings never saved: the defaults
	case !j.single() && n > 0:
		j.w.WriteString("\n]")
	case !j.single():
		j.w.WriteString("]")
	}
	return nil
}

func (j *jsonExport) end() error {
	_, err := j.w.WriteString("}\n")
	return err
}

// csvExport writes the zip of CSV files.
type csvExport struct {
	zw         *zip.Writer
	exportedAt time.Time
	cw         *csv.Writer
	line       []string
	manifest   csvManifest
}

// csvManifest is the zip's manifest.json: what the files are and how many
// rows each holds, so a reader can tell a whole export from a cut one.
type csvManifest struct {
	Format        string         `json:"format"`
	Version       int            `json:"version"`
	ExportedAt    string         `json:"exported_at"`
	SchemaVersion string         `json:"schema_version"`
	Files         []csvFileCount `json:"files"`
}

type csvFileCount struct {
	Name string `json:"name"`
	Rows int    `json:"rows"`
}

func (c *csvExport) start(schema string) error {
	c.manifest = csvManifest{Format: ExportFormat, Version: ExportVersion,
		ExportedAt: c.exportedAt.UTC().Format(time.RFC3339), SchemaVersion: schema}
	return nil
}

func (c *csvExport) kind(k exportKind, cols []exportColumn) error {
	name := k.key + ".csv"
	f, err := c.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: c.exportedAt})
	if err != nil {
		return err
	}
	c.manifest.Files = append(c.manifest.Files, csvFileCount{Name: name})
	// Lines end in LF, as the app's other CSV downloads: every spreadsheet
	// reads it, and Go's writer would drop a lone CR inside a cell with CRLF.
	c.cw = csv.NewWriter(f)
	c.line = make([]string, len(cols))
	for i, col := range cols {
		c.line[i] = col.name
	}
	return c.cw.Write(c.line)
}

// row writes the cells as they are. Unlike the web app's CSV downloads, a
// text a spreadsheet could read as a formula keeps its first character: the
// files are the ledger's copy, to be read by programs as much as people,
// and a changed value would no longer match the JSON document.
func (c *csvExport) row(cells []exportCell) error {
	for i, cell := range cells {
		c.line[i] = cell.text // empty for null
	}
	return c.cw.Write(c.line)
}

func (c *csvExport) endKind(n int) error {
	c.manifest.Files[len(c.manifest.Files)-1].Rows = n
	c.cw.Flush()
	return c.cw.Error()
}

func (c *csvExport) end() error {
	f, err := c.zw.CreateHeader(&zip.FileHeader{Name: "manifest.json", Method: zip.Deflate, Modified: c.exportedAt})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c.manifest); err != nil {
		return err
	}
	return c.zw.Close()
}

// jsonString is s as a JSON string, with <, > and & as they are: the
// document is a file, never HTML, and a person may read it.
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// ErrRestoreNotEmpty refuses a restore into a user who already has records:
// a restore adds a whole ledger, and merging two would count money twice.
var ErrRestoreNotEmpty = errors.New("the user already has records")

// RestoreCount is how many records of one kind a restore wrote.
type RestoreCount struct {
	Kind string
	N    int
}

// Restore writes the records of an export document read from r to the user,
// who must have none yet (ErrRestoreNotEmpty), in one transaction: all of it
// or nothing. Every id is kept. The kept totals come out right because the
// records are inserted parents first and the tables' triggers count each one
// as it lands, as they do for any write. It refuses a document of another
// format or version, or written under a schema later than this binary's.
func (db *DB) Restore(ctx context.Context, userID string, r io.Reader) ([]RestoreCount, error) {
	var counts []RestoreCount
	err := db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		counts = nil
		rs := &restorer{tx: boundTx{Tx: tx.Tx, d: db.dialect}, userID: userID, stmts: map[string]*sql.Stmt{}}
		defer rs.close()
		if err := rs.run(ctx, r); err != nil {
			return err
		}
		counts = rs.counts
		return nil
	})
	return counts, err
}

// restorer is one restore in its transaction.
type restorer struct {
	tx      boundTx
	userID  string
	userSeq int64
	stmts   map[string]*sql.Stmt // INSERT statements by table and columns
	counts  []RestoreCount
	next    int // exportKinds[next:] may still come
	header  struct{ format, version, schema bool }
	columns map[string]exportColumn // the columns of the kind being read, by name
}

func (rs *restorer) close() {
	for _, st := range rs.stmts {
		_ = st.Close()
	}
}

// docError is a problem of the document, named by where it is.
func docError(where string, format string, args ...any) error {
	return fmt.Errorf("export document: %s: %s", where, fmt.Sprintf(format, args...))
}

func (rs *restorer) run(ctx context.Context, r io.Reader) error {
	if err := rs.checkEmpty(ctx); err != nil {
		return err
	}
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("export document: not a JSON object: not a finance export")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("export document: %w", err)
		}
		key, _ := tok.(string)
		if err := rs.field(ctx, dec, key); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("export document: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("export document: more after the document's end")
	}
	switch {
	case !rs.header.format:
		return errors.New("export document: no format: not a finance export")
	case !rs.header.version:
		return docError("version", "missing")
	case !rs.header.schema:
		return docError("schema_version", "missing")
	}
	return rs.checkOwnLinks(ctx)
}

// field reads the top-level field key.
func (rs *restorer) field(ctx context.Context, dec *json.Decoder, key string) error {
	switch key {
	case "format":
		var s string
		if err := dec.Decode(&s); err != nil || s != ExportFormat {
			return docError("format", "must be %q: not a finance export", ExportFormat)
		}
		rs.header.format = true
	case "version":
		var n json.Number
		if err := dec.Decode(&n); err != nil || n.String() != strconv.Itoa(ExportVersion) {
			return docError("version", "must be %d, the version this finance restores", ExportVersion)
		}
		rs.header.version = true
	case "exported_at":
		var s string
		if err := dec.Decode(&s); err != nil {
			return docError(key, "must be an RFC 3339 time")
		}
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return docError(key, "must be an RFC 3339 time")
		}
	case "schema_version":
		var s string
		if err := dec.Decode(&s); err != nil || s == "" {
			return docError(key, "must be a migration name")
		}
		if s > SchemaVersion() {
			return docError(key, "%s is newer than this finance knows (%s): upgrade finance, then restore", s, SchemaVersion())
		}
		rs.header.schema = true
	default:
		i := slices.IndexFunc(exportKinds, func(k exportKind) bool { return k.key == key })
		if i < 0 {
			return docError(key, "not a kind of record this finance knows")
		}
		if i < rs.next {
			return docError(key, "out of order: it must come before %s", exportKinds[rs.next-1].key)
		}
		rs.next = i + 1
		return rs.kind(ctx, dec, exportKinds[i])
	}
	return nil
}

// kind reads and inserts the records of k: the user object or an array.
func (rs *restorer) kind(ctx context.Context, dec *json.Decoder, k exportKind) error {
	cols, err := k.columns(ctx, rs.tx, rs.tx.d)
	if err != nil {
		return err
	}
	rs.columns = make(map[string]exportColumn, len(cols))
	for _, c := range cols {
		rs.columns[c.name] = c
	}
	if k.key == "user" {
		var rec map[string]any
		if err := dec.Decode(&rec); err != nil {
			return docError(k.key, "must be an object: %v", err)
		}
		if len(rec) == 0 {
			return nil // settings never saved: the defaults
		}
		if _, err := rs.tx.ExecContext(ctx, "DELETE FROM user_settings WHERE user_id = ?", rs.userID); err != nil {
			return err
		}
		return rs.insert(ctx, k, k.key, rec)
	}
	if k.key == "categories" {
		// The categories a new user starts with give way to the document's,
		// which hold the same system ones under their own ids.
		if _, err := rs.tx.ExecContext(ctx, "DELETE FROM categories WHERE user_id = ?", rs.userID); err != nil {
			return err
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return docError(k.key, "must be an array")
	}
	n := 0
	for dec.More() {
		where := fmt.Sprintf("%s[%d]", k.key, n)
		var rec map[string]any
		if err := dec.Decode(&rec); err != nil {
			return docError(where, "must be an object: %v", err)
		}
		if err := rs.insert(ctx, k, where, rec); err != nil {
			return err
		}
		n++
	}
	if _, err := dec.Token(); err != nil {
		return docError(k.key, "%v", err)
	}
	rs.counts = append(rs.counts, RestoreCount{Kind: k.key, N: n})
	return nil
}

// insert inserts one record of k for the user.
func (rs *restorer) insert(ctx context.Context, k exportKind, where string, rec map[string]any) error {
	names := make([]string, 0, len(rec)+2)
	for name := range rec {
		if _, ok := rs.columns[name]; !ok {
			return docError(where, "unknown field %s", name)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	args := make([]any, 0, len(names)+2)
	for _, name := range names {
		v, err := storedValue(rs.columns[name].kind, rec[name], rs.tx.d)
		if err != nil {
			return docError(where+"."+name, "%v", err)
		}
		args = append(args, v)
	}
	names = append(names, "user_id")
	args = append(args, rs.userID)
	if k.table == "expenses" {
		names = append(names, "user_seq")
		args = append(args, rs.userSeq)
	}
	st, err := rs.stmt(ctx, k.table, names)
	if err != nil {
		return err
	}
	if _, err := st.ExecContext(ctx, args...); err != nil {
		if uniqueViolation(err, "", "") {
			return docError(where, "its id is already on this server (ids are kept: restore into a server that does not hold this ledger)")
		}
		return docError(where, "%v", err)
	}
	return nil
}

// stmt returns the INSERT of table's columns names, prepared once per
// restore: the records of a kind carry the same fields.
func (rs *restorer) stmt(ctx context.Context, table string, names []string) (*sql.Stmt, error) {
	key := table + ":" + strings.Join(names, ",")
	if st, ok := rs.stmts[key]; ok {
		return st, nil
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = `"` + n + `"`
	}
	st, err := rs.tx.PrepareContext(ctx, fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", table,
		strings.Join(quoted, ", "), strings.TrimSuffix(strings.Repeat("?, ", len(names)), ", ")))
	if err != nil {
		return nil, err
	}
	rs.stmts[key] = st
	return st, nil
}

// storedValue converts a document value to what the column stores.
func storedValue(kind valueKind, v any, d dialect) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch kind {
	case moneyValue:
		n, ok := v.(json.Number)
		if !ok {
			return nil, errors.New("must be a number")
		}
		m, err := finance.ParseMoney(n.String())
		if err != nil {
			return nil, err
		}
		return int64(m), nil
	case integerValue:
		n, ok := v.(json.Number)
		if !ok {
			return nil, errors.New("must be an integer")
		}
		i, err := strconv.ParseInt(n.String(), 10, 64)
		if err != nil {
			return nil, errors.New("must be an integer")
		}
		return i, nil
	case boolValue:
		b, ok := v.(bool)
		if !ok {
			return nil, errors.New("must be true or false")
		}
		return b, nil // SQLite's driver stores it as 1 or 0
	case instantValue:
		s, ok := v.(string)
		if !ok {
			return nil, errors.New("must be an RFC 3339 time")
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, errors.New("must be an RFC 3339 time")
		}
		if d == postgresDialect {
			return t.UTC(), nil // timestamptz, at the same microseconds
		}
		return t.UnixMicro(), nil
	default:
		s, ok := v.(string)
		if !ok {
			return nil, errors.New("must be a string")
		}
		return s, nil
	}
}

// checkEmpty refuses a user with records. A new user has only the
// categories every account starts with, untouched; those are replaced.
func (rs *restorer) checkEmpty(ctx context.Context) error {
	err := rs.tx.QueryRowContext(ctx, "SELECT seq FROM users WHERE id = ?", rs.userID).Scan(&rs.userSeq)
	if errors.Is(err, sql.ErrNoRows) {
		return finance.NotFound("user")
	} else if err != nil {
		return err
	}
	for _, k := range exportKinds {
		q := "SELECT EXISTS (SELECT 1 FROM " + k.table + " WHERE user_id = ?)"
		switch k.key {
		case "user":
			continue // settings are not records: the document's replace them
		case "categories":
			q = `SELECT EXISTS (SELECT 1 FROM categories AS c JOIN users AS u ON u.id = c.user_id
				WHERE c.user_id = ? AND (c.created_at <> u.created_at OR c.updated_at <> c.created_at OR c.status <> 'active'))`
		}
		var found bool
		if err := rs.tx.QueryRowContext(ctx, q, rs.userID).Scan(&found); err != nil {
			return err
		}
		if found {
			what := strings.ReplaceAll(k.key, "_", " ")
			if k.key == "categories" {
				what = "categories of their own"
			}
			return fmt.Errorf("%w (%s): restore only into a new user (finance users create)", ErrRestoreNotEmpty, what)
		}
	}
	return nil
}

// checkOwnLinks refuses a document whose records reference another user's
// records: every foreign key from a restored row to a table of user records
// must land on one of the user's own.
func (rs *restorer) checkOwnLinks(ctx context.Context) error {
	for _, k := range exportKinds {
		rows, err := rs.tx.QueryContext(ctx, rs.tx.d.userLinksSQL(), k.table)
		if err != nil {
			return err
		}
		type link struct{ from, parent, to string }
		var links []link
		for rows.Next() {
			var l link
			if err := rows.Scan(&l.from, &l.parent, &l.to); err != nil {
				rows.Close()
				return err
			}
			links = append(links, l)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, l := range links {
			var id string
			err := rs.tx.QueryRowContext(ctx, fmt.Sprintf(`SELECT c.%q FROM %s AS c JOIN %s AS p ON p.%q = c.%[1]q
				WHERE c.user_id = ? AND p.user_id <> c.user_id LIMIT 1`, l.from, k.table, l.parent, l.to), rs.userID).Scan(&id)
			if err == nil {
				return docError(k.key, "%s %s is another user's record", l.from, id)
			} else if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
	}
	return nil
}
