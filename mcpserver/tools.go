package mcpserver

import "github.com/mark3labs/mcp-go/mcp"

// The tool table. Each row names a REST route of the contract (method and
// path, as written in embed/openapi.yaml) and adds what a model needs to use
// it well: a title, a description and the behaviour hints. A description
// says only what the name, the input schema and the instructions do not:
// units, which id goes where, side effects and what cannot be undone, in
// the fewest words, since every conversation carries it (TestToolsListSize). The input schema
// and the scope come from the route's operation in the contract, so they are
// never restated here. Adding a tool for a new route is one row.
//
// The rows follow the scope groups of the specification (section 4.5); the
// tools named there whose routes do not exist yet are added as their routes land
// (TestToolsFollowSpecification lists them). A few tools go beyond that list
// where an agent plainly needs a route to set up a household without REST:
// adding and changing accounts and cards, and reading one of them, or one bill, by id.

// hints are a tool's behaviour annotations.
type hints struct {
	readOnly    bool
	destructive bool
	idempotent  bool
}

// annotations are the hints as sent: every hint whose value differs from
// MCP's default, which assumes a tool that writes, may destroy, is not
// idempotent and reaches an open world. So openWorldHint is always false
// (the tools touch only the user's ledger), destructiveHint is always
// stated for a write, and a read says only that it is one: the specification
// gives destructiveHint and idempotentHint meaning only when readOnlyHint is
// false.
func (h hints) annotations() mcp.ToolAnnotation {
	hint := func(b bool) *bool { return &b }
	a := mcp.ToolAnnotation{OpenWorldHint: hint(false)}
	if h.readOnly {
		a.ReadOnlyHint = hint(true)
		return a
	}
	a.DestructiveHint = hint(h.destructive)
	if h.idempotent {
		a.IdempotentHint = hint(true)
	}
	return a
}

// The annotation sets of the table. A tool whose call can remove, void or
// move money is destructive: deletes, voids, cancels, splits, payments,
// balance adjustments, conversions to installments, links to a statement,
// updates of a money field and replacements of a set (TestEveryToolHas...
// derives which from the routes); other writes are not.
var (
	// reads change nothing.
	reads = hints{readOnly: true, idempotent: true}
	// creates add a record on every call, so a retry records it twice.
	creates = hints{}
	// updates set the fields they are given; repeating one changes nothing more.
	updates = hints{idempotent: true}
	// rewrites are updates of money already recorded (an amount, the account
	// or card that pays, the rows on a statement): the linked account line
	// or card row is voided and written again, a template's future bills
	// are made again. Repeating one changes nothing more.
	rewrites = hints{destructive: true, idempotent: true}
	// voids reverse a record and its linked lines; repeating one is refused.
	voids = hints{destructive: true, idempotent: true}
	// reshapes replace part of a record's history (split parts, a balance
	// adjustment line); a retry after a lost reply must read first.
	reshapes = hints{destructive: true}
	// parses read their input into drafts and save nothing; a call may
	// answer differently the next time (a model reads it).
	parses = hints{readOnly: true}
	// replaces set a whole collection to the list given: repeating one
	// changes nothing more, but whatever the list leaves out is removed.
	replaces = hints{destructive: true, idempotent: true}
)

// retryWithKey ends the description of every tool whose repetition would
// move money twice (payments, balance adjustments): safety rule 3 of the
// instructions, repeated where a mistake costs the most.
const retryWithKey = "Retry only with the same idempotency_key."

type toolSpec struct {
	name        string
	title       string
	method      string
	path        string // the contract's path, /api/v1/...
	hints       hints
	description string
	// runsAI marks a tool whose route runs the AI itself (reading receipts):
	// the assistant's own model is not offered it (ToolNames).
	runsAI bool
	// body, when set, is the route's whole JSON body, fixed: the tool is
	// one use of a route that does several (cancel_loan is PATCH /loans/{id}
	// with status cancelled) and takes none of the body's fields.
	body string
	// fileAsText, when set, is the form's file field that the tool takes
	// as text or base64 with a file name (withTextFile).
	fileAsText string
	// itemsOf, when set, names the tool (earlier in the table) whose
	// arguments each member of the items argument is: the tool's schema
	// says so rather than repeat that tool's (see withItemsOf).
	itemsOf string
	// unsorted marks a list tool of a short list: it takes no sortBy or
	// sortOrder (see withoutSorting).
	unsorted bool
	// whole marks a list tool whose items are answered whole: what it is
	// for is nested (an activity entry's actor) or a timestamp.
	whole bool
}

