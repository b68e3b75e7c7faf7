package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
)

func fxRate(t *testing.T, base, quote, date, value, source string) finance.ExchangeRate {
	t.Helper()
	d, err := finance.ParseDate(date)
	if err != nil {
		t.Fatal(err)
	}
	v, err := finance.ParseFXRate(value)
	if err != nil {
		t.Fatal(err)
	}
	return finance.ExchangeRate{ID: finance.NewID(), Base: base, Quote: quote, Date: d, Rate: v, Source: source,
		CreatedAt: time.Date(2026, 11, 20, 16, 0, 0, 0, time.UTC)}
}

func TestLatestExchangeRateOnOrBeforeWithManualFirst(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	ana, ben := createUser(t, db, "ana@example.com"), createUser(t, db, "ben@example.com")
	fetched := []finance.ExchangeRate{
		fxRate(t, "USD", "PHP", "2026-11-18", "58.10", finance.RateSourceECB),
		fxRate(t, "USD", "PHP", "2026-11-20", "58.90", finance.RateSourceECB),
		fxRate(t, "USD", "PHP", "2026-11-23", "59.30", finance.RateSourceECB),
	}
	anaManual := fxRate(t, "USD", "PHP", "2026-11-20", "59.10", finance.RateSourceManual)
	anaOld := fxRate(t, "USD", "PHP", "2026-11-19", "60", finance.RateSourceManual)
	if err := db.Write(ctx, func(tx finance.Repo) error {
		if _, err := tx.InsertFetchedExchangeRates(ctx, fetched); err != nil {
			return err
		}
		if err := tx.InsertManualExchangeRate(ctx, ana.ID, anaManual); err != nil {
			return err
		}
		return tx.InsertManualExchangeRate(ctx, ana.ID, anaOld)
	}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		user           string
		date           string
		want, wantDate string
		wantSource     string
		wantNone       bool
	}{
		{ana.ID, "2026-11-17", "", "", "", true},
		{ana.ID, "2026-11-18", "58.1", "2026-11-18", "ecb", false},
		{ana.ID, "2026-11-19", "60", "2026-11-19", "manual", false},   // her own, newer than the fetched
		{ana.ID, "2026-11-20", "59.1", "2026-11-20", "manual", false}, // same date: manual wins
		{ana.ID, "2026-11-22", "59.1", "2026-11-20", "manual", false},
		{ana.ID, "2026-11-23", "59.3", "2026-11-23", "ecb", false}, // a newer fetched beats an older manual
		{ben.ID, "2026-11-19", "58.1", "2026-11-18", "ecb", false}, // Ana's rates are not Ben's
		{ben.ID, "2026-11-20", "58.9", "2026-11-20", "ecb", false},
	}
	for _, tt := range tests {
		d, _ := finance.ParseDate(tt.date)
		got, ok, err := db.Read().LatestExchangeRate(ctx, tt.user, "USD", "PHP", d)
		if err != nil {
			t.Fatal(err)
		}
		if tt.wantNone {
			if ok {
				t.Errorf("%s: got %+v, want none", tt.date, got)
			}
			continue
		}
		if !ok || got.Rate.String() != tt.want || got.Date.String() != tt.wantDate || got.Source != tt.wantSource {
			t.Errorf("%s (user %s): got %s of %s (%s), want %s of %s (%s)", tt.date, tt.user, got.Rate, got.Date,
				got.Source, tt.want, tt.wantDate, tt.wantSource)
		}
	}

	latest, err := db.Read().LatestExchangeRates(ctx, ben.ID)
	if err != nil || len(latest) != 1 || latest[0].Rate.String() != "59.3" {
		t.Errorf("Ben's latest: %+v, %v; want the fetched 59.3", latest, err)
	}
	all, total, err := db.Read().ExchangeRates(ctx, ana.ID, finance.ExchangeRateFilter{Source: finance.RateSourceManual},
		finance.ListParams{Page: 1, Limit: 10})
	if err != nil || total != 2 || len(all) != 2 || all[0].ID != anaManual.ID || all[1].ID != anaOld.ID {
		t.Errorf("Ana's manual rates: %+v (total %d), %v", all, total, err)
	}
	if _, total, _ := db.Read().ExchangeRates(ctx, ben.ID, finance.ExchangeRateFilter{}, finance.ListParams{Page: 1, Limit: 10}); total != 3 {
		t.Errorf("Ben reads %d rates, want the server's 3", total)
	}
}

// A fetch repeated adds nothing: the server's rates are unique per source,
// pair and date although they have no user.
func TestInsertFetchedExchangeRatesIsIdempotent(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	rates := []finance.ExchangeRate{
		fxRate(t, "EUR", "PHP", "2026-11-20", "68.115", finance.RateSourceECB),
		fxRate(t, "EUR", "JPY", "2026-11-20", "176.41", finance.RateSourceECB),
	}
	for i, want := range []int{2, 0} {
		var added int
		if err := db.Write(ctx, func(tx finance.Repo) error {
			// Fresh ids each time, as a new fetch makes.
			again := make([]finance.ExchangeRate, len(rates))
			for j, r := range rates {
				r.ID = finance.NewID()
				again[j] = r
			}
			var err error
			added, err = tx.InsertFetchedExchangeRates(ctx, again)
			return err
		}); err != nil || added != want {
			t.Fatalf("fetch %d: added %d, %v; want %d", i+1, added, err, want)
		}
	}
	// The same figures from another source are other rates.
	other := fxRate(t, "EUR", "PHP", "2026-11-20", "68.115", finance.RateSourceFrankfurter)
	if err := db.Write(ctx, func(tx finance.Repo) error {
		n, err := tx.InsertFetchedExchangeRates(ctx, []finance.ExchangeRate{other})
		if n != 1 {
			t.Errorf("frankfurter's rate added %d, want 1", n)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if count, err := db.QueryInt(ctx, "SELECT count(*) FROM exchange_rates"); err != nil || count != 3 {
		t.Fatalf("%d rows, %v; want 3", count, err)
	}
}

func mustFXRate(t *testing.T, s string) finance.FXRate {
	t.Helper()
	r, err := finance.ParseFXRate(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
