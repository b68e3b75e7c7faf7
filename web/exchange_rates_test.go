package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// manualRatesOf lists the user's own rates as "date base→quote rate", from the ledger.
func manualRatesOf(t *testing.T, env *testEnv, u finance.User) []string {
	t.Helper()
	page, err := env.srv.Ledger().ListExchangeRates(context.Background(), u.ID,
		finance.ExchangeRateFilter{Source: finance.RateSourceManual}, finance.ListParams{Page: 1, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range page.Items {
		out = append(out, r.Date.String()+" "+r.Base+"→"+r.Quote+" "+r.Rate.String())
	}
	return out
}

// The page: a rate refused beside its field, added, listed as the latest
// of its pair, used by the converter (and a pair without a rate named),
// then deleted; another person's rate cannot be deleted from here.
func TestExchangeRatesPage(t *testing.T) {
	env, u, b := webApp(t)
	testkit.WantPage(t, "settings", b.Get(web.SettingsPath), http.StatusOK, `<a href="/settings/exchange-rates"><strong>Exchange rates</strong>`)
	page := b.Get(web.ExchangeRatesPath)
	testkit.WantPage(t, "no rates", page, http.StatusOK, "No rates yet.", `<option value="JPY">JPY · Yen</option>`)
	tok := testkit.CSRF(t, page)
	once := regexp.MustCompile(`name="once" value="([^"]+)"`)
	add := func(f url.Values) testkit.Exchange {
		m := once.FindStringSubmatch(string(b.Get(web.ExchangeRatesPath).Body))
		f.Set("csrf", tok)
		f.Set("once", m[1])
		return b.Post(web.ExchangeRatesPath, f)
	}
	x := add(url.Values{"base": {"USD"}, "quote": {"USD"}, "date": {"2026-11-20"}, "rate": {"0"}})
	testkit.WantPage(t, "refused", x, http.StatusBadRequest,
		`id="new-quote-error">In must differ from base: a currency converts to itself 1:1<`,
		`id="new-rate-error">Rate must be a number greater than 0`, `<option value="USD" selected>`)
	if got := manualRatesOf(t, env, u); len(got) != 0 {
		t.Fatalf("a refused form wrote %v", got)
	}
	testkit.WantRedirect(t, "add", add(url.Values{"base": {"USD"}, "quote": {"JPY"}, "date": {"2026-11-20"}, "rate": {"154.37"}}),
		web.ExchangeRatesPath+"?notice=rate-created")
	if got := manualRatesOf(t, env, u); len(got) != 1 || got[0] != "2026-11-20 USD→JPY 154.37" {
		t.Fatalf("stored %v", got)
	}
	x = add(url.Values{"base": {"USD"}, "quote": {"JPY"}, "date": {"2026-11-20"}, "rate": {"150"}})
	testkit.WantPage(t, "same day again", x, http.StatusConflict, "You already have a rate of USD to JPY on 2026-11-20")
	if got := manualRatesOf(t, env, u); len(got) != 1 {
		t.Fatalf("the conflict wrote: %v", got)
	}

	page = b.Get(web.ExchangeRatesPath + "?notice=rate-created")
	testkit.WantPage(t, "listed", page, http.StatusOK, "Your rate has been saved.",
		`<td>1 USD in JPY</td><td class="num">154.37</td>`, `: 1 USD = 154.37 JPY</p>`)

	conv := b.Get(web.ExchangeRatesPath + "?amount=19.99&from=USD&to=JPY&date=2026-11-21")
	testkit.WantPage(t, "converted", conv, http.StatusOK, `<strong>19.99 USD = 3086 JPY</strong>`, "at 154.37 (your own rate of")
	conv = b.Get(web.ExchangeRatesPath + "?amount=19.99&from=USD&to=PHP")
	testkit.WantPage(t, "missing", conv, http.StatusOK, "No exchange rate from USD to PHP on or before")
	conv = b.Get(web.ExchangeRatesPath + "?amount=100.5&from=JPY&to=USD")
	testkit.WantPage(t, "bad amount", conv, http.StatusOK, `id="convert-amount-error">Amount must be a number with at most 0 decimal places<`)

	// Another person's rate is not found from here.
	other := env.createUser(finance.PlanFree)
	theirs, err := env.srv.Ledger().CreateExchangeRate(context.Background(), other.ID, finance.ExchangeRateRequest{
		Base: finance.Of("EUR"), Quote: finance.Of("PHP"), Date: finance.Of(finance.NewDate(2026, 11, 20)),
		Rate: finance.Of(mustRate(t, "68.1"))})
	if err != nil {
		t.Fatal(err)
	}
	x = b.Post(web.ExchangeRatesPath+"/"+theirs.ID+"/delete", url.Values{"csrf": {tok}})
	testkit.WantPage(t, "another's", x, http.StatusNotFound, "Exchange rate not found")
	if got := manualRatesOf(t, env, other); len(got) != 1 {
		t.Errorf("the other person's rates: %v", got)
	}

	mine := env.srv.Ledger()
	list, _ := mine.ListExchangeRates(context.Background(), u.ID, finance.ExchangeRateFilter{}, finance.ListParams{Page: 1, Limit: 10})
	testkit.WantRedirect(t, "delete", b.Post(web.ExchangeRatesPath+"/"+list.Items[0].ID+"/delete", url.Values{"csrf": {tok}}),
		web.ExchangeRatesPath+"?notice=rate-deleted")
	if got := manualRatesOf(t, env, u); len(got) != 0 {
		t.Errorf("after delete: %v", got)
	}
}

func mustRate(t *testing.T, s string) finance.FXRate {
	t.Helper()
	r, err := finance.ParseFXRate(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
