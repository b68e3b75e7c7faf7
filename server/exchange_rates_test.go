package server

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

const ratesURL = "/api/v1/exchange-rates"

// newRatesEnv is a server whose clock reads 2026-11-21 20:00 UTC (Sunday 22 in
// Manila) holding the ECB's rates of Thursday and Friday, and two users
// with settings:write, and a third key of Alice with finance:read only.
func newRatesEnv(t *testing.T) (env *testEnv, alice, bob, aliceReader ledgerUser) {
	t.Helper()
	env = newTestEnv(t)
	env.srv.Ledger().SetClock(func() time.Time { return time.Date(2026, 11, 21, 20, 0, 0, 0, time.UTC) })
	mk := func() ledgerUser {
		u := env.createUser(finance.PlanPro)
		return ledgerUser{env: env, user: u, key: env.createKey(u.ID, auth.ScopeSettingsWrite)}
	}
	alice, bob = mk(), mk()
	aliceReader = ledgerUser{env: env, user: alice.user, key: env.createKey(alice.user.ID, auth.ScopeRead)}
	var ecb []finance.ExchangeRate
	for _, r := range []struct{ quote, date, rate string }{
		{"USD", "2026-11-19", "1.1611"}, {"JPY", "2026-11-19", "175.02"}, {"PHP", "2026-11-19", "68.004"},
		{"USD", "2026-11-20", "1.1579"}, {"JPY", "2026-11-20", "176.41"}, {"PHP", "2026-11-20", "68.115"},
	} {
		d, _ := finance.ParseDate(r.date)
		v, _ := finance.ParseFXRate(r.rate)
		ecb = append(ecb, finance.ExchangeRate{ID: finance.NewID(), Base: "EUR", Quote: r.quote, Date: d, Rate: v,
			Source: finance.RateSourceECB, CreatedAt: time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)})
	}
	if n, err := env.srv.Ledger().SaveFetchedRates(context.Background(), ecb); err != nil || n != len(ecb) {
		t.Fatalf("saved %d fetched rates, %v", n, err)
	}
	return env, alice, bob, aliceReader
}

