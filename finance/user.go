package finance

import (
	"net/mail"
	"strings"
	"time"
)

// Plan is a user's subscription plan. API keys and OAuth connections are Pro features.
type Plan string

const (
	PlanPro  Plan = "pro"
	PlanFree Plan = "free"
)

// ParsePlan accepts "pro" or "free".
func ParsePlan(s string) (Plan, error) {
	switch p := Plan(strings.TrimSpace(strings.ToLower(s))); p {
	case PlanPro, PlanFree:
		return p, nil
	}
	return "", Invalid("plan", "must be pro or free")
}

// User is a person with their own, fully separate data.
type User struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	Plan      Plan      `json:"plan"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Password length bounds.
const (
	MinPasswordLen = 8
	MaxPasswordLen = 128
)

// NormalizeEmail trims and lowercases an address and checks its form. Emails
// are unique case-insensitively, so they are stored lowercased.
func NormalizeEmail(s string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(s))
	if e == "" {
		return "", Invalid("email", "is required")
	}
	a, err := mail.ParseAddress(e)
	// PlainText on what was sent: ToLower turns bytes that are not UTF-8
	// into U+FFFD, which would pass.
	if err != nil || a.Address != e || len(e) > 254 || !PlainText(s) {
		return "", Invalid("email", "must be a valid email address")
	}
	return e, nil
}

// CheckPassword applies the password length rule.
func CheckPassword(field, p string) error {
	if n := len([]rune(p)); n < MinPasswordLen || n > MaxPasswordLen {
		return Invalid(field, "must be 8 to 128 characters")
	}
	return nil
}
