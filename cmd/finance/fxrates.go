package main

import (
	"fmt"
	"time"

	"github.com/finance-app/finance/fxrates"
)

// defaultFXInterval is how often serve fetches exchange rates: the ECB
// publishes once a working day around 16:00 CET, so four tries a day take
// each day's rates within hours without asking it more than needed.
const defaultFXInterval = 6 * time.Hour

// fxFetcher is the exchange rates' fetcher the flags ask for, nil when off.
func (f serveFlags) fxFetcher() (*fxrates.Fetcher, error) {
	if f.fxSource == "off" {
		if f.fxURL != "" {
			return nil, fmt.Errorf("--fx-url needs --fx-source ecb or frankfurter")
		}
		return nil, nil
	}
	if f.fxInterval < time.Minute {
		return nil, fmt.Errorf("--fx-interval %s: want at least 1m, such as 6h", f.fxInterval)
	}
	fx, err := fxrates.New(f.fxSource, f.fxURL)
	if err != nil {
		return nil, fmt.Errorf("--fx-source %s: %w", f.fxSource, err)
	}
	return fx, nil
}
