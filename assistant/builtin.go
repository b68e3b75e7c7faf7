package assistant

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// The built-in assistant answers without any AI service, deterministically:
// a question about one of the common topics is answered from the read route
// that knows it, and a message that reads like expenses (the built-in parser
// of AI parsing) becomes one create_expense proposal per complete draft.
// Anything else gets a reply saying what it can do.

// engineBuiltin names the built-in engine in answers, as AI parsing does.
const engineBuiltin = ai.EngineBuiltin

// Help is the built-in assistant's reply to a message it cannot use.
const Help = "I can record expenses you describe, for example \"lunch 250 cash yesterday, grab 180 gcash\": " +
	"I propose them and nothing is saved until you confirm. I can also answer how much you spent this month, " +
	"which bills are due, what is due on your credit cards, and your account balances."

// assistantTopic is a question the built-in assistant answers.
type assistantTopic int

const (
	topicSpending assistantTopic = iota
	topicBills
	topicCards
	topicBalances
)

// topicWords are the words that name each topic (English and Filipino).
var topicWords = map[assistantTopic][]string{
	topicSpending: {"spend", "spent", "spending", "expenses", "gastos", "ginastos", "nagastos"},
	topicBills:    {"bill", "bills", "bayarin"},
	topicCards:    {"card", "cards", "credit", "owe", "utang"},
	topicBalances: {"balance", "balances", "account", "accounts", "savings", "pera"},
}

// questionWords start a question even without a question mark.
var questionWords = []string{"how", "what", "what's", "whats", "which", "when", "show", "list", "tell", "do", "does",
	"am", "is", "are", "give", "magkano", "ano", "ilan", "kailan"}

// words splits text into lowercase words of letters, digits and apostrophes.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// questionTopics returns the topics a question asks about, in a fixed
// order; nil when the message is not a question.
func questionTopics(message string) []assistantTopic {
	ws := words(message)
	if len(ws) == 0 || (!strings.HasSuffix(strings.TrimSpace(message), "?") && !slices.Contains(questionWords, ws[0])) {
		return nil
	}
	var topics []assistantTopic
	for _, t := range []assistantTopic{topicSpending, topicBills, topicCards, topicBalances} {
		if slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(topicWords[t], w) }) {
			topics = append(topics, t)
		}
	}
	if topics == nil {
		return []assistantTopic{} // a question, on no topic the built-in assistant knows
	}
	return topics
}

// builtinAnswer answers message with the built-in engine.
func (a *Assistant) builtinAnswer(ctx context.Context, p auth.Principal, in finance.ParseInputs, message string) (answer, error) {
	if topics := questionTopics(message); topics != nil {
		if len(topics) == 0 {
			return answer{reply: Help, engine: engineBuiltin}, nil
		}
		var parts []string
		for _, t := range topics {
			parts = append(parts, a.topicReply(ctx, p, in, t))
		}
		return answer{reply: strings.Join(parts, "\n"), engine: engineBuiltin}, nil
	}
	return expenseProposals(in, message), nil
}

// expenseProposals drafts the expenses message describes and proposes each
// complete one; the reply lists them and asks for what the others lack.
func expenseProposals(in finance.ParseInputs, message string) answer {
	parsed := ai.ParseText(in, message)
	drafts, _ := in.CheckDrafts(parsed.Items)
	ans := answer{engine: engineBuiltin}
	var proposed, incomplete []string
	for _, d := range drafts {
		if d.Amount == nil {
			continue
		}
		if missing := d.Missing(); len(missing) > 0 {
			incomplete = append(incomplete, fmt.Sprintf("%s (missing %s)", draftName(d), strings.Join(missing, ", ")))
			continue
		}
		pr, err := expenseProposal(in, d)
		if err != nil {
			continue
		}
		ans.proposals = append(ans.proposals, pr)
		proposed = append(proposed, pr.Summary)
	}
	var b strings.Builder
	switch {
	case len(proposed) == 0 && len(incomplete) == 0:
		return answer{reply: Help, engine: engineBuiltin}
	case len(proposed) == 1:
		b.WriteString("Here is what I would record; confirm it to save it:\n- " + proposed[0])
	case len(proposed) > 1:
		b.WriteString("Here is what I would record; confirm each to save it:\n- " + strings.Join(proposed, "\n- "))
	}
	if len(incomplete) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("I could not propose " + strings.Join(incomplete, "; ") +
			": say it again with those details (a category, and the account or card it was paid with).")
	}
	ans.reply = b.String()
	return ans
}

// expenseProposal is the proposal of a complete draft: POST /expenses with
// the draft as its body.
func expenseProposal(in finance.ParseInputs, d finance.ExpenseDraft) (finance.Proposal, error) {
	body, err := json.Marshal(d)
	if err != nil {
		return finance.Proposal{}, err
	}
	// The draft's null members and its guessed list are dropped: the body a
	// client would send, and the create_expense tool's arguments.
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return finance.Proposal{}, err
	}
	delete(m, "guessed")
	for k, v := range m {
		if string(v) == "null" {
			delete(m, k)
		}
	}
	if body, err = json.Marshal(m); err != nil {
		return finance.Proposal{}, err
	}
	return finance.Proposal{Action: "create_expense", Summary: expenseSummary(in, d), Arguments: body,
		Method: "POST", Path: apiPrefix + "expenses", Body: body}, nil
}

