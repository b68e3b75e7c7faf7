package web

// The Exchange rates page under Settings: the rate each pair converts with
// today, a converter, and the person's own rates to add or delete. It calls
// the same service as /api/v1/exchange-rates.

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/finance"
)

// ExchangeRatesPath is the Exchange rates page.
const ExchangeRatesPath = "/settings/exchange-rates"

func (s *Site) registerWebAppExchangeRateRoutes() {
	s.page(http.MethodGet, ExchangeRatesPath, s.exchangeRatesPage)
	s.oncePage(ExchangeRatesPath, s.exchangeRateCreate)
	s.page(http.MethodPost, ExchangeRatesPath+"/:id/delete", s.exchangeRateDelete)
}

// rateForm is the add form's values, as sent.
type rateForm struct{ Base, Quote, Date, Rate string }

type exchangeRatesData struct {
	Show       display
	Latest     []finance.ExchangeRate // per pair, the rate a conversion today uses
	Mine       []finance.ExchangeRate // the person's own, newest first
	MoreOfMine bool                   // more than the page lists
	Currencies []choice
	New        rateForm
	NewFields  map[string]string
	// The converter: what was asked, and its answer or why there is none.
	Convert       finance.ConversionRequest
	Converted     *finance.Conversion
	ConvertFields map[string]string
	ConvertError  string
}

// maxMineListed is how many of the person's own rates the page lists; the
// API lists them all.
const maxMineListed = 100

func (s *Site) exchangeRatesView(r *http.Request, u finance.User) (exchangeRatesData, error) {
	ctx := r.Context()
	d := exchangeRatesData{NewFields: map[string]string{}, ConvertFields: map[string]string{}}
	var err error
	if d.Latest, err = s.ledger.LatestExchangeRates(ctx, u.ID); err != nil {
		return d, err
	}
	mine, err := s.ledger.ListExchangeRates(ctx, u.ID, finance.ExchangeRateFilter{Source: finance.RateSourceManual},
		finance.ListParams{Page: 1, Limit: maxMineListed, SortBy: "date", Desc: true})
	if err != nil {
		return d, err
	}
	d.Mine, d.MoreOfMine = mine.Items, mine.Pagination.TotalItems > len(mine.Items)
	for _, c := range finance.Currencies {
		d.Currencies = append(d.Currencies, choice{Value: c.Code, Label: c.Code + " · " + c.Name})
	}
	if d.Show, err = s.displayFor(ctx, u.ID); err != nil {
		return d, err
	}
	d.New.Date = d.Show.today.String()
	// The converter is a GET form: its answer is on the page's address.
	q := r.URL.Query()
	if q.Has("amount") || q.Has("from") || q.Has("to") {
		d.Convert = finance.ConversionRequest{Amount: q.Get("amount"), From: q.Get("from"), To: q.Get("to"), Date: q.Get("date")}
		c, err := s.ledger.Convert(ctx, u.ID, d.Convert)
		switch {
		case err == nil:
			d.Converted = &c
		case problems(err) != nil:
			d.ConvertFields = problems(err)
		default:
			if _, ok := pageRefusal(err); !ok {
				return d, err
			}
			d.ConvertError = sentence("", err.Error())
		}
	}
	return d, nil
}

func (s *Site) exchangeRatesPage(w http.ResponseWriter, r bunrouter.Request) error {
	return showPage(s, w, r, "exchangerates", "Exchange rates", "settings", s.exchangeRatesView)
}

func (s *Site) exchangeRateCreate(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok || err != nil {
		return err
	}
	f := r.PostForm
	sent := rateForm{Base: f.Get("base"), Quote: f.Get("quote"), Date: f.Get("date"), Rate: f.Get("rate")}
	var req finance.ExchangeRateRequest
	formRequest(&req, map[string]string{"base": sent.Base, "quote": sent.Quote, "date": sent.Date, "rate": sent.Rate})
	_, err = s.ledger.CreateExchangeRate(r.Context(), u.ID, req)
	return s.exchangeRateDone(w, r.Request, u, sid, &sent, "rate-created", err)
}

func (s *Site) exchangeRateDelete(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok || err != nil {
		return err
	}
	err = finance.ErrNotFound
	if id := r.Param("id"); finance.ValidID(id) {
		_, err = s.ledger.DeleteExchangeRate(r.Context(), u.ID, id)
	}
	return s.exchangeRateDone(w, r.Request, u, sid, nil, "rate-deleted", err)
}

// exchangeRateDone ends a write: back to the page on success, else the page
// again with the refusal (beside the add form's fields when it was sent).
func (s *Site) exchangeRateDone(w http.ResponseWriter, r *http.Request, u finance.User, sid string, sent *rateForm, notice string, err error) error {
	if err == nil {
		return Redirect(w, r, ExchangeRatesPath+"?notice="+notice)
	}
	p := settingsView(r, &u, sid, "Exchange rates")
	fields, ok := refuse(&p, "Not saved.", err)
	if !ok {
		return err
	}
	d, verr := s.exchangeRatesView(r, u)
	if verr != nil {
		return verr
	}
	if sent != nil {
		d.New, d.NewFields = *sent, fields
	}
	p.Data = d
	return s.render(w, r, "exchangerates", p)
}

// rateCurrencyView is what the "ratecurrency" picker shows: P prefixes its
// id, N is its field, L its label, V the value, E the problem, C the choices.
type rateCurrencyView struct {
	P, N, L, V, E string
	C             []choice
}

func rateCurrency(prefix, name, label, value, problem string, choices []choice) rateCurrencyView {
	return rateCurrencyView{P: prefix, N: name, L: label, V: value, E: problem, C: choices}
}

// rateSource names a rate's source (a string, or a conversion's *string) in words.
func rateSource(source any) string {
	s, _ := source.(string)
	if p, ok := source.(*string); ok && p != nil {
		s = *p
	}
	return map[string]string{finance.RateSourceECB: "ECB", finance.RateSourceFrankfurter: "Frankfurter",
		finance.RateSourceManual: "your own"}[s]
}
