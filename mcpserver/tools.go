package mcpserver

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

// hints are a tool's behaviour annotations. Every hint is sent explicitly:
// MCP's defaults (and mcp-go's NewTool) assume a destructive, open-world tool.
type hints struct {
	readOnly    bool
	destructive bool
	idempotent  bool
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
	// runsAI marks a tool whose route runs the AI itself (parsing, the
	// assistant): the assistant's own model is not offered it (ToolNames).
	runsAI bool
	// body, when set, is the route's whole JSON body, fixed: the tool is
	// one use of a route that does several (cancel_loan is PATCH /loans/{id}
	// with status cancelled) and takes none of the body's fields.
	body string
	// fileAsText, when set, is the form's file field that the tool takes
	// as text or base64 with a file name (withTextFile).
	fileAsText string
	// whole marks a list tool whose items are answered whole: what it is
	// for is nested (an activity entry's actor) or a timestamp.
	whole bool
}

var toolTable = []toolSpec{
	// finance:read (a domain's write scope also reads that domain)
	{
		name: "get_dashboard_summary", title: "Dashboard of a month", method: "GET", path: "/api/v1/dashboard", hints: reads,
		description: "One month at a glance (month=YYYY-MM, default this month): income, spending, net, accounts, cards, " +
			"bills, loans, installments, budgets, top categories, latest records. Spending: expenses (split by " +
			"parts), card fees and interest, installment and loan interest, less refunds; card and loan payments " +
			"are not spending. get_report covers ranges.",
	},
	{
		name: "get_report", title: "Run a report", method: "GET", path: "/api/v1/reports/{report}", hints: reads,
		description: "Run a report by name. All take dateFrom/dateTo (default this month, at most 5 years apart); other " +
			"parameters only where listed, else refused. granularity: day (at most 366 days), week or month " +
			"(default). spending-by-category (payment_method, cardId); spending-trend (granularity, category); " +
			"payment-methods (range only); income-vs-expenses (granularity); cash-flow (granularity): income in, " +
			"cash and debit expenses, card and loan payments out; budget-vs-actual (month, else dateTo's); " +
			"net-worth (as of today): accounts less card balances and loan principal; credit-card-utilization " +
			"(cardId; as of today); bills-overview (on due dates); loans-overview (loans running in the range). " +
			"Spending is counted as in get_dashboard_summary.",
	},
	{
		name: "list_expenses", title: "List expenses", method: "GET", path: "/api/v1/expenses", hints: reads,
		description: "The user's expenses, newest first, paged. category is a name; dateFrom/dateTo inclusive; " +
			"status=voided lists voided ones. For totals use get_expense_summary.",
	},
	{
		name: "get_expense", title: "Get an expense", method: "GET", path: "/api/v1/expenses/{id}", hints: reads,
		description: "One expense by id (voided too), with its split parts and card transaction status.",
	},
	{
		name: "get_expense_form_options", title: "Expense form choices", method: "GET", path: "/api/v1/expenses/form-options", hints: reads,
		description: "What a new expense can name: payment methods, active expense categories, active accounts and cards " +
			"with ids.",
	},
	{
		name: "get_expense_summary", title: "Spending summary", method: "GET", path: "/api/v1/expenses/summary", hints: reads,
		description: "Spending from dateFrom to dateTo (default this month): total, count, daily average, by category and " +
			"payment method, fees, interest, refunds, and the change against the previous period (the previous " +
			"month for a whole month, else the same length just before).",
	},
	{
		name: "list_income", title: "List income", method: "GET", path: "/api/v1/income", hints: reads,
		description: "The user's income, newest first, paged. category is a name; status=voided lists voided ones.",
	},
	{
		name: "get_income", title: "Get income", method: "GET", path: "/api/v1/income/{id}", hints: reads,
		description: "One income record by id (voided too), with the account it credited.",
	},
	{
		name: "list_accounts", title: "List accounts", method: "GET", path: "/api/v1/accounts", hints: reads,
		description: "The user's accounts with current balances; active ones unless status=archived or all. Only active " +
			"accounts take writes.",
	},
	{
		name: "get_account", title: "Get an account", method: "GET", path: "/api/v1/accounts/{id}", hints: reads,
		description: "One account by id (archived too): current_balance is opening_balance plus posted credits minus " +
			"debits.",
	},
	{
		name: "list_account_transactions", title: "List account transactions", method: "GET", path: "/api/v1/accounts/transactions", hints: reads,
		description: "Account ledger lines (debit out, credit in), newest first, of every account or accountId's. Only " +
			"is_editable lines (manual, adjustment) change here; others through their record.",
	},
	{
		name: "list_credit_cards", title: "List credit cards", method: "GET", path: "/api/v1/credit-cards", hints: reads,
		description: "The user's credit cards with limit, balance, available credit, utilization and next statement and " +
			"due dates; active ones by default. Only active cards take charges.",
	},
	{
		name: "get_credit_card_metrics", title: "Credit card metrics", method: "GET", path: "/api/v1/credit-cards/metrics", hints: reads,
		description: "Each card's standing today and totals: balance, available credit, utilization level, unbilled, " +
			"unpaid minimum due, overdue, installments, and next_due (the statement to pay first, with soa_id).",
	},
	{
		name: "get_credit_card", title: "Get a credit card", method: "GET", path: "/api/v1/credit-cards/{id}", hints: reads,
		description: "One credit card by id (archived too), with its terms and current figures.",
	},
	{
		name: "list_unbilled_transactions", title: "List a card's unbilled transactions", method: "GET",
		path: "/api/v1/credit-cards/{id}/unbilled-transactions", hints: reads,
		description: "One card's transactions not yet on a statement (id: the card's). Only these can change amount, date " +
			"or card.",
	},
	{
		name: "list_credit_card_soas", title: "List card statements", method: "GET", path: "/api/v1/credit-cards/soa", hints: reads,
		description: "Card statements (SOA), newest first, made by each card's cycle (never created). status open = unpaid " +
			"or partially paid; overdue = open past due. Dates filter the statement date.",
	},
	{
		name: "get_credit_card_soa", title: "Get a card statement", method: "GET", path: "/api/v1/credit-cards/soa/{id}", hints: reads,
		description: "One statement with all its rows, oldest first; is_soa_line marks its own fee, interest and refund " +
			"lines.",
	},
	{
		name: "list_categories", title: "List categories", method: "GET", path: "/api/v1/categories", hints: reads,
		description: "Expense and income categories (kind), active by default. Records name a category by name.",
	},
	{
		name: "get_app_settings", title: "App settings", method: "GET", path: "/api/v1/user-settings/app", hints: reads,
		description: "The user's settings: currency (a label; nothing is converted), timezone (defines today), " +
			"date_format, week_start, default_payment_method, budget_warning_percent, due_soon_days.",
	},
	{
		name: "get_budget_thresholds", title: "Budget thresholds", method: "GET", path: "/api/v1/user-settings/budget-thresholds",
		hints: reads,
		description: "Monthly budget limits per expense category with the month's spending, remaining (negative when " +
			"over), percent_used and state (ok, warning, exceeded). month=YYYY-MM, default this month.",
	},
	{
		name: "list_activity", title: "Who did what", method: "GET", path: "/api/v1/activity", hints: reads, whole: true,
		description: "Who did what: the user's writes, newest first, each with the record, what changed and who made it " +
			"(actor kind, id and name then). Check here what was already recorded.",
	},

	// expenses:write
	{
		name: "create_expense", title: "Record an expense", method: "POST", path: "/api/v1/expenses", hints: creates,
		description: "Record money spent. Account Debit also debits account_id; Credit Card adds an unbilled purchase on " +
			"credit_card_id. category is an active expense category's name.",
	},
	{
		name: "update_expense", title: "Update an expense", method: "PUT", path: "/api/v1/expenses/{id}", hints: rewrites,
		description: "Change an expense; only given fields change, and its account line or card purchase follows (a new " +
			"method, account or card voids the old line). Amount, date, method, account and card change only " +
			"while unbilled and not a bill payment; a category ends a split.",
	},
	{
		name: "delete_expense", title: "Void an expense", method: "DELETE", path: "/api/v1/expenses/{id}", hints: voids,
		description: "Void an expense with its account debit or card purchase; cannot be undone. Refused once its card row " +
			"is billed or converted, or for a bill payment.",
	},
	{
		name: "split_expense", title: "Split an expense across categories", method: "POST", path: "/api/v1/expenses/{id}/split", hints: reshapes,
		description: "Split an expense into 2 to 20 parts whose amounts sum exactly to its amount; replaces any earlier " +
			"split. The account line or card purchase is unchanged.",
	},
	{
		name: "create_expenses", title: "Record many expenses", method: "POST", path: "/api/v1/expenses/bulk", hints: creates,
		description: "Record 1 to 100 expenses (items: create_expense bodies), all or none; problems come back as " +
			"items[i].<field>.",
	},
	{
		name: "parse_expense_text", title: "Read text into expense drafts", method: "POST", path: "/api/v1/expenses/ai/parse-text",
		hints: parses, runsAI: true,
		description: "Turn natural_text (e.g. 'lunch 250 cash yesterday') into expense drafts; saves nothing. Fill null " +
			"fields, ask about those in guessed, then create_expense(s).",
	},
	{
		name: "parse_receipt_images", title: "Read receipt photos into drafts", method: "POST",
		path: "/api/v1/expenses/ai/parse-images", hints: parses, runsAI: true,
		description: "Read 1 to 5 receipt photos (base64 PNG, JPEG or WebP; at most about 750 KB in all) into expense " +
			"drafts; saves nothing.",
	},
	{
		name: "preview_import", title: "Preview a bank file import", method: "POST", path: "/api/v1/imports", hints: creates,
		fileAsText: "file",
		description: "Read a bank file (CSV, OFX, QIF, CAMT, MT940) for one account or card into a preview: rows " +
			"matched against the ledger (duplicates skip), categories suggested. Nothing is saved until commit_import.",
	},
	{
		name: "get_import", title: "Get an import batch", method: "GET", path: "/api/v1/imports/{id}", hints: reads,
		description: "One import batch by id: status, target and counts of rows.",
	},
	{
		name: "list_import_rows", title: "List an import's rows", method: "GET", path: "/api/v1/imports/{id}/rows", hints: reads,
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
	{
		name: "delete_import", title: "Delete an import preview", method: "DELETE", path: "/api/v1/imports/{id}", hints: voids,
		description: "Drop a preview and its rows (revert a committed one); the ledger is unchanged.",
	},

	// income:write
	{
		name: "create_income", title: "Record income", method: "POST", path: "/api/v1/income", hints: creates,
		description: "Record money received under an active income category's name; account_id also credits that account. " +
			"Each call adds one.",
	},
	{
		name: "update_income", title: "Update income", method: "PUT", path: "/api/v1/income/{id}", hints: rewrites,
		description: "Change income; only given fields change. The account credit follows: updated, moved, or voided when " +
			"account_id is null.",
	},
	{
		name: "delete_income", title: "Void income", method: "DELETE", path: "/api/v1/income/{id}", hints: voids,
		description: "Void income with its account credit; cannot be undone.",
	},

	// accounts:write
	{
		name: "create_account", title: "Add an account", method: "POST", path: "/api/v1/accounts", hints: creates,
		description: "Add an account (savings, checking, e_wallet, cash, other). opening_balance (signed, default 0) is " +
			"the balance before the first recorded line; no line is posted. Each call adds an account.",
	},
	{
		name: "update_account", title: "Update an account", method: "PUT", path: "/api/v1/accounts/{id}", hints: rewrites,
		description: "Change an active account; only given fields change. A new opening_balance moves the balance with no " +
			"line; to match the bank use adjust_account_balance.",
	},
	{
		name: "archive_account", title: "Archive an account", method: "PATCH", path: "/api/v1/accounts/{id}/archive", hints: updates,
		description: "Archive an active account: history stays, no new writes. unarchive_account undoes it.",
	},
	{
		name: "unarchive_account", title: "Unarchive an account", method: "PATCH", path: "/api/v1/accounts/{id}/unarchive", hints: updates,
		description: "Make an archived account active again: it is listed and takes writes.",
	},
	{
		name: "create_account_transaction", title: "Add an account transaction", method: "POST",
		path: "/api/v1/accounts/{id}/transactions", hints: creates,
		description: "Post a manual debit or credit on an account (id) that is neither spending nor income, such as a " +
			"transfer or bank interest. For spending use create_expense; for money received create_income.",
	},
	{
		name: "update_account_transaction", title: "Update an account transaction", method: "PUT",
		path: "/api/v1/accounts/{id}/transactions/{transactionId}", hints: rewrites,
		description: "Change a manual or adjustment line (id: the account's, transactionId: the line's). Other lines " +
			"change through their record.",
	},
	{
		name: "void_account_transaction", title: "Void an account transaction", method: "DELETE",
		path: "/api/v1/accounts/{id}/transactions/{transactionId}", hints: voids,
		description: "Void a manual or adjustment line (id: the account's, transactionId: the line's); it leaves the " +
			"balance. Other lines are voided through their record.",
	},
	{
		name: "adjust_account_balance", title: "Adjust an account's balance", method: "POST",
		path: "/api/v1/accounts/{id}/balance-adjustment", hints: reshapes,
		description: "Set an account's balance to target_balance by posting one adjustment line for the difference. " + retryWithKey,
	},

	// credit_cards:write
	{
		name: "create_credit_card", title: "Add a credit card", method: "POST", path: "/api/v1/credit-cards", hints: creates,
		description: "Add a credit card. Days are 1 to 31 (later ones fall on the month's end); statements start from " +
			"cycle_start_date (default today). It starts owing nothing.",
	},
	{
		name: "update_credit_card", title: "Update a credit card", method: "PUT", path: "/api/v1/credit-cards/{id}", hints: updates,
		description: "Change an active card; only given fields change; null clears bank, last_four and notes, and resets " +
			"cycle_start_date to today. New days apply to later statements.",
	},
	{
		name: "archive_credit_card", title: "Archive a credit card", method: "PATCH", path: "/api/v1/credit-cards/{id}/archive", hints: updates,
		description: "Archive an active card: no new charges; its statements can still be paid. unarchive_credit_card " +
			"undoes it.",
	},
	{
		name: "unarchive_credit_card", title: "Unarchive a credit card", method: "PATCH", path: "/api/v1/credit-cards/{id}/unarchive",
		hints: updates, description: "Make an archived card active again: it is listed and takes charges.",
	},
	{
		name: "create_credit_card_transaction", title: "Record a card transaction", method: "POST",
		path: "/api/v1/credit-cards/transactions", hints: creates,
		description: "Record an unbilled purchase, fee, interest or refund on an active card. A purchase also records its " +
			"expense: do not also call create_expense. Purchases and refunds need an expense category; fees and " +
			"interest none.",
	},
	// Installment plans: their two reads (finance:read) sit with their two writes.
	{
		name: "list_installment_plans", title: "List installment plans", method: "GET",
		path: "/api/v1/credit-cards/installment-plans", hints: reads,
		description: "Card purchases converted to monthly installments, newest first, with their progress. Dates filter " +
			"the first installment.",
	},
	{
		name: "get_installment_plan", title: "Get an installment plan", method: "GET",
		path: "/api/v1/credit-cards/installment-plans/{id}", hints: reads,
		description: "One installment plan by id with its rows and their status.",
	},
	{
		name: "convert_transaction_to_installment", title: "Convert a card purchase to installments", method: "POST",
		path: "/api/v1/credit-cards/transactions/{id}/convert-to-installment", hints: reshapes,
		description: "Convert an unbilled card purchase (id: the purchase's) into monthly installments. add_on takes " +
			"interest_rate (monthly percent, 0.75 = 0.75%) or the bank's monthly_amount. Interest counts as card " +
			"fees.",
	},
	{
		name: "cancel_installment_plan", title: "Cancel an installment plan", method: "POST",
		path: "/api/v1/credit-cards/installment-plans/{id}/cancel", hints: voids,
		description: "Cancel an active installment plan; cannot be undone. Unbilled rows are voided; if some rows were " +
			"billed, one pre-termination row today bills the principal left, else the purchase returns to " +
			"unbilled.",
	},
	{
		name: "update_credit_card_transaction", title: "Update a card transaction", method: "PUT",
		path: "/api/v1/credit-cards/transactions/{id}", hints: rewrites,
		description: "Change a card transaction; only given fields change. Card, amount and date only while unbilled; " +
			"installment rows change through their plan.",
	},
	{
		name: "update_credit_card_soa", title: "Update a card statement", method: "PUT", path: "/api/v1/credit-cards/soa/{id}", hints: updates,
		description: "Change a statement's due_date, minimum_due (null: computed) or notes. Its balance is the sum of its " +
			"lines: use add_soa_transaction.",
	},
	{
		name: "record_credit_card_soa_payment", title: "Pay a card statement", method: "POST",
		path: "/api/v1/credit-cards/soa/{id}/payments", hints: reshapes,
		description: "Pay a statement (id) from an active account, at most its remaining; debits the account, not " +
			"spending. Only void_credit_card_soa undoes it. " + retryWithKey,
	},
	{
		name: "add_soa_transaction", title: "Add a line to a card statement", method: "POST",
		path: "/api/v1/credit-cards/soa/{id}/transactions", hints: creates,
		description: "Add a fee, interest or refund line to a statement to match the bank's; a refund names the returned " +
			"purchase's category. Each call adds a line.",
	},
	{
		name: "link_transaction_to_soa", title: "Link transactions to a card statement", method: "POST",
		path: "/api/v1/credit-cards/soa/{id}/transactions/link", hints: rewrites,
		description: "Put unbilled rows of the statement's card, dated on or before the statement date, on the statement, " +
			"all or none.",
	},
	{
		name: "update_soa_transaction", title: "Update a card statement line", method: "PUT",
		path: "/api/v1/credit-cards/soa/{id}/transactions/{transactionId}", hints: rewrites,
		description: "Change a statement row (id: the statement's, transactionId: the row's): its own line's type, amount, " +
			"date, description; a linked purchase's description only.",
	},
	{
		name: "delete_soa_transaction", title: "Remove a line from a card statement", method: "DELETE",
		path: "/api/v1/credit-cards/soa/{id}/transactions/{transactionId}", hints: voids,
		description: "Remove a row (transactionId) from a statement (id): its own line is voided; a linked row goes back " +
			"to unbilled for the next statement.",
	},
	{
		name: "void_credit_card_soa", title: "Void (reset) a card statement", method: "POST",
		path: "/api/v1/credit-cards/soa/{id}/void", hints: voids,
		description: "Reset a statement: its payments with their account debits and its own lines are voided, its rows " +
			"released and a fresh statement generated (replaced_by_id). The only undo of a wrong payment.",
	},

	// Bills: their reads (finance:read) sit with their writes (bills:write).
	{
		name: "list_bills", title: "List bills", method: "GET", path: "/api/v1/bills", hints: reads,
		description: "Bills, one per due date of each template, soonest first (made through next month; a later dateTo " +
			"reaches a year ahead). status open = unpaid or partially paid; dates filter the due date.",
	},
	{
		name: "get_bill", title: "Get a bill", method: "GET", path: "/api/v1/bills/{id}", hints: reads,
		description: "One bill by id with amount, paid_total, remaining and status.",
	},
	{
		name: "get_bills_summary", title: "Bills summary for a month", method: "GET", path: "/api/v1/bills/summary", hints: reads,
		description: "A month's bills (month=YYYY-MM, default this month): count, due, paid, remaining, by status, due " +
			"within 7 days, the next 5 open, and overdue ones of any month.",
	},
	{
		name: "get_bill_form_options", title: "Bill form choices", method: "GET", path: "/api/v1/bills/form-options", hints: reads,
		description: "What bill writes can name: expense categories, active accounts and cards with ids, payment methods, " +
			"frequencies, statuses and the templates.",
	},
	{
		name: "list_bill_templates", title: "List bill templates", method: "GET", path: "/api/v1/bills/templates", hints: reads,
		description: "Recurring bill templates (active or paused); category is a name.",
	},
	{
		name: "get_bill_template", title: "Get a bill template", method: "GET", path: "/api/v1/bills/templates/{id}", hints: reads,
		description: "One recurring bill template by id; a deleted one is not found.",
	},
	{
		name: "list_bill_payments", title: "List a bill's payments", method: "GET", path: "/api/v1/bills/{id}/payments", hints: reads,
		description: "One bill's payments, newest first (id: the bill's); status=voided for deleted ones.",
	},
	{
		name: "create_bill_template", title: "Create a recurring bill", method: "POST", path: "/api/v1/bills/templates", hints: creates,
		description: "Create a recurring bill. start_date at most 366 days back. Monthly and longer frequencies fall on " +
			"due_day (default the start date's day; 31 = month end); weekly and biweekly take none. Default " +
			"payment fields apply when a payment names none.",
	},
	{
		name: "update_bill_template", title: "Update, pause or resume a recurring bill", method: "PUT",
		path: "/api/v1/bills/templates/{id}", hints: rewrites,
		description: "Change a recurring bill; only given fields change. Its untouched future bills are made again from " +
			"today (paid or edited ones stay). status=paused stops new bills; active resumes.",
	},
	{
		name: "delete_bill_template", title: "Delete a recurring bill", method: "DELETE", path: "/api/v1/bills/templates/{id}", hints: voids,
		description: "Remove a recurring bill and its untouched future bills; cannot be undone. Past, paid or edited bills " +
			"stay. To stop it for a while, pause it.",
	},
	{
		name: "update_bill_instance", title: "Update one bill", method: "PUT", path: "/api/v1/bills/{id}", hints: rewrites,
		description: "Change one bill's amount (at least what is paid), due_date or notes; it keeps them when its template " +
			"changes.",
	},
	{
		name: "update_bill_status", title: "Mark a bill paid, unpaid or skipped", method: "POST", path: "/api/v1/bills/{id}/status", hints: updates,
		description: "Set a bill's status by hand. paid moves NO money: if the user paid, use record_bill_payment. " +
			"skipped: unpaid with no payments. unpaid undoes either. Refused for bills paid through payments.",
	},
	{
		name: "record_bill_payment", title: "Pay a bill", method: "POST", path: "/api/v1/bills/{id}/payments", hints: reshapes,
		description: "Pay a bill (id), at most its remaining. Records the expense (do not also create_expense) and debits " +
			"the account or charges the card; method, account and card default to the template's. " + retryWithKey,
	},
	{
		name: "delete_bill_payment", title: "Delete a bill payment", method: "DELETE", path: "/api/v1/bills/payments/{paymentId}", hints: voids,
		description: "Undo a bill payment: it and its expense are voided, with the account debit or card charge. Refused " +
			"once the charge is on a statement.",
	},

	// settings:write
	{
		name: "update_budget_thresholds", title: "Replace the budget thresholds", method: "PUT",
		path: "/api/v1/user-settings/budget-thresholds", hints: replaces,
		description: "Replace the WHOLE set of monthly budget limits: categories left out lose theirs, [] removes all. " +
			"Read get_budget_thresholds and send the full list. warning_percent defaults to the app setting.",
	},
	{
		name: "update_app_settings", title: "Change app settings", method: "PUT", path: "/api/v1/user-settings/app", hints: updates,
		description: "Change app settings; fields left out stay, null restores a default. currency is a label only; " +
			"timezone (IANA) moves today.",
	},
	{
		name: "create_category", title: "Create a category", method: "POST", path: "/api/v1/categories", hints: creates,
		description: "Create an expense or income category; names are unique per kind among active ones, " +
			"case-insensitively.",
	},
	{
		name: "update_category", title: "Rename or recolor a category", method: "PUT", path: "/api/v1/categories/{id}", hints: updates,
		description: "Rename, recolor or change the icon of a category; records follow. System categories keep their " +
			"names.",
	},
	{
		name: "archive_category", title: "Archive a category", method: "DELETE", path: "/api/v1/categories/{id}", hints: voids,
		description: "Archive a category and drop its budget threshold; records keep it, new writes cannot name it.",
	},

	// Loans: their reads (finance:read) sit with their write.
	{
		name: "list_loans", title: "List loans", method: "GET", path: "/api/v1/loans", hints: reads,
		description: "The user's loans, newest first, with terms and figures (paid, remaining, next due). Dates filter the " +
			"start date.",
	},
	{
		name: "get_loan", title: "Get a loan", method: "GET", path: "/api/v1/loans/{id}", hints: reads,
		description: "One loan by id with its figures and every monthly instance with its payments.",
	},
	{
		name: "list_loan_instances", title: "List a loan's instances", method: "GET", path: "/api/v1/loans/{id}/instances",
		hints: reads,
		description: "One loan's monthly instances (id: the loan's). Dates filter the due date. Gives the instanceId for " +
			"record_loan_payment.",
	},
	{
		name: "get_current_month_loan_dues", title: "Get this month's loan dues", method: "GET",
		path: "/api/v1/loans/current-month-dues", hints: reads,
		description: "Loan instances due this month and those overdue from earlier, across active loans, with a summary. " +
			"Gives the instanceId for record_loan_payment.",
	},
	{
		name: "record_loan_payment", title: "Pay a loan instance", method: "POST",
		path: "/api/v1/loans/instances/{instanceId}/payments", hints: reshapes,
		description: "Pay one loan instance (instanceId, not the loan's id), at most its remaining; account_id debits an " +
			"account, else cash. Interest is paid first and only it is spending. Permanent: cannot be undone. " + retryWithKey,
	},
	{
		name: "create_loan", title: "Add a loan", method: "POST", path: "/api/v1/loans", hints: creates,
		description: "Add a loan and its monthly schedule; no money moves. interest_rate is a percent per rate_period. " +
			"Each call adds a loan.",
	},
	{
		name: "update_loan", title: "Change a loan", method: "PATCH", path: "/api/v1/loans/{id}", hints: rewrites,
		description: "Change a loan's name, lender or notes, or status: cancelled cancels it, active reactivates it. Terms " +
			"never change.",
	},
	{
		name: "cancel_loan", title: "Cancel a loan", method: "PATCH", path: "/api/v1/loans/{id}", hints: voids,
		body: `{"status":"cancelled"}`,
		description: "Cancel an active loan: its open instances are cancelled, payments stay. update_loan with status " +
			"active undoes it.",
	},
	{
		name: "delete_loan", title: "Delete a loan", method: "DELETE", path: "/api/v1/loans/{id}", hints: voids,
		description: "Erase a never-paid loan and its schedule (else cancel_loan).",
	},

	// The assistant (finance:read: each write it proposes is checked
	// against the caller's scopes when confirmed).
	{
		name: "assistant_chat", title: "Ask the assistant", method: "POST", path: "/api/v1/ai-assistant/chat", hints: creates,
		runsAI: true,
		description: "Send a message to the app's assistant (conversation_id continues one). It answers from the user's " +
			"data and turns writes into proposals; assistant_confirm runs one.",
	},
	{
		name: "assistant_confirm", title: "Confirm or reject a proposal", method: "POST", path: "/api/v1/ai-assistant/confirm",
		hints: voids, runsAI: true,
		description: "Confirm or reject an assistant_chat proposal. confirm runs its write once with that route's scope; a " +
			"repeat returns the first result.",
	},
}
