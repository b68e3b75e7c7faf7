package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/metrics"
)

// answers is a reminder sender that answers each send with the next of its
// answers.
type answers []struct {
	sent bool
	err  error
}

func (a *answers) SendReminder(context.Context, string, string) (bool, error) {
	next := (*a)[0]
	*a = (*a)[1:]
	return next.sent, next.err
}

// TestRemindersCounted: each delivery is counted by channel and outcome,
// and the sender's answer reaches the scheduler unchanged.
func TestRemindersCounted(t *testing.T) {
	m := metrics.New("test", nil)
	failed := errors.New("telegram: chat not found")
	inner := &answers{{true, nil}, {false, nil}, {false, failed}, {false, nil}}
	send := countedReminders{inner, m}
	for _, want := range *inner {
		sent, err := send.SendReminder(context.Background(), "u1", "Electricity is due tomorrow")
		if sent != want.sent || !errors.Is(err, want.err) {
			t.Errorf("send answered %v, %v; want %v, %v", sent, err, want.sent, want.err)
		}
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, metrics.Path, nil))
	s := testkit.ParseScrape(t, rec.Body)
	for _, c := range []struct {
		n                float64
		channel, outcome string
	}{{1, "telegram", "sent"}, {1, "telegram", "failed"}, {2, "home", "sent"}} {
		if got, _ := s.Value("finance_reminders_total", "channel", c.channel, "outcome", c.outcome); got != c.n {
			t.Errorf("%s %s: %v counted, want %v", c.channel, c.outcome, got, c.n)
		}
	}
}
