package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/finance-app/finance/finance"
)

// TestBodiesReadAsSent covers what encoding/json would accept by
// reinterpreting it: NUL in text, a member given twice, a member name that
// matches a field only when case is ignored, and text that is not UTF-8.
// Each is refused naming the member, and nothing is written.
func TestBodiesReadAsSent(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	const rest = `"date":"2025-03-01","category":"Groceries","payment_method":"Cash"`
	post := func(name, url, body string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: url, body: body,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fields})
	}
	const (
		dup    = "appears more than once"
		nul    = "must not contain NUL characters"
		utf    = "must be valid UTF-8 text"
		folded = "is not a field: names are case-sensitive, use "
	)
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		post("NUL in text", "/api/v1/expenses", `{"amount":1,"description":"lunch\u0000",`+rest+`}`, fieldsOf("description", nul)),
		post("a member twice", "/api/v1/expenses", `{"amount":1,"amount":1000,"description":"x",`+rest+`}`, fieldsOf("amount", dup)),
		post("a member in another case", "/api/v1/expenses", `{"Amount":5,"description":"x",`+rest+`}`, fieldsOf("Amount", folded+"amount")),
		post("a member in another case beside the real one", "/api/v1/expenses", `{"amount":5,"AMOUNT":500,"description":"x",`+rest+`}`,
			fieldsOf("AMOUNT", folded+"amount")),
		post("bytes that are not UTF-8", "/api/v1/expenses", "{\"amount\":1,\"description\":\"caf\xe9\","+rest+"}", fieldsOf("description", utf)),
		post("an unpaired surrogate", "/api/v1/expenses", `{"amount":1,"description":"\ud800x",`+rest+`}`, fieldsOf("description", utf)),
		post("all at once, nested", "/api/v1/expenses/bulk",
			`{"items":[{"amount":1,"description":"a",`+rest+`},{"amount":1,"amount":2,"Description":"b",`+rest+`,"notes":"\u0000"}]}`,
			fieldsOf("items[1].amount", dup, "items[1].Description", folded+"description", "items[1].notes", nul)),
		post("a member name that is markup is not repeated back", "/api/v1/expenses",
			`{"amount":1,"<b>x</b>":1,"<b>x</b>":2,"description":"x",`+rest+`}`, fieldsOf("body", dup)),
		post("sign-in", "/api/v1/auth/login", `{"email":"a@example.com","Password":"x"}`, fieldsOf("Password", folded+"password")),
	})

	// Text that merely looks unusual is kept as sent: a replacement
	// character written out or escaped, an escaped pair for an emoji, and
	// members the route does not read.
	e := alice.createExpense(t, `{"amount":1,"description":"\ufffd and � and \ud83c\udf5c","ignored":{"a":1},`+rest+`}`)
	if want := "� and � and 🍜"; e.Description != want {
		t.Errorf("description = %q, want %q", e.Description, want)
	}
}

// TestMultipartBodiesReadAsSent applies the same rules to multipart forms:
// a repeated field, a value that is not UTF-8, NUL, and a field name in
// another case are refused.
func TestMultipartBodiesReadAsSent(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	fields := func(extra ...[2]string) [][2]string {
		return append([][2]string{{"date", "2025-03-01"}, {"category", "Groceries"}, {"payment_method", "Cash"}}, extra...)
	}
	multipart := func(name string, f [][2]string, want map[string]string) apiScenario {
		body, ct := form(t, f)
		sc := alice.sc(apiScenario{name: name, method: http.MethodPost, url: "/api/v1/expenses", body: body,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: want})
		sc.headers["Content-Type"] = ct
		return sc
	}
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		multipart("a repeated field", fields([2]string{"amount", "1"}, [2]string{"amount", "900"}, [2]string{"description", "x"}),
			fieldsOf("amount", "appears more than once")),
		multipart("a value that is not UTF-8", fields([2]string{"amount", "1"}, [2]string{"description", "caf\xe9"}),
			fieldsOf("description", "must be valid UTF-8 text")),
		multipart("NUL", fields([2]string{"amount", "1"}, [2]string{"description", "a\x00b"}),
			fieldsOf("description", "must not contain NUL characters")),
		multipart("a field name in another case", fields([2]string{"Amount", "1"}, [2]string{"description", "x"}),
			fieldsOf("Amount", "is not a field: names are case-sensitive, use amount")),
	})
}

// FuzzCheckBody feeds arbitrary JSON bodies to the checks of a bulk expense
// request (objects nested in arrays): they never panic, a refusal names
// fields, and an accepted body is UTF-8 with each member once per object.
func FuzzCheckBody(f *testing.F) {
	for _, seed := range []string{
		`{"items":[{"amount":1,"description":"a"}]}`,
		`{"items":[{"amount":1,"amount":2,"Description":"\u0000"}],"Items":1}`,
		"{\"items\":\"\xff\"}", `{"a":{"a":{"a":[{"a":1,"a":2}]}}}`, `{"x":"\ud800\udc00\ud800"}`, `[]`, `{}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !json.Valid(body) || !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
			return // the decoder answers these: not JSON, or not an object
		}
		err := checkBody(body, reflect.TypeFor[*finance.BulkExpenseRequest]())
		if err != nil {
			var ve *finance.ValidationError
			if !errors.As(err, &ve) || len(ve.Fields) == 0 {
				t.Fatalf("refusal is not a ValidationError with fields: %v", err)
			}
			return
		}
		if !utf8.Valid(body) {
			t.Fatalf("accepted a body that is not UTF-8: %q", body)
		}
		if hasDuplicateMember(json.NewDecoder(bytes.NewReader(body))) {
			t.Fatalf("accepted a body with a member twice: %s", body)
		}
	})
}

// hasDuplicateMember reports whether any object in the value read from dec
// names a member twice.
func hasDuplicateMember(dec *json.Decoder) bool {
	tok, err := dec.Token()
	if err != nil {
		return false
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			k, _ := dec.Token()
			name, _ := k.(string)
			if seen[name] || hasDuplicateMember(dec) {
				return true
			}
			seen[name] = true
		}
		_, _ = dec.Token()
	case json.Delim('['):
		for dec.More() {
			if hasDuplicateMember(dec) {
				return true
			}
		}
		_, _ = dec.Token()
	}
	return false
}
