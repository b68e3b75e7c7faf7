package mcpserver

// The tool table. Each row names a REST route of the contract (method and
// path, as written in embed/openapi.yaml) and adds what a model needs to use
// it well: a title, a description (what it does, when to use it, its side
// effects and what to read first) and the behaviour hints. The input schema
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
// move money twice: balance adjustments now, payments as their tools are
// added. It is the tool's form of safety rule 3.
const retryWithKey = "Send an idempotency_key; after a lost reply read first, and retry only with the same key."

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
	// whole marks a list tool whose items are answered whole: what it is
	// for is nested (an activity entry's actor) or a timestamp.
	whole bool
}

var toolTable = []toolSpec{
	// finance:read (a domain's write scope also reads that domain)
	{
		name: "get_dashboard_summary", title: "Dashboard of a month", method: "GET", path: "/api/v1/dashboard", hints: reads,
		description: "Get one month at a glance (month=YYYY-MM, default the current month): income, spending and net; " +
			"active accounts and their total balance; card balances, utilization, open and overdue statements and the " +
			"statement to pay next; bills due, paid and overdue with the next 5; loan dues and overdue instances; " +
			"installment commitments; budget states; the top 5 spending categories; the latest 5 expenses and income. " +
			"Spending counts expenses (split ones by their parts), card fees and interest, installment interest and loan " +
			"interest paid, less card refunds; card and loan payments are not spending. Start here for \"how am I doing\"; " +
			"use get_report for a range, a trend or a breakdown.",
	},
	{
		name: "get_report", title: "Run a report", method: "GET", path: "/api/v1/reports/{report}", hints: reads,
		description: "Run one report (report is its name). Every report takes dateFrom/dateTo; beyond them each takes only " +
			"its own parameters, and others are refused. " +
			"dateFrom/dateTo are YYYY-MM-DD, default the current month, at most 5 years apart. granularity is day (at " +
			"most 366 days), week (weeks start on the user's week_start) or month (default); buckets cover the whole range, " +
			"empty ones with 0. The reports: " +
			"spending-by-category (dateFrom, dateTo, payment_method, cardId): spending per category with count and percent, largest first; " +
			"spending-trend (dateFrom, dateTo, granularity, category): spending per bucket, total and average; " +
			"payment-methods (dateFrom, dateTo): expenses per payment method; " +
			"income-vs-expenses (dateFrom, dateTo, granularity): income, spending and net per bucket, with the savings rate; " +
			"cash-flow (dateFrom, dateTo, granularity): money in (income) and out (Cash and Account Debit expenses, card " +
			"statement payments, loan payments) per bucket; " +
			"budget-vs-actual (month=YYYY-MM, else the month holding dateTo): each budget threshold against the month's " +
			"spending, and unbudgeted spending; " +
			"net-worth (no parameters beyond the range, which changes nothing): accounts less card balances and loan " +
			"principal as of today (as_of); " +
			"credit-card-utilization (cardId; the range changes nothing): each active card's balance, available credit and " +
			"utilization as of today (as_of); " +
			"bills-overview (dateFrom, dateTo on due dates): bills due, paid, remaining, by status and category, overdue; " +
			"loans-overview (dateFrom, dateTo): the loans running in the range, and active loans still owed from before it, " +
			"with what is paid and remains. " +
			"Spending is counted as in get_dashboard_summary, so every report agrees with it and with get_expense_summary.",
	},
	{
		name: "list_expenses", title: "List expenses", method: "GET", path: "/api/v1/expenses", hints: reads,
		description: "List the user's expenses, newest first, one page at a time (page, limit up to 100). " +
			"Narrow with dateFrom/dateTo (YYYY-MM-DD, inclusive), category (a name), payment_method, cardId, accountId " +
			"or search (description and notes); status=voided lists voided expenses instead of active ones. " +
			"Use it to find an expense's id before get_expense, update_expense, split_expense or delete_expense. " +
			"For totals, get_expense_summary is cheaper than paging. Returns {items, pagination}.",
	},
	{
		name: "get_expense", title: "Get an expense", method: "GET", path: "/api/v1/expenses/{id}", hints: reads,
		description: "Get one expense by id: amount, date, category, payment method, the account or card it was paid " +
			"with, its split parts and the status of its card transaction. Voided expenses are returned too. " +
			"Find the id with list_expenses. Read this before update_expense, split_expense or delete_expense.",
	},
	{
		name: "get_expense_form_options", title: "Expense form choices", method: "GET", path: "/api/v1/expenses/form-options", hints: reads,
		description: "List what a new expense can reference: the payment methods (Cash, Account Debit, Credit Card), " +
			"the active expense categories, the active accounts with balances and the active credit cards with available " +
			"credit, each with its id and name. Call it before create_expense or update_expense to pick a valid category " +
			"name, account_id or credit_card_id.",
	},
	{
		name: "get_expense_summary", title: "Spending summary", method: "GET", path: "/api/v1/expenses/summary", hints: reads,
		description: "Summarize spending from dateFrom to dateTo (each defaults to the first or last day of the current month): " +
			"total, count and daily average, totals by category and by payment method, card fees and interest, loan interest " +
			"and card refunds, and the change against the previous period. The previous period is the previous calendar " +
			"month when dateFrom..dateTo is exactly one whole calendar month (Nov 1-30 is compared with Oct 1-31); " +
			"otherwise it is the range of the same length just before dateFrom. Use it to answer 'how much did I spend " +
			"on ...' instead of adding up list_expenses.",
	},
	{
		name: "list_income", title: "List income", method: "GET", path: "/api/v1/income", hints: reads,
		description: "List the user's income, newest first, one page at a time. Narrow with dateFrom/dateTo, category " +
			"(a name), accountId or search; status=voided lists voided income instead of active income. Use it to find an " +
			"income id before get_income, update_income or delete_income. Returns {items, pagination}.",
	},
	{
		name: "get_income", title: "Get income", method: "GET", path: "/api/v1/income/{id}", hints: reads,
		description: "Get one income record by id: amount, date, category, the account it was credited to and its status " +
			"(voided records are returned too). Find the id with list_income. Read this before update_income or delete_income.",
	},
	{
		name: "list_accounts", title: "List accounts", method: "GET", path: "/api/v1/accounts", hints: reads,
		description: "List the user's bank-type accounts (savings, checking, e-wallets, cash) with their current balances; " +
			"active accounts by default, status=archived or status=all for the others. Use it to find an account_id before " +
			"create_expense with Account Debit, create_income, create_account_transaction, adjust_account_balance or " +
			"update_account, and before create_account to see what exists. Only active accounts accept new writes.",
	},
	{
		name: "get_account", title: "Get an account", method: "GET", path: "/api/v1/accounts/{id}", hints: reads,
		description: "Get one account by id: name, type, institution, last 4 digits, notes, status, opening_balance and " +
			"current_balance (opening_balance plus posted credits minus posted debits, of any date); archived accounts are " +
			"returned too. Find the id with list_accounts. Read this before update_account, and to check a balance after a write.",
	},
	{
		name: "list_account_transactions", title: "List account transactions", method: "GET", path: "/api/v1/accounts/transactions", hints: reads,
		description: "List the ledger lines (debits are money out, credits money in) of the user's accounts, newest first; " +
			"pass accountId for one account. Narrow with dateFrom/dateTo, type, source (manual, adjustment, expense, income, " +
			"soa_payment, loan_payment) or search; status=voided lists voided lines. Only manual and adjustment lines " +
			"(is_editable) can be changed with update_account_transaction; the others change through their expense or income.",
	},
	{
		name: "list_credit_cards", title: "List credit cards", method: "GET", path: "/api/v1/credit-cards", hints: reads,
		description: "List the user's credit cards with credit limit, outstanding balance, available credit, utilization, " +
			"unbilled total and next statement and due dates; active cards by default. Use it to find a credit_card_id " +
			"before create_expense with Credit Card, create_credit_card_transaction or update_credit_card, and before " +
			"create_credit_card to see what exists. Only active cards take new charges.",
	},
	{
		name: "get_credit_card_metrics", title: "Credit card metrics", method: "GET", path: "/api/v1/credit-cards/metrics", hints: reads,
		description: "Get each credit card's standing as of today, and the totals across cards: credit limit, outstanding " +
			"balance, available credit, utilization percent and level (low, moderate, high, critical), unbilled total, what " +
			"remains on open statements, the minimum due not yet paid, overdue statements, active installment plans, the " +
			"installments billed this month, the next statement date, and next_due (the open statement to pay first, with " +
			"its soa_id, due date and remaining amount). Active cards only unless includeArchived=true; cardId narrows to " +
			"one card. Use it to answer 'how much do I owe', 'what is due next' or 'how much credit is left' in one call.",
	},
	{
		name: "get_credit_card", title: "Get a credit card", method: "GET", path: "/api/v1/credit-cards/{id}", hints: reads,
		description: "Get one credit card by id: credit limit, statement and due days, cycle start date, minimum due rules, " +
			"notes and status, with its figures (outstanding balance, available credit, utilization, unbilled total, next " +
			"statement and due dates); archived cards are returned too. Find the id with list_credit_cards. Read this before " +
			"update_credit_card.",
	},
	{
		name: "list_unbilled_transactions", title: "List a card's unbilled transactions", method: "GET",
		path: "/api/v1/credit-cards/{id}/unbilled-transactions", hints: reads,
		description: "List one card's transactions that are not yet on a statement (purchases, fees, interest, refunds, " +
			"future-dated ones included). The id is the card's, from list_credit_cards. Unbilled transactions are the ones " +
			"whose amount, date and card can still change with update_credit_card_transaction.",
	},
	{
		name: "list_credit_card_soas", title: "List card statements", method: "GET", path: "/api/v1/credit-cards/soa", hints: reads,
		description: "List the user's credit card statements of account (SOA), newest statement date first. Statements " +
			"are generated from each card's cycle when they fall due; there is nothing to create. Filter with cardId, " +
			"status (unpaid, partially_paid, paid, voided, open = unpaid or partially paid, overdue = open and past due) " +
			"and dateFrom/dateTo on the statement date. Each item has statement_balance, minimum_due, paid_total, remaining, " +
			"due_date, days_until_due and is_overdue. Use it to answer 'what do I owe and when' and to find the id for " +
			"get_credit_card_soa or record_credit_card_soa_payment.",
	},
	{
		name: "get_credit_card_soa", title: "Get a card statement", method: "GET", path: "/api/v1/credit-cards/soa/{id}", hints: reads,
		description: "Get one statement (id from list_credit_card_soas) with all its transactions, oldest first: the " +
			"purchases and other rows it billed and its own fee, interest and refund lines (is_soa_line). Read it before " +
			"paying, editing, linking or removing lines, to check the balance against the bank's statement.",
	},
	{
		name: "list_categories", title: "List categories", method: "GET", path: "/api/v1/categories", hints: reads,
		description: "List the user's expense and income categories (kind=expense or kind=income), active ones by default. " +
			"Expenses, income and card purchases name their category by name, so read this to use an existing name " +
			"before writing; create_category adds a missing one.",
	},
	{
		name: "get_app_settings", title: "App settings", method: "GET", path: "/api/v1/user-settings/app", hints: reads,
		description: "Get the user's app settings: currency (the label of every amount; nothing is converted), timezone " +
			"(it defines today and the current month for every date default), date_format and week_start (display " +
			"hints), default_payment_method (what a new expense usually uses), budget_warning_percent (the default " +
			"warning level of new budget thresholds) and due_soon_days (how many days ahead counts as due soon). Read it " +
			"to label amounts with the right currency and to know which day 'today' is for the user.",
	},
	{
		name: "get_budget_thresholds", title: "Budget thresholds", method: "GET", path: "/api/v1/user-settings/budget-thresholds",
		hints: reads,
		description: "List the user's monthly budget limits per expense category, each with the month's spending in that " +
			"category (expenses and split parts, card fees and interest, installment and loan interest, minus card " +
			"refunds), what remains (negative when over), percent_used and state: ok, warning (spent reached " +
			"warning_percent of the limit) or exceeded. month=YYYY-MM picks another month (default: the current one). " +
			"Use it to answer 'am I within budget' and always before update_budget_thresholds.",
	},
	{
		name: "list_activity", title: "Who did what", method: "GET", path: "/api/v1/activity", hints: reads, whole: true,
		description: "List the user's writes, newest first: record kind and id, action, what changed, and who made it " +
			"(web, app, api_key, oauth_client, telegram, assistant or system, with its name then; source agent for MCP). " +
			"Filter by actor (a kind), actorId, kind, source, dateFrom/dateTo. Use it to check what was already recorded.",
	},

	// expenses:write
	{
		name: "create_expense", title: "Record an expense", method: "POST", path: "/api/v1/expenses", hints: creates,
		description: "Record money the user spent. payment_method decides the side effect, all in one transaction: Cash " +
			"records only the expense; Account Debit also debits account_id (an active account); Credit Card also adds an " +
			"unbilled purchase on credit_card_id (an active card). category is the name of an active expense category. " +
			"Read get_expense_form_options first for valid names and ids, and confirm amount, date, category and payment " +
			"method with the user. Each call records a new expense: after a lost reply, check list_expenses before retrying.",
	},
	{
		name: "update_expense", title: "Update an expense", method: "PUT", path: "/api/v1/expenses/{id}", hints: rewrites,
		description: "Change an expense; only the fields given change. The linked account debit or card purchase follows " +
			"(a changed method or account/card voids the old line and creates a new one). amount, date, payment_method, " +
			"account_id and credit_card_id can change only while the card transaction is unbilled and the expense is not a " +
			"bill payment; naming a category on a split expense removes the split. Read get_expense first and confirm the " +
			"change with the user.",
	},
	{
		name: "delete_expense", title: "Void an expense", method: "DELETE", path: "/api/v1/expenses/{id}", hints: voids,
		description: "Void an expense together with its account debit or card purchase; it stays readable with status " +
			"voided, and this cannot be undone. An expense whose card transaction is billed or converted to installments, " +
			"or that records a bill payment, cannot be voided. Read get_expense first and ask the user to confirm.",
	},
	{
		name: "split_expense", title: "Split an expense across categories", method: "POST", path: "/api/v1/expenses/{id}/split", hints: reshapes,
		description: "Split an expense across categories: parts is 2 to 20 items {amount, category, description?} whose " +
			"amounts add up exactly to the expense's amount. The parts replace any earlier split, and the expense's own " +
			"category becomes null while it is split; the account debit or card purchase does not change. Read get_expense " +
			"first and confirm the parts with the user.",
	},
	{
		name: "create_expenses", title: "Record many expenses", method: "POST", path: "/api/v1/expenses/bulk", hints: creates,
		description: "Record 1 to 100 expenses at once (items: each a create_expense body), all or none: every problem " +
			"comes back in fields as items[i].<field> and nothing is written. Replies with the expenses in input order.",
	},
	{
		name: "parse_expense_text", title: "Read text into expense drafts", method: "POST", path: "/api/v1/expenses/ai/parse-text",
		hints: parses, runsAI: true,
		description: "Turn natural_text (at most 2,000 characters, e.g. 'lunch 250 cash yesterday, grab 180 card') into " +
			"expense drafts. Saves nothing: fill each draft's null fields, ask the user about those in guessed, then " +
			"send them to create_expense or create_expenses.",
	},
	{
		name: "parse_receipt_images", title: "Read receipt photos into drafts", method: "POST",
		path: "/api/v1/expenses/ai/parse-images", hints: parses, runsAI: true,
		description: "Read 1 to 5 receipt photos (images: base64 PNG, JPEG or WebP; a call is at most 1 MiB, so about " +
			"750 KB of images) into one expense draft each: total, date, merchant, category. Saves nothing; confirm, then " +
			"create_expense.",
	},

	// income:write
	{
		name: "create_income", title: "Record income", method: "POST", path: "/api/v1/income", hints: creates,
		description: "Record money the user received. category is the name of an active income category (list_categories " +
			"with kind=income). With account_id (an active account, from list_accounts) the amount is also credited to that " +
			"account in the same transaction; without it the money was received outside the tracked accounts. Confirm with " +
			"the user first; each call records new income, so after a lost reply check list_income before retrying.",
	},
	{
		name: "update_income", title: "Update income", method: "PUT", path: "/api/v1/income/{id}", hints: rewrites,
		description: "Change an income record; only the fields given change. The account credit follows: it is updated in " +
			"place, moved to a new account_id, or voided when account_id is null. Read get_income first and confirm the " +
			"change with the user.",
	},
	{
		name: "delete_income", title: "Void income", method: "DELETE", path: "/api/v1/income/{id}", hints: voids,
		description: "Void an income record together with its account credit; it stays readable with status voided, and " +
			"this cannot be undone. Read get_income first and ask the user to confirm.",
	},

	// accounts:write
	{
		name: "create_account", title: "Add an account", method: "POST", path: "/api/v1/accounts", hints: creates,
		description: "Add a bank-type account the user holds (type savings, checking, e_wallet, cash or other), so that " +
			"expenses can be paid from it (Account Debit) and income credited to it. name must be unique among active " +
			"accounts, case-insensitively: read list_accounts first and use or update an existing account rather than add " +
			"a twin. opening_balance (signed, default 0) is the balance before the first transaction the ledger records, " +
			"for example the bank app's balance on the day tracking starts; it is kept on the account, not posted as a " +
			"transaction, and current_balance starts from it. Confirm the details with the user; each call adds a new " +
			"account, so after a lost reply check list_accounts before retrying.",
	},
	{
		name: "update_account", title: "Update an account", method: "PUT", path: "/api/v1/accounts/{id}", hints: rewrites,
		description: "Change an account's name, type, institution, account_number_last4, opening_balance or notes; only " +
			"the fields given change, and null clears institution, account_number_last4 and notes (and sets opening_balance " +
			"to 0). Its id, status and transactions do not change here, and an archived account cannot be changed. A new " +
			"opening_balance moves current_balance by the same difference without any transaction; to make today's " +
			"balance match the bank, use adjust_account_balance instead, which records the difference. Read get_account " +
			"first and confirm the change with the user.",
	},
	{
		name: "archive_account", title: "Archive an account", method: "PATCH", path: "/api/v1/accounts/{id}/archive", hints: updates,
		description: "Archive an active account, whatever its balance; its history stays, it leaves lists and takes no new " +
			"writes. unarchive_account undoes it.",
	},
	{
		name: "unarchive_account", title: "Unarchive an account", method: "PATCH", path: "/api/v1/accounts/{id}/unarchive", hints: updates,
		description: "Make an archived account active again: it is listed and takes writes.",
	},
	{
		name: "create_account_transaction", title: "Add an account transaction", method: "POST",
		path: "/api/v1/accounts/{id}/transactions", hints: creates,
		description: "Post a manual line on an account (id from list_accounts): a debit (money out) or credit (money in) " +
			"that is neither spending nor income, such as a transfer, a withdrawal or bank interest. It changes the balance. " +
			"For spending use create_expense with Account Debit, and for money received create_income, so reports count it. " +
			"Confirm with the user; each call posts a new line.",
	},
	{
		name: "update_account_transaction", title: "Update an account transaction", method: "PUT",
		path: "/api/v1/accounts/{id}/transactions/{transactionId}", hints: rewrites,
		description: "Change a manual or adjustment line of an active account (type, amount, date, description); id is the " +
			"account's and transactionId the line's, both from list_account_transactions. Lines created by an expense, " +
			"income or payment change only through that record. Confirm the change with the user.",
	},
	{
		name: "void_account_transaction", title: "Void an account transaction", method: "DELETE",
		path: "/api/v1/accounts/{id}/transactions/{transactionId}", hints: voids,
		description: "Void a manual or adjustment line (is_editable) of an account: it stays readable as voided and leaves " +
			"the balance. Lines of an expense, income or payment are voided through their own record. Confirm with the user.",
	},
	{
		name: "adjust_account_balance", title: "Adjust an account's balance", method: "POST",
		path: "/api/v1/accounts/{id}/balance-adjustment", hints: reshapes,
		description: "Bring an account's balance to target_balance (for example to match the bank's app) by posting one " +
			"adjustment line for the difference; returns the line and the balances before and after. Read list_accounts " +
			"first and confirm the target with the user. " + retryWithKey,
	},

	// credit_cards:write
	{
		name: "create_credit_card", title: "Add a credit card", method: "POST", path: "/api/v1/credit-cards", hints: creates,
		description: "Add a credit card the user holds, so that charges can be recorded on it (create_expense with Credit " +
			"Card, create_credit_card_transaction). Required: name (unique among active cards, case-insensitively: read " +
			"list_credit_cards first), credit_limit (above 0), statement_day and due_day (the cut-off and payment due days, " +
			"1 to 31; later days fall on the month's end). Optional: bank, last_four, cycle_start_date (default today, at " +
			"most 5 years back; statements are generated for statement dates on or after it), minimum_due_percent (default " +
			"3) and minimum_due_floor (default 500.00). A new card owes nothing: there is no opening balance. Confirm the " +
			"details with the user; each call adds a new card, so after a lost reply check list_credit_cards before retrying.",
	},
	{
		name: "update_credit_card", title: "Update a credit card", method: "PUT", path: "/api/v1/credit-cards/{id}", hints: updates,
		description: "Change a card's name, bank, last_four, credit_limit, statement_day, due_day, cycle_start_date, " +
			"minimum_due_percent, minimum_due_floor or notes; only the fields given change. null clears bank, last_four and " +
			"notes, and resets cycle_start_date (today), minimum_due_percent (3) and minimum_due_floor (500.00). New " +
			"statement and due days apply to statements generated afterwards; its transactions and existing statements do " +
			"not change, and an archived card cannot be changed. Read get_credit_card first and confirm the change with the user.",
	},
	{
		name: "archive_credit_card", title: "Archive a credit card", method: "PATCH", path: "/api/v1/credit-cards/{id}/archive", hints: updates,
		description: "Archive an active card: it leaves lists and takes no new charges; its statements can still be paid. " +
			"unarchive_credit_card undoes it.",
	},
	{
		name: "unarchive_credit_card", title: "Unarchive a credit card", method: "PATCH", path: "/api/v1/credit-cards/{id}/unarchive",
		hints: updates, description: "Make an archived card active again: it is listed and takes charges.",
	},
	{
		name: "create_credit_card_transaction", title: "Record a card transaction", method: "POST",
		path: "/api/v1/credit-cards/transactions", hints: creates,
		description: "Record an unbilled purchase, fee, interest charge or refund on an active card (credit_card_id from " +
			"list_credit_cards). A purchase also records its expense (payment method Credit Card), so do not also call " +
			"create_expense for it; purchases and refunds need an expense category name, fees and interest take none. " +
			"Confirm with the user; each call records a new transaction.",
	},
	// Installment plans: their two reads (finance:read) sit with their two writes.
	{
		name: "list_installment_plans", title: "List installment plans", method: "GET",
		path: "/api/v1/credit-cards/installment-plans", hints: reads,
		description: "List the user's installment plans (card purchases converted into monthly installments), newest " +
			"first. Filter with status (active, completed or cancelled; every plan by default), cardId, dateFrom/dateTo " +
			"on the first installment date, or search on the description. Each plan has principal, months, " +
			"total_interest, total_payable and its progress: billed_count, remaining_count, remaining_principal, " +
			"remaining_payable and next_installment_date. Use it to answer 'what am I still paying in installments' and " +
			"to find a plan id for get_installment_plan or cancel_installment_plan.",
	},
	{
		name: "get_installment_plan", title: "Get an installment plan", method: "GET",
		path: "/api/v1/credit-cards/installment-plans/{id}", hints: reads,
		description: "Get one installment plan by id (from list_installment_plans), cancelled ones included, with " +
			"installments: its card rows by number, each with date, amount, principal_portion, interest_portion and " +
			"status (unbilled, billed or voided); on a plan cancelled after billing, the pre-termination row " +
			"(installment_number null) comes last. Read it before cancel_installment_plan to see what is already billed.",
	},
	{
		name: "convert_transaction_to_installment", title: "Convert a card purchase to installments", method: "POST",
		path: "/api/v1/credit-cards/transactions/{id}/convert-to-installment", hints: reshapes,
		description: "Convert an unbilled card purchase (id: the purchase's, from list_unbilled_transactions) into a " +
			"monthly installment plan. months (2 to 60) is required. interest_type is none (the default) or add_on; " +
			"with add_on give interest_rate (the monthly add-on percent, 0.75 for 0.75% a month) or the bank's quoted " +
			"monthly_amount, which every installment then bills exactly. first_installment_date defaults to the purchase " +
			"date and may not be earlier; description defaults to the purchase's. In one transaction the purchase " +
			"becomes converted (its expense stays, so the purchase still counts once as spending) and one unbilled row " +
			"per month is created; their interest counts as card fees and interest. Only an unbilled purchase on an " +
			"active card can be converted. Use the bank's terms and confirm them with the user; each call creates a new " +
			"plan, so after a lost reply check list_installment_plans before retrying.",
	},
	{
		name: "cancel_installment_plan", title: "Cancel an installment plan", method: "POST",
		path: "/api/v1/credit-cards/installment-plans/{id}/cancel", hints: voids,
		description: "Cancel an active installment plan (id from list_installment_plans). If no installment is billed " +
			"yet, every row is voided and the purchase returns to unbilled, to be billed in full by its statement. If " +
			"some are billed, they stay; the unbilled rows are voided with their interest, and one pre-termination row " +
			"dated today bills the principal they held. This cannot be undone, and completed or cancelled plans are " +
			"refused. Read get_installment_plan first and ask the user to confirm.",
	},
	{
		name: "update_credit_card_transaction", title: "Update a card transaction", method: "PUT",
		path: "/api/v1/credit-cards/transactions/{id}", hints: rewrites,
		description: "Change a card transaction; only the fields given change. credit_card_id, amount and date change only " +
			"while it is unbilled; description and category change in any state but voided; a purchase's expense is kept " +
			"in step. Installment rows change through their plan. Read list_unbilled_transactions first and confirm with the user.",
	},
	{
		name: "update_credit_card_soa", title: "Update a card statement", method: "PUT", path: "/api/v1/credit-cards/soa/{id}", hints: updates,
		description: "Change a statement's due_date (after its statement date), minimum_due (0 up to the balance; null " +
			"reverts to the computed minimum) or notes; only the fields given change. The balance cannot be set: it is the " +
			"sum of the statement's lines, so use add_soa_transaction for a fee, interest or refund the bank shows. Read " +
			"get_credit_card_soa first and confirm with the user.",
	},
	{
		name: "record_credit_card_soa_payment", title: "Pay a card statement", method: "POST",
		path: "/api/v1/credit-cards/soa/{id}/payments", hints: reshapes,
		description: "Record a payment on a statement from one of the user's active accounts (account_id from " +
			"list_accounts): amount (at most the statement's remaining), optional date (default today) and notes. It also " +
			"debits the account; it is not spending, since the charges counted when they were made. Returns the payment " +
			"and the statement after it. A payment cannot be deleted (only voiding the whole statement undoes it), so " +
			"read get_credit_card_soa and confirm the amount and account with the user first. " + retryWithKey,
	},
	{
		name: "add_soa_transaction", title: "Add a line to a card statement", method: "POST",
		path: "/api/v1/credit-cards/soa/{id}/transactions", hints: creates,
		description: "Add a fee, interest or refund line to a statement, already billed on it, to make its balance match " +
			"the bank's: type, amount, description, category (refunds only: the category of what was returned), optional " +
			"date (default and latest: the statement date). Returns the statement. Read get_credit_card_soa first and " +
			"confirm with the user; each call adds a line.",
	},
	{
		name: "link_transaction_to_soa", title: "Link transactions to a card statement", method: "POST",
		path: "/api/v1/credit-cards/soa/{id}/transactions/link", hints: rewrites,
		description: "Put unbilled transactions of the statement's card (transaction_ids, 1 to 100, from " +
			"list_unbilled_transactions) on the statement, all or none; each must be dated on or before the statement " +
			"date. Use it when the bank billed a late posting on this statement. Returns the statement. Confirm with the user.",
	},
	{
		name: "update_soa_transaction", title: "Update a card statement line", method: "PUT",
		path: "/api/v1/credit-cards/soa/{id}/transactions/{transactionId}", hints: rewrites,
		description: "Change a transaction on a statement: a statement line (is_soa_line) can change its type (fee, " +
			"interest, refund), amount, date and description; a linked purchase only its description. Returns the " +
			"statement. Read get_credit_card_soa first and confirm with the user.",
	},
	{
		name: "delete_soa_transaction", title: "Remove a line from a card statement", method: "DELETE",
		path: "/api/v1/credit-cards/soa/{id}/transactions/{transactionId}", hints: voids,
		description: "Remove a transaction from a statement: a statement line (is_soa_line) is voided; a linked " +
			"transaction goes back to unbilled and the next generated statement takes it (the way to move a charge to a " +
			"later statement). Returns the statement. Read get_credit_card_soa first and confirm with the user.",
	},
	{
		name: "void_credit_card_soa", title: "Void (reset) a card statement", method: "POST",
		path: "/api/v1/credit-cards/soa/{id}/void", hints: voids,
		description: "Reset a statement: its payments and their account debits and its own lines are voided, its linked " +
			"transactions are released, and a fresh statement for the same date is generated from them (replaced_by_id). " +
			"This is the only way to undo a wrong payment. Explain the effect to the user and get an explicit confirmation first.",
	},

	// Bills: their reads (finance:read) sit with their writes (bills:write).
	{
		name: "list_bills", title: "List bills", method: "GET", path: "/api/v1/bills", hints: reads,
		description: "List the user's bills: one instance per due date of each recurring bill template, soonest due first " +
			"(materialized through the end of next month; a later dateTo reaches up to a year ahead). Filter with status " +
			"(unpaid, partially_paid, paid, skipped, open = unpaid or partially paid, overdue = open and past due), " +
			"dateFrom/dateTo on the due date, category (a name), templateId, or search (name and notes). Each bill has " +
			"amount, paid_total, remaining, is_overdue, days_until_due and the template's default payment method. Use " +
			"status=open to find the id of a bill to pay before record_bill_payment, update_bill_status or update_bill_instance.",
	},
	{
		name: "get_bill", title: "Get a bill", method: "GET", path: "/api/v1/bills/{id}", hints: reads,
		description: "Get one bill instance by id (from list_bills): name, category, amount due, due date, status, " +
			"paid_total, remaining, whether it was marked paid by hand, and the default payment method its template " +
			"gives payments. Read it before record_bill_payment to check what remains.",
	},
	{
		name: "get_bills_summary", title: "Bills summary for a month", method: "GET", path: "/api/v1/bills/summary", hints: reads,
		description: "Summarize the bills due in a month (month=YYYY-MM, default the current one): how many, the total due " +
			"(skipped ones excluded), what was paid through payments, what remains on the open ones, counts and amounts by " +
			"status, the month's bills due within 7 days, the next 5 open ones, and the overdue bills of every month. Use it " +
			"to answer 'what bills do I still have to pay this month' without paging through list_bills.",
	},
	{
		name: "get_bill_form_options", title: "Bill form choices", method: "GET", path: "/api/v1/bills/form-options", hints: reads,
		description: "List what bill writes can reference: the active expense categories, active accounts and active " +
			"credit cards (ids and names), the payment methods, the template frequencies, the bill statuses and the user's " +
			"templates. Call it before create_bill_template or record_bill_payment to pick a valid category, account_id or " +
			"credit_card_id.",
	},
	{
		name: "list_bill_templates", title: "List bill templates", method: "GET", path: "/api/v1/bills/templates", hints: reads,
		description: "List the user's recurring bill templates by name: amount, category, frequency, start and end dates, " +
			"due day, default payment method and status (active or paused). Filter with status, category (a name) or " +
			"search (name and notes). Check it before create_bill_template to avoid a duplicate, and to find the id for " +
			"get_bill_template, update_bill_template or delete_bill_template.",
	},
	{
		name: "get_bill_template", title: "Get a bill template", method: "GET", path: "/api/v1/bills/templates/{id}", hints: reads,
		description: "Get one recurring bill template by id (from list_bill_templates): its amount, category, frequency, " +
			"start_date, due_day, end_date, default payment fields, notes and status. A removed template is not found. " +
			"Read it before update_bill_template.",
	},
	{
		name: "list_bill_payments", title: "List a bill's payments", method: "GET", path: "/api/v1/bills/{id}/payments", hints: reads,
		description: "List the payments of one bill (id from list_bills), newest first: amount, date, payment method, " +
			"account or card, and the expense each recorded. status=voided lists deleted payments instead. Use it to find " +
			"a payment id before delete_bill_payment.",
	},
	{
		name: "create_bill_template", title: "Create a recurring bill", method: "POST", path: "/api/v1/bills/templates", hints: creates,
		description: "Create a recurring bill: name, amount, category (an active expense category name), frequency " +
			"(weekly, biweekly, monthly, quarterly, semiannual or yearly) and start_date (at most 366 days back). Monthly " +
			"and longer bills fall on due_day (default: the start date's day; the 31st falls on the last day of shorter " +
			"months); weekly and biweekly ones every 7 or 14 days from start_date and take no due_day. Optional end_date, " +
			"notes, and default payment fields used when a payment names none (default_payment_method with " +
			"default_account_id for Account Debit or default_credit_card_id for Credit Card). Its bills appear at once in " +
			"list_bills. Check list_bill_templates first and confirm with the user; each call creates a new template.",
	},
	{
		name: "update_bill_template", title: "Update, pause or resume a recurring bill", method: "PUT",
		path: "/api/v1/bills/templates/{id}", hints: rewrites,
		description: "Change a recurring bill; only the fields given change. The template's future bills that are still " +
			"untouched (unpaid, no payments, never edited) are deleted and, while it is active, created again from the new " +
			"terms from today on; past, paid or edited bills keep their own amounts. status=paused stops new bills and " +
			"removes the untouched future ones; status=active resumes from today. Read get_bill_template first and confirm " +
			"with the user.",
	},
	{
		name: "delete_bill_template", title: "Delete a recurring bill", method: "DELETE", path: "/api/v1/bills/templates/{id}", hints: voids,
		description: "Remove a recurring bill template for good, with its untouched future bills (unpaid, no payments, " +
			"never edited). Past, paid or edited bills stay and can still be paid. This cannot be undone; to stop it for a " +
			"while use update_bill_template with status=paused instead. Read get_bill_template and confirm with the user.",
	},
	{
		name: "update_bill_instance", title: "Update one bill", method: "PUT", path: "/api/v1/bills/{id}", hints: rewrites,
		description: "Change one bill (id from list_bills) when the actual bill differs from the template: amount (greater " +
			"than 0 and at least what was already paid), due_date and notes; only the fields given change. The bill keeps " +
			"its changes when its template changes later, and its status is recomputed. Confirm with the user.",
	},
	{
		name: "update_bill_status", title: "Mark a bill paid, unpaid or skipped", method: "POST", path: "/api/v1/bills/{id}/status", hints: updates,
		description: "Set a bill's status by hand (id from list_bills). paid marks an unpaid or partially paid bill as paid " +
			"WITHOUT recording any money, expense or account movement: when the user actually paid it, use " +
			"record_bill_payment instead. skipped marks an unpaid bill without payments as not due this time. unpaid undoes " +
			"a skip or a manual paid. A bill paid through payments cannot be set unpaid or skipped (delete_bill_payment " +
			"instead), and asking for the current status is refused. Confirm with the user.",
	},
	{
		name: "record_bill_payment", title: "Pay a bill", method: "POST", path: "/api/v1/bills/{id}/payments", hints: reshapes,
		description: "Record a payment on an unpaid or partially paid bill (id from list_bills with status=open): amount (at " +
			"most the bill's remaining), optional date (default today), notes, and category to book the expense under " +
			"another category (required when the bill's category was archived). payment_method, account_id and " +
			"credit_card_id default to the bill's template; without a default, give them (get_bill_form_options lists the " +
			"active accounts and cards). It records an expense (source bill_payment) and debits the account or charges the " +
			"card, so do not also call create_expense. Returns the payment and the bill after it. Read get_bill and " +
			"confirm the amount and method with the user first. " + retryWithKey,
	},
	{
		name: "delete_bill_payment", title: "Delete a bill payment", method: "DELETE", path: "/api/v1/bills/payments/{paymentId}", hints: voids,
		description: "Undo a bill payment (paymentId from list_bill_payments): the payment and its expense are voided, which " +
			"also reverses the account debit or the card charge, and the bill's paid total and status are recomputed. A " +
			"payment whose card charge is already on a statement cannot be deleted. Read list_bill_payments and confirm " +
			"with the user first.",
	},

	// settings:write
	{
		name: "update_budget_thresholds", title: "Replace the budget thresholds", method: "PUT",
		path: "/api/v1/user-settings/budget-thresholds", hints: replaces,
		description: "Replace the user's WHOLE set of monthly budget limits with the list given: every category left out " +
			"loses its threshold, and an empty list removes them all. To add or change one threshold, first read the " +
			"current set with get_budget_thresholds, then send the full list with your change. Each entry names an active " +
			"expense category (at most once) with monthly_limit > 0 and an optional warning_percent from 1 to 100 " +
			"(default: the budget_warning_percent app setting). Nothing changes if any entry is invalid. Returns the new " +
			"set measured against the current month. Confirm the final list with the user before calling.",
	},
	{
		name: "update_app_settings", title: "Change app settings", method: "PUT", path: "/api/v1/user-settings/app", hints: updates,
		description: "Change some of the user's app settings; fields left out keep their values and null restores a " +
			"default. currency is 3 uppercase letters (a label only: amounts are never converted); timezone is an IANA " +
			"name such as Asia/Manila, and changing it moves 'today' for every date default and the current month; " +
			"date_format, week_start, default_payment_method (Cash, Account Debit or Credit Card), budget_warning_percent " +
			"(1-100) and due_soon_days (1-31). Read get_app_settings first and confirm the change with the user.",
	},
	{
		name: "create_category", title: "Create a category", method: "POST", path: "/api/v1/categories", hints: creates,
		description: "Create an expense or income category (name, kind, optional color #RRGGBB and icon). Names are unique " +
			"per kind among active categories, case-insensitively: check list_categories first and reuse an existing one " +
			"when it fits.",
	},
	{
		name: "update_category", title: "Rename or recolor a category", method: "PUT", path: "/api/v1/categories/{id}", hints: updates,
		description: "Change a category's name, color or icon (not its kind). Records keep it under its new name. A system " +
			"category keeps its name.",
	},
	{
		name: "archive_category", title: "Archive a category", method: "DELETE", path: "/api/v1/categories/{id}", hints: voids,
		description: "Archive a category and remove its budget threshold; records keep it, but new writes cannot name it. " +
			"System categories cannot be archived. Confirm with the user.",
	},

	// Loans: their reads (finance:read) sit with their write.
	{
		name: "list_loans", title: "List loans", method: "GET", path: "/api/v1/loans", hints: reads,
		description: "List the user's loans, newest start date first. Filter with status (active, completed or " +
			"cancelled; every loan by default), dateFrom/dateTo on the start date, or search on the name, lender and " +
			"notes. Each loan has its terms (principal, interest_type none/add_on/diminishing, interest_rate per " +
			"rate_period, term_months, monthly_amount) and its figures: total_interest, total_payable, paid_total with " +
			"its paid_principal and paid_interest, remaining_principal, remaining_payable, paid_count, next_due_date and " +
			"next_due_amount. Use it to answer 'how much do I still owe' and to find a loan id for get_loan or " +
			"list_loan_instances.",
	},
	{
		name: "get_loan", title: "Get a loan", method: "GET", path: "/api/v1/loans/{id}", hints: reads,
		description: "Get one loan by id (from list_loans), any status, with its figures and instances: every monthly " +
			"instance by number with installment_number, due_date, amount_due (principal_due + interest_due), " +
			"paid_total, remaining, status (unpaid, partially_paid, paid, waived, cancelled), is_overdue and its " +
			"payments. Read it to see the whole schedule and which instance to pay next.",
	},
	{
		name: "list_loan_instances", title: "List a loan's instances", method: "GET", path: "/api/v1/loans/{id}/instances",
		hints: reads,
		description: "List one loan's monthly instances (id: the loan's, from list_loans), by installment number. Filter " +
			"with status (unpaid, partially_paid, paid, waived, cancelled, or overdue: open and due before today) or " +
			"dateFrom/dateTo on the due date. Each instance has amount_due, principal_due, interest_due, paid_total, " +
			"remaining and its payments. Use it to find the instance id that record_loan_payment needs.",
	},
	{
		name: "get_current_month_loan_dues", title: "Get this month's loan dues", method: "GET",
		path: "/api/v1/loans/current-month-dues", hints: reads,
		description: "List the loan instances due this month (paid ones included) and those still open from earlier " +
			"months (overdue), across the user's active loans, each with loan_name, amount_due, paid_total, remaining " +
			"and is_overdue; plus month and a summary over all of them: due_amount, paid_amount, remaining_amount, " +
			"overdue_amount and count. Read it first to answer 'what loan payments are due' and to find the instance " +
			"id to pay with record_loan_payment.",
	},
	{
		name: "record_loan_payment", title: "Pay a loan instance", method: "POST",
		path: "/api/v1/loans/instances/{instanceId}/payments", hints: reshapes,
		description: "Record a payment on one loan instance (instanceId from get_current_month_loan_dues or " +
			"list_loan_instances; not the loan's id): amount (at most the instance's remaining), optional date (default " +
			"today), optional account_id of an active account (from list_accounts) to debit it, else the payment was " +
			"cash, and notes. The amount pays the instance's interest first, then principal; only the interest part " +
			"counts as spending (Loan Interest). The loan completes by itself when its last instance is paid. Only an " +
			"unpaid or partially paid instance of an active loan takes payments. Payments are permanent: they cannot " +
			"be deleted or undone, so confirm the amount, instance and account with the user first. " + retryWithKey,
	},
	{
		name: "create_loan", title: "Add a loan", method: "POST", path: "/api/v1/loans", hints: creates,
		description: "Add a loan and its monthly schedule: name, principal, interest_type (none, add_on or diminishing), " +
			"interest_rate per rate_period, term_months, start_date (the release date), optional first_due_date and the " +
			"lender's monthly_amount. No money moves. Check list_loans first: each call adds a loan.",
	},
	{
		name: "update_loan", title: "Change a loan", method: "PATCH", path: "/api/v1/loans/{id}", hints: rewrites,
		description: "Change a loan's name, lender or notes, or its status: cancelled cancels it (as cancel_loan), active " +
			"reactivates a cancelled loan. The terms never change.",
	},
	{
		name: "cancel_loan", title: "Cancel a loan", method: "PATCH", path: "/api/v1/loans/{id}", hints: voids,
		body: `{"status":"cancelled"}`,
		description: "Cancel an active loan: its unpaid and partially paid instances are cancelled, payments stay. " +
			"update_loan with status active undoes it. Confirm with the user.",
	},
	{
		name: "delete_loan", title: "Delete a loan", method: "DELETE", path: "/api/v1/loans/{id}", hints: voids,
		description: "Erase a loan and its schedule; only a loan that was never paid (else cancel_loan). " +
			"Confirm with the user.",
	},

	// The assistant (finance:read: each write it proposes is checked
	// against the caller's scopes when confirmed).
	{
		name: "assistant_chat", title: "Ask the assistant", method: "POST", path: "/api/v1/ai-assistant/chat", hints: creates,
		runsAI: true,
		description: "Send one message to the app's assistant (optional conversation_id to continue). It answers from the " +
			"user's data and turns requests to record or pay into proposals, writing nothing; assistant_confirm executes one.",
	},
	{
		name: "assistant_confirm", title: "Confirm or reject a proposal", method: "POST", path: "/api/v1/ai-assistant/confirm",
		hints: voids, runsAI: true,
		description: "Decide a proposal of assistant_chat (proposal_id, decision confirm or reject). confirm runs its " +
			"write once, with that route's scope and checks; repeating it returns the first result. Confirm with the user.",
	},
}
