package web

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bunrouter"
	"golang.org/x/text/currency"
	"golang.org/x/text/language"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// --- the currency and timezone pickers of setup and app settings ----------------

// zonePicker is what the "zone-pickers" partial shows: a select of ISO 4217
// currencies by code and name, and a select of IANA zones grouped by their
// region, each with its choice.
type zonePicker struct {
	Currencies []choice
	Zones      []zoneGroup
	Currency   string // the chosen code
	Timezone   string // the chosen zone
	Fields     map[string]string
	// BrowserZone lets the page's script choose the browser's own zone
	// (setup only: on the settings page the saved zone is the person's choice).
	BrowserZone bool
}

type zoneGroup struct {
	Region string // "America", "Asia", ...
	Zones  []choice
}

func newZonePicker(currencyCode, timezone string, fields map[string]string) zonePicker {
	p := zonePicker{Currency: currencyCode, Timezone: timezone, Fields: fields}
	if p.Fields == nil {
		p.Fields = map[string]string{}
	}
	for _, c := range finance.Currencies {
		p.Currencies = append(p.Currencies, choice{Value: c.Code, Label: c.Code + " · " + c.Name})
	}
	if _, ok := finance.LookupCurrency(currencyCode); !ok && currencyCode != "" {
		// A code saved before codes were checked stays choosable until changed.
		p.Currencies = append([]choice{{Value: currencyCode, Label: currencyCode}}, p.Currencies...)
	}
	zones := finance.Timezones
	if timezone != "" && !slices.Contains(zones, timezone) {
		zones = append(slices.Clone(zones), timezone) // a saved zone outside the list, like Etc/GMT-3
		slices.Sort(zones)
	}
	for _, z := range zones {
		region, city, ok := strings.Cut(z, "/")
		if !ok {
			region, city = "Other", z
		}
		if n := len(p.Zones); n == 0 || p.Zones[n-1].Region != region {
			p.Zones = append(p.Zones, zoneGroup{Region: region})
		}
		g := &p.Zones[len(p.Zones)-1]
		g.Zones = append(g.Zones, choice{Value: z, Label: strings.ReplaceAll(city, "_", " ")})
	}
	return p
}

// currencyForLanguages picks the currency of the first language of an
// Accept-Language header whose region (said, or the likely one: "ja" is
// Japan) has one: en-US is USD, fil is PHP, de-DE is EUR, ja is JPY. It is
// finance.DefaultCurrency when none says.
func currencyForLanguages(acceptLanguage string) string {
	tags, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil {
		return finance.DefaultCurrency
	}
	for _, tag := range tags {
		if unit, conf := currency.FromTag(tag); conf != language.No {
			if c, ok := finance.LookupCurrency(unit.String()); ok {
				return c.Code
			}
		}
	}
	return finance.DefaultCurrency
}

// serverTimezone is the IANA name of the server's own zone: $TZ, else the
// zone /etc/localtime links to, else UTC (a container without a zone). The
// setup page starts from it, and the browser's zone corrects it.
func serverTimezone() string {
	candidates := []string{strings.TrimPrefix(os.Getenv("TZ"), ":")}
	if target, err := filepath.EvalSymlinks("/etc/localtime"); err == nil {
		if _, name, ok := strings.Cut(target, "zoneinfo/"); ok {
			candidates = append(candidates, name)
		}
	}
	for _, name := range candidates {
		if _, err := finance.LoadTimezone(name); err == nil && name != "" {
			return name
		}
	}
	return "UTC"
}

// pickerSettings are a posted form's currency and timezone as the body of
// PUT /user-settings/app would carry them.
func pickerSettings(f url.Values) finance.AppSettingsRequest {
	var req finance.AppSettingsRequest
	formRequest(&req, map[string]string{"currency": f.Get("currency"), "timezone": f.Get("timezone")})
	return req
}

// --- the first-run checklist on Home ---------------------------------------------

// ChecklistDismissPath puts Home's first-run checklist away.
const ChecklistDismissPath = "/checklist/dismiss"

// checklistStep is one step of the first-run checklist, ticked off once done.
type checklistStep struct {
	Label, Href string
	Done        bool
}

// checklist is Home's first-run checklist: add an account, add a card,
// record an expense, connect an agent. It ticks itself off from the user's
// data; nil once every step is done or the person put it away.
func (s *Site) checklist(r *http.Request, u finance.User) ([]checklistStep, error) {
	fs, err := s.ledger.FirstSteps(r.Context(), u.ID)
	if err != nil || fs.Dismissed {
		return nil, err
	}
	agent, err := s.agentConnected(r, u)
	if err != nil {
		return nil, err
	}
	steps := []checklistStep{
		{Label: "Add an account", Href: AccountsPath + "#new-heading", Done: fs.Account},
		{Label: "Add a card", Href: CardsPath + "#new-heading", Done: fs.Card},
		{Label: "Record an expense", Href: RecordPath, Done: fs.Expense},
		{Label: "Connect an agent", Href: APIKeysPath, Done: agent},
	}
	if !slices.ContainsFunc(steps, func(st checklistStep) bool { return !st.Done }) {
		return nil, nil
	}
	return steps, nil
}

// agentConnected reports whether an agent can reach the user's ledger: an
// API key that still works, or a connected app.
func (s *Site) agentConnected(r *http.Request, u finance.User) (bool, error) {
	keys, err := s.auth.ListKeys(r.Context(), u.ID)
	if err != nil {
		return false, err
	}
	now := time.Now()
	if slices.ContainsFunc(keys, func(k auth.APIKey) bool { return k.Status(now) == "active" }) {
		return true, nil
	}
	if s.oauth == nil {
		return false, nil
	}
	grants, err := s.oauth.ListGrants(r.Context(), u.ID)
	return len(grants) > 0, err
}

// checklistDismiss puts the checklist away for good and goes back Home.
func (s *Site) checklistDismiss(w http.ResponseWriter, r bunrouter.Request) error {
	u, _, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	if err := s.ledger.DismissChecklist(r.Context(), u.ID); err != nil {
		return err
	}
	return Redirect(w, r.Request, HomePath)
}
