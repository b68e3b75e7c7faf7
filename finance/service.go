package finance

import (
	"context"
	"strings"
	"sync"
	"time"
)

// Service holds the use cases of the ledger. REST handlers and (through them)
// MCP tools call it; it validates input once, enforces state rules, and makes
// every multi-row change in one Store transaction.
type Service struct {
	store Store
	now   func() time.Time
	cache prefsCache // the users' app settings (settings.go)
}

// NewService returns a Service over st.
func NewService(st Store) *Service { return &Service{store: guardedStore{st}, now: time.Now} }

// SetClock replaces the clock (tests pin "today").
func (s *Service) SetClock(now func() time.Time) { s.now = now }

// Now is the time on the service's clock. Callers that keep time-bound
// records beside the ledger's (idempotency keys) read it here, so that a
// test pinning the clock moves them too.
func (s *Service) Now() time.Time { return s.now() }

// Store is the persistence the domain needs. Read returns a Repo on the read
// pool; Write runs fn in one write transaction and commits only if fn returns nil.
type Store interface {
	Read() Repo
	Write(ctx context.Context, fn func(Repo) error) error
}

// Repo is every query and mutation of the ledger, always scoped to one user
// by an explicit userID argument. Lookups of a missing or foreign record
// return an error wrapping ErrNotFound.
type Repo interface {
	CategoryRepo
	CategoryRuleRepo
	AccountRepo
	CardRepo
	ExpenseRepo
	HistoryRepo
	IncomeRepo
	StatementRepo
	PlanRepo
	BillRepo
	CardFigureRepo
	LogRepo
	SettingsRepo
	ReportRepo
	LoanRepo
	WarningRepo
	ImportRepo
	TransferRepo
	ClearedRepo
	IncomeTemplateRepo
	ReminderRepo
	ExchangeRateRepo
	CurrencyRepo
	RateRangeRepo
}

// DefaultTimezone defines "today" until the user chooses another (app settings).
const DefaultTimezone = "Asia/Manila"

// stamp is the time written to created_at and updated_at: UTC, whole seconds
// (RFC 3339 on the wire; ties sort by the time-ordered id).
func (s *Service) stamp() time.Time { return s.now().UTC().Truncate(time.Second) }

// defaultLocation is loaded once: time.LoadLocation reads the zone database
// on every call, which would cost more than the rest of a small request.
var defaultLocation = sync.OnceValue(func() *time.Location {
	loc, err := time.LoadLocation(DefaultTimezone)
	if err != nil {
		return time.UTC
	}
	return loc
})

// today is the current date in the user's timezone.
func (s *Service) today(ctx context.Context, userID string) Date {
	return Today(s.now(), s.location(ctx, userID))
}

// location is the user's timezone (app settings). It runs on most
// requests (statement generation needs today), so it is read from the
// settings cache: a map lookup once the user's settings are loaded.
func (s *Service) location(ctx context.Context, userID string) *time.Location {
	return s.settingsOrDefault(ctx, userID).loc
}

// nameKey is the case-insensitive identity of a name: trimmed and lowercased
// with Unicode rules. Uniqueness and name lookups compare keys.
func nameKey(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// Status values shared by several records.
const (
	StatusActive   = "active"
	StatusArchived = "archived"
	StatusVoided   = "voided"
	StatusAll      = "all"
)