// storedRates counts the rates of a source a user reads in the database.
func storedRates(t testing.TB, env *testEnv, userID, source string) int {
	t.Helper()
	_, n, err := env.db.Read().ExchangeRates(context.Background(), userID, finance.ExchangeRateFilter{Source: source},
		finance.ListParams{Page: 1, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// storedManualRates counts the manual rates of a user in the database.
func storedManualRates(t testing.TB, env *testEnv, userID string) int {
	return storedRates(t, env, userID, finance.RateSourceManual)
}

func TestExchangeRatesEnterListAndDelete(t *testing.T) {
	env, alice, bob, reader := newRatesEnv(t)

	var mine finance.ExchangeRate
	alice.do(t, http.MethodPost, ratesURL, `{"base":"usd","quote":"JPY","date":"2026-11-20","rate":"154.370"}`,
		http.StatusCreated).decodeData(t, &mine)
	if mine.Base != "USD" || mine.Quote != "JPY" || mine.Date.String() != "2026-11-20" || mine.Rate.String() != "154.37" ||
		mine.Source != finance.RateSourceManual {
		t.Errorf("created %+v", mine)
	}
	if n := storedManualRates(t, env, alice.user.ID); n != 1 {
		t.Errorf("%d manual rates stored, want 1", n)
	}
	entries := activityOf(t, env, alice.user.ID, finance.ActivityFilter{Kind: finance.RecordExchangeRate})
	if len(entries) != 1 || entries[0].Action != finance.LogCreated || entries[0].RecordID != mine.ID ||
		entries[0].Summary != "Rate 2026-11-20: 1 USD = 154.37 JPY" {
		t.Errorf("activity %+v", entries)
	}

	// Newest first; Alice reads the server's rates and hers, Bob only the server's.
	items, p := page[finance.ExchangeRate](t, reader, ratesURL+"?limit=3")
	if p.TotalItems != 7 || len(items) != 3 || items[0].ID != mine.ID || items[1].Date.String() != "2026-11-20" {
		t.Errorf("Alice's first page %+v %+v", items, p)
	}
	if _, p := page[finance.ExchangeRate](t, bob, ratesURL); p.TotalItems != 6 {
		t.Errorf("Bob reads %d rates, want the server's 6", p.TotalItems)
	}
	items, p = page[finance.ExchangeRate](t, alice, ratesURL+"?base=eur&quote=PHP&dateFrom=2026-11-20&source=ecb")
	if p.TotalItems != 1 || items[0].Rate.String() != "68.115" {
		t.Errorf("filtered %+v %+v", items, p)
	}

	// The same pair and date again is a conflict naming the first; nothing is written.
	res := alice.do(t, http.MethodPost, ratesURL, `{"base":"USD","quote":"JPY","date":"2026-11-20","rate":150}`, http.StatusConflict)
	if res.env.Error.Code != CodeConflict || res.env.Error.Fields["date"] == "" ||
		res.message() != "You already have a rate of USD to JPY on 2026-11-20" {
		t.Errorf("conflict %+v", res.env.Error)
	}
	if n := storedManualRates(t, env, alice.user.ID); n != 1 {
		t.Errorf("%d manual rates after the conflict, want 1", n)
	}
	// Bob may enter the same pair and date: his rates are his.
	bob.do(t, http.MethodPost, ratesURL, `{"base":"USD","quote":"JPY","date":"2026-11-20","rate":150}`, http.StatusCreated)

	// Another user's rate, a fetched rate and a read-only key cannot delete.
	bob.do(t, http.MethodDelete, ratesURL+"/"+mine.ID, "", http.StatusNotFound)
	alice.do(t, http.MethodDelete, ratesURL+"/"+items[0].ID, "", http.StatusNotFound)
	reader.do(t, http.MethodDelete, ratesURL+"/"+mine.ID, "", http.StatusForbidden)
	reader.do(t, http.MethodPost, ratesURL, `{"base":"USD","quote":"PHP","date":"2026-11-20","rate":58}`, http.StatusForbidden)
	if a, b, f := storedManualRates(t, env, alice.user.ID), storedManualRates(t, env, bob.user.ID),
		storedRates(t, env, bob.user.ID, finance.RateSourceECB); a != 1 || b != 1 || f != 6 {
		t.Errorf("stored: Alice %d, Bob %d manual rates, %d fetched; want 1, 1, 6", a, b, f)
	}

	var deleted finance.ExchangeRate
	alice.do(t, http.MethodDelete, ratesURL+"/"+mine.ID, "", http.StatusOK).decodeData(t, &deleted)
	if deleted.ID != mine.ID || deleted.Rate.String() != "154.37" || storedManualRates(t, env, alice.user.ID) != 0 {
		t.Errorf("deleted %+v, %d left", deleted, storedManualRates(t, env, alice.user.ID))
	}
	entries = activityOf(t, env, alice.user.ID, finance.ActivityFilter{Kind: finance.RecordExchangeRate})
	if len(entries) != 2 || entries[0].Action != finance.LogDeleted || entries[0].Summary != "Rate 2026-11-20: 1 USD = 154.37 JPY deleted" {
		t.Errorf("activity after delete %+v", entries)
	}
}

func TestExchangeRateRefusesBadInput(t *testing.T) {
	env, alice, _, _ := newRatesEnv(t)
	for _, tt := range []struct {
		name, body string
		fields     map[string]string
	}{
		{"unknown code", `{"base":"XYZ","quote":"PHP","date":"2026-11-20","rate":58}`,
			map[string]string{"base": "must be an ISO 4217 currency code, like PHP, USD or EUR"}},
		{"same currency", `{"base":"PHP","quote":"php","date":"2026-11-20","rate":1}`,
			map[string]string{"quote": "must differ from base: a currency converts to itself 1:1"}},
		{"zero rate", `{"base":"USD","quote":"PHP","date":"2026-11-20","rate":0}`,
			map[string]string{"rate": "must be a number greater than 0 with at most 10 decimal places and 12 significant digits"}},
		{"negative rate", `{"base":"USD","quote":"PHP","date":"2026-11-20","rate":"-58"}`,
			map[string]string{"rate": "must be a number greater than 0 with at most 10 decimal places and 12 significant digits"}},
		{"too precise", `{"base":"USD","quote":"PHP","date":"2026-11-20","rate":58.12345678901}`,
			map[string]string{"rate": "must be a number greater than 0 with at most 10 decimal places and 12 significant digits"}},
		{"bad date", `{"base":"USD","quote":"PHP","date":"2026-02-30","rate":58}`,
			map[string]string{"date": "must be a real calendar date in YYYY-MM-DD format between 1900 and 2100"}},
		{"all missing", `{}`,
			map[string]string{"base": "is required", "quote": "is required", "date": "is required", "rate": "is required"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			apiScenario{method: http.MethodPost, url: ratesURL, body: tt.body, headers: bearer(alice.key),
				wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: tt.fields}.run(t, env)
		})
	}
	if n := storedManualRates(t, env, alice.user.ID); n != 0 {
		t.Errorf("%d manual rates stored after refusals", n)
	}
	apiScenario{method: http.MethodGet, url: ratesURL + "?base=XX&source=bank", headers: bearer(alice.key),
		wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: map[string]string{
			"base": "must be an ISO 4217 currency code, like PHP, USD or EUR", "source": "must be one of: ecb, frankfurter, manual"}}.run(t, env)
}

func TestConvertAmount(t *testing.T) {
	env, alice, bob, reader := newRatesEnv(t)
	alice.do(t, http.MethodPost, ratesURL, `{"base":"USD","quote":"JPY","date":"2026-11-20","rate":154.37}`, http.StatusCreated)
	eur, manual := "EUR", finance.RateSourceManual
	ecb := finance.RateSourceECB
	friday := finance.NewDate(2026, 11, 20)
	for _, tt := range []struct {
		name string
		user ledgerUser
		url  string
		want map[string]any
	}{
		{"cross through EUR, today by default (Sunday)", reader, "?amount=12345&from=JPY&to=php",
			map[string]any{"amount": 12345, "from": "JPY", "to": "PHP", "date": "2026-11-22", "converted": 4766.62,
				"rate": 0.386117567, "rate_date": friday.String(), "source": ecb, "via": eur, "stale": false}},
		{"her manual rate", alice, "?amount=19.99&from=USD&to=JPY&date=2026-11-20",
			map[string]any{"amount": 19.99, "from": "USD", "to": "JPY", "date": "2026-11-20", "converted": 3086,
				"rate": 154.37, "rate_date": "2026-11-20", "source": manual, "via": nil, "stale": false}},
		{"not Bob's", bob, "?amount=19.99&from=USD&to=JPY&date=2026-11-20",
			map[string]any{"amount": 19.99, "from": "USD", "to": "JPY", "date": "2026-11-20", "converted": 3046,
				"rate": 152.3533983936, "rate_date": "2026-11-20", "source": ecb, "via": eur, "stale": false}},
		{"stale", bob, "?amount=100&from=EUR&to=PHP&date=2026-12-01",
			map[string]any{"amount": 100, "from": "EUR", "to": "PHP", "date": "2026-12-01", "converted": 6811.5,
				"rate": 68.115, "rate_date": "2026-11-20", "source": ecb, "via": nil, "stale": true}},
		// Zeros past the currency's decimals are read as for every amount:
		// "100.00" yen is ¥100 (docs/domain.md "Minor units").
		{"zeros past a currency's decimals", reader, "?amount=12345.00&from=JPY&to=PHP&date=2026-11-20",
			map[string]any{"amount": 12345, "from": "JPY", "to": "PHP", "date": "2026-11-20", "converted": 4766.62,
				"rate": 0.386117567, "rate_date": friday.String(), "source": ecb, "via": eur, "stale": false}},
		{"same currency", bob, "?amount=-5.5&from=PHP&to=PHP",
			map[string]any{"amount": -5.5, "from": "PHP", "to": "PHP", "date": "2026-11-22", "converted": -5.5,
				"rate": 1, "rate_date": nil, "source": nil, "via": nil, "stale": false}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			apiScenario{method: http.MethodGet, url: ratesURL + "/convert" + tt.url, headers: bearer(tt.user.key),
				wantStatus: http.StatusOK, wantData: tt.want}.run(t, env)
		})
	}

	// A missing rate is named, never 1:1.
	apiScenario{method: http.MethodGet, url: ratesURL + "/convert?amount=12345&from=JPY&to=KWD&date=2026-11-20", headers: bearer(bob.key),
		wantStatus: http.StatusUnprocessableEntity, wantCode: CodeRateMissing,
		wantMessage: "No exchange rate from JPY to KWD on or before 2026-11-20"}.run(t, env)
	apiScenario{method: http.MethodGet, url: ratesURL + "/convert?amount=100&from=USD&to=PHP&date=2026-11-18", headers: bearer(bob.key),
		wantStatus: http.StatusUnprocessableEntity, wantCode: CodeRateMissing,
		wantMessage: "No exchange rate from USD to PHP on or before 2026-11-18"}.run(t, env)

	// Bad input names the parameter.
	for _, tt := range []struct {
		url    string
		fields map[string]string
	}{
		{"?amount=100.5&from=JPY&to=PHP", map[string]string{"amount": "must be a number with at most 0 decimal places"}},
		{"?amount=100.05&from=JPY&to=PHP", map[string]string{"amount": "must be a number with at most 0 decimal places"}},
		{"?amount=1.2345&from=KWD&to=PHP", map[string]string{"amount": "must be a number with at most 3 decimal places"}},
		{"?amount=1&from=ABC&to=PHP&date=2026-13-01", map[string]string{"from": "must be an ISO 4217 currency code, like PHP, USD or EUR",
			"date": "must be a real calendar date in YYYY-MM-DD format between 1900 and 2100"}},
		{"?from=USD", map[string]string{"amount": "is required", "to": "is required"}},
	} {
		apiScenario{method: http.MethodGet, url: ratesURL + "/convert" + tt.url, headers: bearer(bob.key),
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: tt.fields}.run(t, env)
	}
}
