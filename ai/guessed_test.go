package ai

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

// oneCard is the fixture's person with one card (BDO Visa) and the
// accounts, as someone who has never had a Metrobank card.
func oneCard() finance.ParseInputs {
	in := fixture("YYYY-MM-DD")
	in.Cards = in.Cards[:1]
	return in
}

// oneBankAccount is a person who pays by Account Debit by default and has
// one bank-type account (BPI Savings) and no card.
func oneBankAccount() finance.ParseInputs {
	in := fixture("YYYY-MM-DD")
	in.Accounts = in.Accounts[1:2]
	in.Cards = nil
	in.DefaultPaymentMethod = finance.MethodAccountDebit
	return in
}

// twoBDO is a person with a BDO account and a BDO card.
func twoBDO() finance.ParseInputs {
	in := fixture("YYYY-MM-DD")
	in.Accounts = append(in.Accounts, finance.AccountOption{ID: fixtureIDs["bdoacct"], Name: "BDO Savings", Type: finance.AccountSavings})
	return in
}

func init() { fixtureIDs["bdoacct"] = "019a8000-0000-7000-8000-000000000006" }

// The built-in parser never fills in a value silently: every field whose
// value the text does not state for that expense is in guessed, a named
// account or card the person does not have is never replaced by another,
// and a line without an amount is a draft of its own. Today is Friday
// 2025-11-14 in the fixture.
func TestGuessed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       finance.ParseInputs
		text     string
		want     []string   // drafts as the phrasing table writes them
		guessed  [][]string // each draft's guessed
		warnings []string
	}{
		{
			name: "a rough date of its own is not the previous item's",
			in:   fixture("YYYY-MM-DD"), text: "grab 180 yesterday\nmeralco 2,845.60 bdo last week",
			want: []string{"180.00 | 2025-11-13 | Grab | Transportation | Cash | - | -",
				"2845.60 | 2025-11-07 | Meralco | Utilities | Credit Card | - | bdo"},
			guessed: [][]string{{"payment_method"}, {"date"}},
		},
		{
			name: "a card the person does not have is left empty, not replaced by their only card",
			in:   oneCard(), text: "groceries 1,200 metrobank card",
			want:     []string{"1200.00 | 2025-11-14 | Groceries | Groceries | Credit Card | - | -"},
			guessed:  [][]string{{"date"}},
			warnings: []string{`items[0]: no active credit card is named like "metrobank"; choose the card it was charged to`},
		},
		{
			name: "a line without an amount is a draft of its own",
			in:   fixture("YYYY-MM-DD"), text: "lunch 250\ncoffee at the mall",
			want: []string{"250.00 | 2025-11-14 | Lunch | Food & Dining | Cash | - | -",
				"- | 2025-11-14 | Coffee at the mall | Food & Dining | Cash | - | -"},
			guessed:  [][]string{{"date", "payment_method"}, {"date", "payment_method"}},
			warnings: []string{"items[1]: no amount was found; fill it in"},
		},
		{
			name: "first, too",
			in:   fixture("YYYY-MM-DD"), text: "coffee at the mall, lunch 250 cash yesterday",
			want: []string{"- | 2025-11-13 | Coffee at the mall | Food & Dining | Cash | - | -",
				"250.00 | 2025-11-13 | Lunch | Food & Dining | Cash | - | -"},
			guessed:  [][]string{{"date", "payment_method"}, {}},
			warnings: []string{"items[0]: no amount was found; fill it in"},
		},
		{
			name: "a date shared with the expense before is a guess",
			in:   fixture("YYYY-MM-DD"), text: "lunch 250 cash yesterday, taxi 180 cash",
			want: []string{"250.00 | 2025-11-13 | Lunch | Food & Dining | Cash | - | -",
				"180.00 | 2025-11-13 | Taxi | Transportation | Cash | - | -"},
			guessed: [][]string{{}, {"date"}},
		},
		{
			name: "a date of its own is read",
			in:   fixture("YYYY-MM-DD"), text: "dinner 800 cash last friday",
			want:    []string{"800.00 | 2025-11-07 | Dinner | Food & Dining | Cash | - | -"},
			guessed: [][]string{{}},
		},
		{
			name: "last month, last weekend and the Tagalog last week are rough",
			in:   fixture("YYYY-MM-DD"), text: "rent 15000 bpi last month\nmovie 450 cash last weekend\nkape 120 cash nakaraang linggo",
			want: []string{"15000.00 | 2025-10-14 | Rent | Rent & Housing | Account Debit | bpi | -",
				"450.00 | 2025-11-08 | Movie | Entertainment | Cash | - | -",
				"120.00 | 2025-11-07 | Kape | Food & Dining | Cash | - | -"},
			guessed: [][]string{{"date"}, {"date"}, {"date"}},
		},
		{
			name: "a generic card word takes the only card, as a guess",
			in:   oneCard(), text: "netflix 549 card today",
			want:    []string{"549.00 | 2025-11-14 | Netflix | Subscriptions | Credit Card | - | bdo"},
			guessed: [][]string{{"credit_card_id"}},
		},
		{
			name: "with two cards it is left to choose",
			in:   fixture("YYYY-MM-DD"), text: "netflix 549 card today",
			want:     []string{"549.00 | 2025-11-14 | Netflix | Subscriptions | Credit Card | - | -"},
			guessed:  [][]string{{}},
			warnings: []string{"items[0]: choose the credit card it was charged to"},
		},
		{
			name: "the default method and the only bank account",
			in:   oneBankAccount(), text: "lunch 250",
			want:    []string{"250.00 | 2025-11-14 | Lunch | Food & Dining | Account Debit | bpi | -"},
			guessed: [][]string{{"date", "payment_method", "account_id"}},
		},
		{
			name: "a bank account the person does not have is not their only one",
			in:   oneBankAccount(), text: "groceries 800 metrobank debit today",
			want:     []string{"800.00 | 2025-11-14 | Groceries | Groceries | Account Debit | - | -"},
			guessed:  [][]string{{}},
			warnings: []string{`items[0]: no active account is named like "metrobank"; choose the account it was paid from`},
		},
		{
			name: "a bank alone the person has none of leaves the method to choose",
			in:   oneBankAccount(), text: "taxi 200 unionbank today",
			want:     []string{"200.00 | 2025-11-14 | Taxi | Transportation | - | - | -"},
			guessed:  [][]string{{}},
			warnings: []string{`items[0]: no active account or card is named like "unionbank"; choose how it was paid`},
		},
		{
			name: "a bank alone that is an account and a card of the person's",
			in:   twoBDO(), text: "taxi 200 bdo today",
			want:     []string{"200.00 | 2025-11-14 | Taxi | Transportation | - | - | -"},
			guessed:  [][]string{{}},
			warnings: []string{`items[0]: more than one active account or card is named like "bdo"; choose how it was paid`},
		},
		{
			name: "a bank and the kind pick one of two",
			in:   twoBDO(), text: "taxi 200 bdo card today",
			want:    []string{"200.00 | 2025-11-14 | Taxi | Transportation | Credit Card | - | bdo"},
			guessed: [][]string{{}},
		},
		{
			name: "an e-wallet the person does not have",
			in:   oneBankAccount(), text: "load 100 gcash today",
			want:     []string{"100.00 | 2025-11-14 | Load | Utilities | Account Debit | - | -"},
			guessed:  [][]string{{}},
			warnings: []string{`items[0]: no active account is named like "gcash"; choose the account it was paid from`},
		},
		{
			name: "words before a bare amount still join it",
			in:   fixture("YYYY-MM-DD"), text: "lunch, 250 cash",
			want:    []string{"250.00 | 2025-11-14 | Lunch | Food & Dining | Cash | - | -"},
			guessed: [][]string{{"date"}},
		},
		{
			name: "and words after one",
			in:   fixture("YYYY-MM-DD"), text: "250 cash, for lunch",
			want:    []string{"250.00 | 2025-11-14 | Lunch | Food & Dining | Cash | - | -"},
			guessed: [][]string{{"date"}},
		},
		{
			name: "a date or a payment alone joins its neighbour",
			in:   fixture("YYYY-MM-DD"), text: "yesterday, lunch 250, gcash",
			want:    []string{"250.00 | 2025-11-13 | Lunch | Food & Dining | Account Debit | gcash | -"},
			guessed: [][]string{{}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseText(tc.in, tc.text)
			var want []finance.ExpenseDraft
			for i, line := range tc.want {
				d := parseWant(t, 0, line)
				d.Guessed = tc.guessed[i]
				want = append(want, d)
			}
			if diff := cmp.Diff(want, got.Items, dateEq); diff != "" {
				t.Errorf("drafts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(append([]string{}, tc.warnings...), got.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			// The drafts pass the create checks as they are, guessed included.
			if checked, warnings := tc.in.CheckDrafts(got.Items); len(warnings) > 0 || !cmp.Equal(checked, got.Items, dateEq) {
				t.Errorf("the checks changed the drafts: %v\n%s", warnings, cmp.Diff(got.Items, checked, dateEq))
			}
		})
	}
}

// A model's drafts are held to the note as the built-in parser's are: each
// against the expense of the note with its amount.
func TestModelDraftsAreHeldToTheNote(t *testing.T) {
	const note = "grab 180 cash yesterday\nmeralco 2,845.60 metrobank card last week\ncoffee 120 card"
	answer := `{"items":[
		{"amount":180,"date":"2025-11-13","description":"Grab","category":"Transportation","payment_method":"Cash","account_id":null,"credit_card_id":null,"notes":null},
		{"amount":2845.60,"date":"2025-11-13","description":"Meralco","category":"Utilities","payment_method":"Credit Card","account_id":null,"credit_card_id":"` + fixtureIDs["bdo"] + `","notes":null},
		{"amount":120,"date":"2025-11-14","description":"Coffee","category":"Food & Dining","payment_method":"Credit Card","account_id":null,"credit_card_id":"` + fixtureIDs["bdo"] + `","notes":null},
		{"amount":99,"date":"2025-11-14","description":"Water","category":"Utilities","payment_method":"Account Debit","account_id":"` + fixtureIDs["bpi"] + `","credit_card_id":null,"notes":null}
	]}`
	f := newFakeService(t, completion(answer))
	res, err := f.engine(Config{}).ParseText(context.Background(), oneCard(), note)
	if err != nil {
		t.Fatal(err)
	}
	want := []finance.ExpenseDraft{
		// Everything read from its own line.
		{Guessed: []string{}},
		// The previous line's date for "last week", and the only card for a
		// Metrobank card the person does not have: a guess, and dropped.
		{Guessed: []string{"date"}},
		// "card" and the only card: the built-in parser's guess too; no date on its line.
		{Guessed: []string{"date", "credit_card_id"}, CreditCardID: ptr(fixtureIDs["bdo"])},
		// An expense the note does not hold: the whole note is its text, which
		// names no account, and the person has three.
		{Guessed: []string{"date", "payment_method"}},
	}
	if len(res.Items) != len(want) {
		t.Fatalf("%d drafts, want %d", len(res.Items), len(want))
	}
	for i, w := range want {
		d := res.Items[i]
		if diff := cmp.Diff(w.Guessed, d.Guessed); diff != "" {
			t.Errorf("items[%d].guessed (-want +got):\n%s", i, diff)
		}
		if ptrString(d.CreditCardID) != ptrString(w.CreditCardID) {
			t.Errorf("items[%d].credit_card_id = %s, want %s", i, ptrString(d.CreditCardID), ptrString(w.CreditCardID))
		}
	}
	if res.Items[3].AccountID != nil {
		t.Errorf("items[3].account_id = %s, want null: the note names no account", *res.Items[3].AccountID)
	}
	wantWarnings := []string{
		"items[1].credit_card_id is a card the text does not name; it was left empty",
		"items[3].account_id is an account the text does not name; it was left empty",
	}
	if diff := cmp.Diff(wantWarnings, res.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func ptr[T any](v T) *T { return &v }

// A vision model's payment cannot be held to any text: it is a guess.
func TestVisionDraftsGuessThePayment(t *testing.T) {
	f := newFakeService(t, completion(`{"items":[{"amount":492,"date":"2025-11-08","description":"Jollibee","category":"Food & Dining","payment_method":"Credit Card","account_id":null,"credit_card_id":"`+fixtureIDs["metro"]+`","notes":null}]}`))
	res, err := f.engine(Config{VisionModel: "test-vision"}).ParseImages(context.Background(), fixture("YYYY-MM-DD"),
		[]Image{imageFile(t, []byte("\x89PNG\r\n\x1a\nfake"), "image/png")})
	if err != nil || len(res.Items) != 1 {
		t.Fatalf("res %+v, err %v", res, err)
	}
	if diff := cmp.Diff([]string{"payment_method", "credit_card_id"}, res.Items[0].Guessed); diff != "" {
		t.Errorf("guessed (-want +got):\n%s", diff)
	}
}