var toolTable = []toolSpec{
	// finance:read (a domain's write scope also reads that domain)
	{
		name: "get_dashboard_summary", title: "Dashboard of a month", method: "GET", path: "/api/v1/dashboard", hints: reads,
		description: "A month (default this one): income, spending (not card or loan payments), balances, cards, " +
			"bills, loans, budgets.",
	},
	{
		name: "get_report", title: "Run a report", method: "GET", path: "/api/v1/reports/{report}", hints: reads,
		description: "A report over dateFrom/dateTo (default this month) plus: spending-by-category (payment_method, " +
			"cardId), spending-trend (granularity, category), income-vs-expenses (granularity), cash-flow (granularity), " +
			"budget-vs-actual (month), net-worth (today), credit-card-utilization (cardId; today), payment-methods (), " +
			"bills-overview (), loans-overview ().",
	},
	{
		name: "list_expenses", title: "List expenses", method: "GET", path: "/api/v1/expenses", hints: reads,
		description: "Expenses, newest first; summary totals every page.",
	},
	{
		name: "get_expense", title: "Get an expense", method: "GET", path: "/api/v1/expenses/{id}", hints: reads,
		description: "One expense (voided too), with split parts and card row status.",
	},
	{
		name: "get_expense_form_options", title: "Expense form choices", method: "GET", path: "/api/v1/expenses/form-options", hints: reads,
		description: "What a new expense can name: methods, active categories, accounts and cards with ids.",
	},
	{
		name: "get_expense_summary", title: "Spending summary", method: "GET", path: "/api/v1/expenses/summary", hints: reads,
		description: "Spending over dateFrom/dateTo (default this month) by category and method, against the period " +
			"before.",
	},
	{
		name: "list_income", title: "List income", method: "GET", path: "/api/v1/income", hints: reads,
		description: "Income received, newest first; status=voided for voided records.",
	},
	{
		name: "get_income", title: "Get income", method: "GET", path: "/api/v1/income/{id}", hints: reads,
		description: "One income record (voided too), with the account it credited.",
	},
	{
		name: "list_accounts", title: "List accounts", method: "GET", path: "/api/v1/accounts", hints: reads, unsorted: true,
		description: "Accounts with current balances, active ones by default.",
	},
	{
		name: "get_account", title: "Get an account", method: "GET", path: "/api/v1/accounts/{id}", hints: reads,
		description: "One account (archived too), with its current_balance.",
	},
	{
		name: "list_account_transactions", title: "List account transactions", method: "GET", path: "/api/v1/accounts/transactions", hints: reads,
		description: "Account lines (debit out, credit in), newest first.",
	},
	{
		name: "list_credit_cards", title: "List credit cards", method: "GET", path: "/api/v1/credit-cards", hints: reads, unsorted: true,
		description: "Cards with balances and next dates; active ones by default.",
	},
	{
		name: "get_credit_card_metrics", title: "Credit card metrics", method: "GET", path: "/api/v1/credit-cards/metrics", hints: reads,
		description: "Each card's standing today, and the statement to pay first.",
	},
	{
		name: "get_credit_card", title: "Get a credit card", method: "GET", path: "/api/v1/credit-cards/{id}", hints: reads,
		description: "One card (archived too), with its terms and current figures.",
	},
	{
		name: "list_unbilled_transactions", title: "List a card's unbilled transactions", method: "GET",
		path: "/api/v1/credit-cards/{id}/unbilled-transactions", hints: reads,
		description: "A card's rows not yet on a statement (id: the card's); only these change amount, date or card.",
	},
	{
		name: "list_credit_card_soas", title: "List card statements", method: "GET", path: "/api/v1/credit-cards/soa", hints: reads,
		description: "Card statements (SOA), newest first; status open: unpaid or partly paid, overdue: open past due.",
	},
	{
		name: "get_credit_card_soa", title: "Get a card statement", method: "GET", path: "/api/v1/credit-cards/soa/{id}", hints: reads,
		description: "One statement with its rows, oldest first; is_soa_line marks its own lines.",
	},
	{
		name: "list_categories", title: "List categories", method: "GET", path: "/api/v1/categories", hints: reads, unsorted: true,
		description: "Expense and income categories (kind), active by default.",
	},
	{
		name: "get_app_settings", title: "App settings", method: "GET", path: "/api/v1/user-settings/app", hints: reads,
		description: "The user's settings; timezone defines today, currency is the reporting currency.",
	},
	{
		name: "convert_amount", title: "Convert an amount", method: "GET", path: "/api/v1/exchange-rates/convert", hints: reads,
		description: "Convert amount from one currency to another at the latest rate on or before date (default today).",
	},
	{
		name: "list_exchange_rates", title: "List exchange rates", method: "GET", path: "/api/v1/exchange-rates", hints: reads,
		unsorted:    true, // newest first is the order conversions read them in
		description: "Dated rates, newest first: on date, 1 base is worth rate quote; the user's own are source manual.",
	},
	{
		name: "get_budget_thresholds", title: "Budget thresholds", method: "GET", path: "/api/v1/user-settings/budget-thresholds",
		hints: reads, unsorted: true,
		description: "Budget limits per category with the month's spending, remaining and state; default this month.",
	},
	{
		name: "list_activity", title: "Who did what", method: "GET", path: "/api/v1/activity", hints: reads, whole: true,
		description: "The ledger's writes, newest first: who made each, what changed.",
	},

	// expenses:write
	{
		name: "create_expense", title: "Record an expense", method: "POST", path: "/api/v1/expenses", hints: creates,
		description: "Record money spent. Account Debit also debits account_id; Credit Card adds an unbilled purchase on " +
			"credit_card_id.",
	},
	{
		name: "update_expense", title: "Update an expense", method: "PUT", path: "/api/v1/expenses/{id}", hints: rewrites,
		description: "Change an expense; its account line or card purchase follows. Money fields only while unbilled; " +
			"a category ends a split.",
	},
	{
		name: "delete_expense", title: "Void an expense", method: "DELETE", path: "/api/v1/expenses/{id}", hints: voids,
		description: "Void an expense with its account debit or card purchase, for good. Refused once billed or " +
			"converted, or for a bill payment.",
	},
	{
		name: "split_expense", title: "Split an expense across categories", method: "POST", path: "/api/v1/expenses/{id}/split", hints: reshapes,
		description: "Split an expense across categories, replacing any earlier split.",
	},
	{
		name: "create_expenses", title: "Record many expenses", method: "POST", path: "/api/v1/expenses/bulk", hints: creates,
		itemsOf:     "create_expense",
		description: "Record 1 to 100 expenses (items: create_expense arguments), all or none.",
	},
	// Reading a note into drafts and the app's assistant are not tools: the
	// caller is a model already, and would pay their place in every
	// tools/list to reach a second, weaker one. Their routes serve the web
	// app, Telegram and scripts. A photo is different: not every model reads
	// images, and the receipt reader (OCR) does.
	{
		name: "parse_receipt_images", title: "Read receipt photos into drafts", method: "POST",
		path: "/api/v1/expenses/ai/parse-images", hints: parses, runsAI: true,
		description: "Read 1 to 5 receipt photos (base64 PNG, JPEG or WebP; about 750 KB in all) into expense drafts; " +
			"saves nothing.",
	},
	{
		name: "preview_import", title: "Preview a bank file import", method: "POST", path: "/api/v1/imports", hints: creates,
		fileAsText: "file",
		description: "Read a bank file (CSV, OFX, QIF, CAMT, MT940) into a preview, skipping duplicates; commit_import " +
			"saves it.",
	},
	{
		name: "list_import_rows", title: "List an import's rows", method: "GET", path: "/api/v1/imports/{id}/rows", hints: reads, unsorted: true,
		whole:       true, // a row's match is what it is read for
		description: "A batch's rows in file order; match.record_id is the duplicate account line or card row.",
	},
	{
		name: "update_import_row", title: "Change an import row", method: "PUT", path: "/api/v1/imports/{id}/rows/{line}",
		hints:       updates,
		description: "Before commit: set a row's action, record, category or description.",
	},
	{
		name: "commit_import", title: "Commit an import", method: "POST", path: "/api/v1/imports/{id}/commit", hints: creates,
		description: "Write a preview's create rows to the ledger, all or none; a second commit is refused.",
	},
	{
		name: "revert_import", title: "Revert an import", method: "POST", path: "/api/v1/imports/{id}/revert", hints: voids,
		description: "Void every record a commit created, unless one changed since.",
	},

	// income:write
	{
		name: "create_income", title: "Record income", method: "POST", path: "/api/v1/income", hints: creates,
		description: "Record money received; account_id also credits that account.",
	},
	{
		name: "update_income", title: "Update income", method: "PUT", path: "/api/v1/income/{id}", hints: rewrites,
		description: "Change income; its account credit follows (voided when account_id is null).",
	},
	{
		name: "delete_income", title: "Void income", method: "DELETE", path: "/api/v1/income/{id}", hints: voids,
		description: "Void income with its account credit; cannot be undone.",
	},
	{
		name: "confirm_expected_income", title: "Confirm expected income", method: "POST",
		path: "/api/v1/income/expected/{id}/confirm", hints: reshapes,
		description: "Record an expected income as received, once, into account_id or else its template's account.",
	},
	{
		name: "skip_expected_income", title: "Skip expected income", method: "POST", path: "/api/v1/income/expected/{id}/skip", hints: updates,
		description: "Mark an expected income skipped: not received, nothing recorded.",
	},

	// accounts:write
	{
		name: "create_account", title: "Add an account", method: "POST", path: "/api/v1/accounts", hints: creates,
		description: "Add an account. opening_balance (signed) is its balance before any line.",
	},
	{
		name: "update_account", title: "Update an account", method: "PUT", path: "/api/v1/accounts/{id}", hints: rewrites,
		description: "Change an active account. To match the bank use adjust_account_balance, not opening_balance.",
	},
	{
		name: "archive_account", title: "Archive an account", method: "PATCH", path: "/api/v1/accounts/{id}/archive", hints: updates,
		description: "Archive an account: its history stays, no new writes.",
	},
	{
		name: "unarchive_account", title: "Unarchive an account", method: "PATCH", path: "/api/v1/accounts/{id}/unarchive", hints: updates,
		description: "Unarchive an account: it is listed and takes writes.",
	},
	{
		name: "create_account_transaction", title: "Add an account transaction", method: "POST",
		path: "/api/v1/accounts/{id}/transactions", hints: creates,
		description: "Post a manual debit or credit on account id: neither spending nor income.",
	},
	{
		name: "update_account_transaction", title: "Update an account transaction", method: "PUT",
		path: "/api/v1/accounts/{id}/transactions/{transactionId}", hints: rewrites,
		description: "Change a manual or adjustment line (transactionId) of account id; cleared alone: any line.",
	},
	{
		name: "void_account_transaction", title: "Void an account transaction", method: "DELETE",
		path: "/api/v1/accounts/{id}/transactions/{transactionId}", hints: voids,
		description: "Void a manual or adjustment line (transactionId) of account id.",
	},
	{
		name: "adjust_account_balance", title: "Adjust an account's balance", method: "POST",
		path: "/api/v1/accounts/{id}/balance-adjustment", hints: reshapes,
		description: "Set an account's balance to target_balance with one adjustment line. " + retryWithKey,
	},
	{
		name: "reconcile_account", title: "Reconcile account", method: "POST", path: "/api/v1/accounts/{id}/reconcile",
		hints: updates, description: "Lock the cleared lines up to date if statement_balance equals their balance.",
	},
	{
		name: "list_transfers", title: "List transfers", method: "GET", path: "/api/v1/transfers", hints: reads, unsorted: true,
		description: "Transfers between the user's own accounts, newest first.",
	},
	{
		name: "create_transfer", title: "Transfer between accounts", method: "POST", path: "/api/v1/transfers", hints: creates,
		description: "Move money between own accounts: not spending or income. A fee is an expense from the first, " +
			"in fee_category.",
	},
	{
		name: "delete_transfer", title: "Delete a transfer", method: "DELETE", path: "/api/v1/transfers/{id}", hints: voids,
		description: "Void a transfer with its two lines and fee; cannot be undone.",
	},

	// credit_cards:write
	{
		name: "create_credit_card", title: "Add a credit card", method: "POST", path: "/api/v1/credit-cards", hints: creates,
		description: "Add a credit card. Statements start at cycle_start_date.",
	},
	{
		name: "update_credit_card", title: "Update a credit card", method: "PUT", path: "/api/v1/credit-cards/{id}", hints: updates,
		description: "Change an active card. New days apply to later statements.",
	},
	{
		name: "archive_credit_card", title: "Archive a credit card", method: "PATCH", path: "/api/v1/credit-cards/{id}/archive", hints: updates,
		description: "Archive a card: no new charges; its statements can still be paid.",
	},
	{
		name: "unarchive_credit_card", title: "Unarchive a credit card", method: "PATCH", path: "/api/v1/credit-cards/{id}/unarchive",
		hints: updates, description: "Unarchive a card: it is listed again and takes charges.",
	},
	{
		name: "create_credit_card_transaction", title: "Record a card transaction", method: "POST",
		path: "/api/v1/credit-cards/transactions", hints: creates,
		description: "Record an unbilled purchase, fee, interest or refund on an active card. A purchase also records its " +
			"expense: no create_expense.",
	},
	// Installment plans: their two reads (finance:read) sit with their two writes.
	{
		name: "list_installment_plans", title: "List installment plans", method: "GET",
		path: "/api/v1/credit-cards/installment-plans", hints: reads, unsorted: true,
		description: "Card purchases converted to installments, newest first, with progress.",
	},
	{
		name: "get_installment_plan", title: "Get an installment plan", method: "GET",
		path: "/api/v1/credit-cards/installment-plans/{id}", hints: reads,
		description: "One installment plan with its rows: what is billed and what remains.",
	},
	{
		name: "convert_transaction_to_installment", title: "Convert a card purchase to installments", method: "POST",
		path: "/api/v1/credit-cards/transactions/{id}/convert-to-installment", hints: reshapes,
		description: "Convert an unbilled card purchase (id) into monthly installments.",
	},
	{
		name: "cancel_installment_plan", title: "Cancel an installment plan", method: "POST",
		path: "/api/v1/credit-cards/installment-plans/{id}/cancel", hints: voids,
		description: "Cancel an active plan, for good: unbilled rows voided; if some were billed, one row bills the " +
			"principal left.",
	},
	{
		name: "update_credit_card_transaction", title: "Update a card transaction", method: "PUT",
		path: "/api/v1/credit-cards/transactions/{id}", hints: rewrites,
		description: "Change a card row. Card, amount and date only while unbilled; installment rows through their plan.",
	},
	{
		name: "update_credit_card_soa", title: "Update a card statement", method: "PUT", path: "/api/v1/credit-cards/soa/{id}", hints: updates,
		description: "Change a statement; to change its balance, add_soa_transaction.",
	},
	{
		name: "record_credit_card_soa_payment", title: "Pay a card statement", method: "POST",
		path: "/api/v1/credit-cards/soa/{id}/payments", hints: reshapes,
		description: "Pay statement id from an active account, at most its remaining; not spending. Undo: " +
			"void_credit_card_soa. " + retryWithKey,
	},
	{
		name: "add_soa_transaction", title: "Add a line to a card statement", method: "POST",
		path: "/api/v1/credit-cards/soa/{id}/transactions", hints: creates,
		description: "Add a fee, interest or refund line to a statement, to match the bank's.",
	},
	{
		name: "link_transaction_to_soa", title: "Link transactions to a card statement", method: "POST",
		path: "/api/v1/credit-cards/soa/{id}/transactions/link", hints: rewrites,
		description: "Put the rows transaction_ids names on statement id, all or none.",
	},
	{
		name: "update_soa_transaction", title: "Update a card statement line", method: "PUT",
		path: "/api/v1/credit-cards/soa/{id}/transactions/{transactionId}", hints: rewrites,
		description: "Change statement row transactionId: any field of its own line; only a linked row's description.",
	},
	{
		name: "delete_soa_transaction", title: "Remove a line from a card statement", method: "DELETE",
		path: "/api/v1/credit-cards/soa/{id}/transactions/{transactionId}", hints: voids,
		description: "Remove row transactionId from statement id: its own line voided, a linked row back to unbilled.",
	},
	{
		name: "void_credit_card_soa", title: "Void (reset) a card statement", method: "POST",
		path: "/api/v1/credit-cards/soa/{id}/void", hints: voids,
		description: "Reset a statement: payments, their debits and its own lines voided, rows moved to a fresh " +
			"statement. Undoes a wrong payment.",
	},

	// Bills: their reads (finance:read) sit with their writes (bills:write).
	{
		name: "list_bills", title: "List bills", method: "GET", path: "/api/v1/bills", hints: reads,
		description: "Bills, one per due date of each template, soonest first; status open: unpaid or partly paid.",
	},
	{
		name: "get_bill", title: "Get a bill", method: "GET", path: "/api/v1/bills/{id}", hints: reads,
		description: "One bill with amount, paid_total, remaining and status.",
	},
	{
		name: "get_bills_summary", title: "Bills summary for a month", method: "GET", path: "/api/v1/bills/summary", hints: reads,
		description: "A month's bills (default this month): totals by status, due soon, overdue.",
	},
	{
		name: "get_bill_form_options", title: "Bill form choices", method: "GET", path: "/api/v1/bills/form-options", hints: reads,
		description: "What bill writes can name: categories, accounts and cards with ids, methods, frequencies, statuses.",
	},
	{
		name: "list_expected_income", title: "List expected income", method: "GET", path: "/api/v1/income/expected", hints: reads, unsorted: true,
		description: "Income expected from recurring templates (salary), by expected_date.",
	},
	{
		name: "list_bill_templates", title: "List bill templates", method: "GET", path: "/api/v1/bills/templates", hints: reads, unsorted: true,
		description: "Recurring bill templates (active or paused) that make the bills.",
	},
	{
		name: "get_bill_template", title: "Get a bill template", method: "GET", path: "/api/v1/bills/templates/{id}", hints: reads,
		description: "One recurring bill template; a deleted one is not found.",
	},
	{
		name: "list_bill_payments", title: "List a bill's payments", method: "GET", path: "/api/v1/bills/{id}/payments", hints: reads,
		description: "A bill's payments, newest first; voided ones are deleted payments.",
	},
	{
		name: "create_bill_template", title: "Create a recurring bill", method: "POST", path: "/api/v1/bills/templates", hints: creates,
		description: "A recurring bill due on due_day (semimonthly also second_due_day); default_* " +
			"fill its payments.",
	},
	{
		name: "update_bill_template", title: "Update, pause or resume a recurring bill", method: "PUT",
		path: "/api/v1/bills/templates/{id}", hints: rewrites,
		description: "Change a recurring bill; its untouched future bills are made again from today.",
	},
	{
		name: "delete_bill_template", title: "Delete a recurring bill", method: "DELETE", path: "/api/v1/bills/templates/{id}", hints: voids,
		description: "Remove a recurring bill and its untouched future bills, for good (pausing keeps it).",
	},
	{
		name: "update_bill_instance", title: "Update one bill", method: "PUT", path: "/api/v1/bills/{id}", hints: rewrites,
		description: "Change one bill's amount (at least what is paid), due_date or notes.",
	},
	{
		name: "update_bill_status", title: "Mark a bill paid, unpaid or skipped", method: "POST", path: "/api/v1/bills/{id}/status", hints: updates,
		description: "Set a bill's status by hand; paid moves NO money (to pay: record_bill_payment); skipped needs " +
			"no payments; unpaid undoes either.",
	},
	{
		name: "record_bill_payment", title: "Pay a bill", method: "POST", path: "/api/v1/bills/{id}/payments", hints: reshapes,
		description: "Pay bill id, at most its remaining; records the expense (no create_expense). " + retryWithKey,
	},
	{
		name: "delete_bill_payment", title: "Delete a bill payment", method: "DELETE", path: "/api/v1/bills/payments/{paymentId}", hints: voids,
		description: "Void a bill payment with its expense and debit or card charge; refused once the charge is billed.",
	},

	// settings:write
	{
		name: "update_budget_thresholds", title: "Replace the budget thresholds", method: "PUT",
		path: "/api/v1/user-settings/budget-thresholds", hints: replaces,
		description: "Replace the WHOLE set of budget limits; categories left out lose theirs: read " +
			"get_budget_thresholds, send all.",
	},
	{
		name: "update_app_settings", title: "Change app settings", method: "PUT", path: "/api/v1/user-settings/app", hints: updates,
		description: "Change settings; null restores a default. timezone (IANA) moves today.",
	},
	{
		name: "update_reminder_settings", title: "Reminder preferences", method: "PUT", path: "/api/v1/user-settings/reminders",
		hints: updates, description: "Reminders (Telegram, Home), off by default; {} reads them.",
	},
	{
		name: "create_category", title: "Create a category", method: "POST", path: "/api/v1/categories", hints: creates,
		description: "Create an expense or income category; names are unique per kind.",
	},
	{
		name: "update_category", title: "Rename or recolor a category", method: "PUT", path: "/api/v1/categories/{id}", hints: updates,
		description: "Rename, recolor or change the icon of a category; records follow.",
	},
	{
		name: "archive_category", title: "Archive a category", method: "DELETE", path: "/api/v1/categories/{id}", hints: voids,
		description: "Archive a category and drop its budget threshold; records keep it.",
	},

	// Loans: their reads (finance:read) sit with their write.
	{
		name: "list_loans", title: "List loans", method: "GET", path: "/api/v1/loans", hints: reads, unsorted: true,
		description: "Loans, newest first, with terms and figures (paid, remaining, next due).",
	},
	{
		name: "get_loan", title: "Get a loan", method: "GET", path: "/api/v1/loans/{id}", hints: reads,
		description: "One loan with its figures and every monthly instance with its payments.",
	},
	{
		name: "get_current_month_loan_dues", title: "Get this month's loan dues", method: "GET",
		path: "/api/v1/loans/current-month-dues", hints: reads, unsorted: true,
		description: "Loan instances due this month or overdue, with the instanceId to pay.",
	},
	{
		name: "record_loan_payment", title: "Pay a loan instance", method: "POST",
		path: "/api/v1/loans/instances/{instanceId}/payments", hints: reshapes,
		description: "Pay loan instance instanceId, at most its remaining; only interest is spending; no undo. " +
			retryWithKey,
	},
	{
		name: "create_loan", title: "Add a loan", method: "POST", path: "/api/v1/loans", hints: creates,
		description: "Add a loan and its monthly schedule; no money moves.",
	},
	{
		name: "update_loan", title: "Change a loan", method: "PATCH", path: "/api/v1/loans/{id}", hints: rewrites,
		description: "Change a loan's name, lender, notes or status. Terms never change.",
	},
	{
		name: "cancel_loan", title: "Cancel a loan", method: "PATCH", path: "/api/v1/loans/{id}", hints: voids,
		body:        `{"status":"cancelled"}`,
		description: "Cancel an active loan: open instances are cancelled, payments stay.",
	},
	{
		name: "delete_loan", title: "Delete a loan", method: "DELETE", path: "/api/v1/loans/{id}", hints: voids,
		description: "Erase a never-paid loan and its schedule (else cancel_loan).",
	},
}