func draftName(d finance.ExpenseDraft) string {
	name := "an expense"
	if d.Description != nil {
		name = *d.Description
	}
	if d.Amount != nil {
		name += " " + d.Amount.String()
	}
	return name
}

// expenseSummary says what a create_expense proposal records, naming the
// account or card it is paid with.
func expenseSummary(in finance.ParseInputs, d finance.ExpenseDraft) string {
	s := fmt.Sprintf("Record %s: %s %s on %s", deref(d.Description), in.Currency, d.Amount, d.Date)
	if d.Category != nil {
		s += ", " + *d.Category
	}
	if d.PaymentMethod != nil {
		s += ", paid with " + *d.PaymentMethod
	}
	if d.AccountID != nil {
		for _, a := range in.Accounts {
			if a.ID == *d.AccountID {
				s += " (" + a.Name + ")"
			}
		}
	}
	if d.CreditCardID != nil {
		for _, c := range in.Cards {
			if c.ID == *d.CreditCardID {
				s += " (" + c.Name + ")"
			}
		}
	}
	return s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// topicReply answers one topic from its read route, as the caller.
func (a *Assistant) topicReply(ctx context.Context, p auth.Principal, in finance.ParseInputs, t assistantTopic) string {
	money := func(m finance.Money) string { return in.Currency + " " + m.String() }
	read := func(target string, what string, out any) string {
		res := a.routes.Call(ctx, p, "GET", target, nil)
		if res.Err != nil {
			return "I could not read " + what + ": " + res.Err.Message
		}
		if err := json.Unmarshal(res.Data, out); err != nil {
			return "I could not read " + what + "."
		}
		return ""
	}
	switch t {
	case topicSpending:
		// The spending report counts everything the counting rule does (card
		// fees and interest, loan interest, less refunds), by category.
		var rep finance.SpendingByCategoryReport
		if msg := read(apiPrefix+"reports/"+finance.ReportSpendingByCategory, "your spending", &rep); msg != "" {
			return msg
		}
		reply := fmt.Sprintf("This month (%s to %s) you spent %s", rep.DateFrom, rep.DateTo, money(rep.Total))
		var top []string
		for i, c := range rep.Items {
			if i == 3 {
				break
			}
			top = append(top, fmt.Sprintf("%s %s", c.Category, money(c.Amount)))
		}
		if len(top) > 0 {
			reply += ". Most went to " + strings.Join(top, ", ")
		}
		return reply + "."
	case topicBills:
		// Due this month, and any still unpaid from before.
		_, monthEnd := finance.MonthRange(in.Today)
		var page finance.Page[finance.Bill]
		q := url.Values{"status": {"open"}, "dateTo": {monthEnd.String()}, "limit": {"10"}}
		if msg := read(apiPrefix+"bills?"+q.Encode(), "your bills", &page); msg != "" {
			return msg
		}
		if len(page.Items) == 0 {
			return "You have no unpaid bills due this month."
		}
		var lines []string
		for _, b := range page.Items {
			line := fmt.Sprintf("%s: %s due %s", b.Name, money(b.Remaining), b.DueDate)
			if b.IsOverdue {
				line += " (overdue)"
			}
			lines = append(lines, line)
		}
		reply := fmt.Sprintf("You have %d unpaid bill%s due this month", page.Pagination.TotalItems, plural(page.Pagination.TotalItems))
		if page.Pagination.TotalItems > len(page.Items) {
			reply += fmt.Sprintf("; the first %d by due date", len(page.Items))
		}
		return reply + ":\n- " + strings.Join(lines, "\n- ")
	case topicCards:
		var m finance.CardMetrics
		if msg := read(apiPrefix+"credit-cards/metrics", "your credit cards", &m); msg != "" {
			return msg
		}
		if len(m.Cards) == 0 {
			return "You have no active credit cards."
		}
		var lines []string
		for _, c := range m.Cards {
			line := fmt.Sprintf("%s: %s outstanding", c.Name, money(c.OutstandingBalance))
			if c.NextDue != nil {
				line += fmt.Sprintf("; statement due %s with %s left to pay", c.NextDue.DueDate, money(c.NextDue.Remaining))
			} else {
				line += "; no statement to pay"
			}
			if c.OverdueSOACount > 0 {
				line += " (overdue)"
			}
			lines = append(lines, line)
		}
		return fmt.Sprintf("Your credit cards owe %s in all:\n- %s", money(m.Totals.OutstandingBalance), strings.Join(lines, "\n- "))
	default: // topicBalances
		var page finance.Page[finance.Account]
		if msg := read(apiPrefix+"accounts?limit=100", "your accounts", &page); msg != "" {
			return msg
		}
		if len(page.Items) == 0 {
			return "You have no active accounts."
		}
		var total finance.Money
		var lines []string
		for _, acc := range page.Items {
			total += acc.CurrentBalance
			lines = append(lines, fmt.Sprintf("%s: %s", acc.Name, money(acc.CurrentBalance)))
		}
		return fmt.Sprintf("Your accounts hold %s in all:\n- %s", money(total), strings.Join(lines, "\n- "))
	}
}
