package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/oauth"
)

// scopeOption is one scope checkbox with its plain-language description.
type scopeOption struct {
	Name        string
	Description string
	Checked     bool
}

func scopeOptions(scopes []auth.Scope, checked func(auth.Scope) bool) []scopeOption {
	out := make([]scopeOption, len(scopes))
	for i, sc := range scopes {
		out[i] = scopeOption{Name: string(sc), Description: auth.ScopeDescriptions[sc], Checked: checked(sc)}
	}
	return out
}

// --- API keys -------------------------------------------------------------------

// keyExpiry is one expiry choice of the create form.
type keyExpiry struct {
	Value, Label string
	In           time.Duration
}

// keyExpiries are the expiry choices of the create form.
var keyExpiries = []keyExpiry{
	{"7d", "In 7 days", 7 * 24 * time.Hour},
	{"30d", "In 30 days", 30 * 24 * time.Hour},
	{"90d", "In 90 days", 90 * 24 * time.Hour},
	{"365d", "In a year", 365 * 24 * time.Hour},
	{"never", "Never", 0},
}

type expiryOption struct {
	Value, Label string
	Selected     bool
}

// keyForm is what the create form holds: its defaults, a preset, or what the
// user sent when the key could not be created.
type keyForm struct {
	Name   string
	Scopes []string
	Expiry string
}

// keyPreset is a ready-made choice for the create form. Its link renders the
// form filled in (the pages run no script), and everything stays editable
// before the key is created.
type keyPreset struct {
	Slug, Label, Description string
	Form                     keyForm
}

// keyPresets are offered above the create form.
var keyPresets = []keyPreset{{
	Slug: "mcp-agent", Label: "MCP agent",
	Description: "For an AI agent such as Claude or Cursor: it reads your data and records expenses through the MCP endpoint.",
	Form: keyForm{Name: "MCP agent", Expiry: "90d",
		Scopes: []string{string(auth.ScopeRead), string(auth.ScopeExpensesWrite), string(auth.ScopeMCP)}},
}}

// defaultKeyForm is the create form as it first appears: read-only, 90 days.
var defaultKeyForm = keyForm{Scopes: []string{string(auth.ScopeRead)}, Expiry: "90d"}

type keyView struct {
	ID, Name, PublicID, Status, Scopes, Created, Expires, LastUsed string
	Writes                                                         recentWrites
}

// newKeyView is the key created by this request, shown once, with the
// settings an MCP client needs when the key may open MCP sessions.
type newKeyView struct {
	Name, Key string
	MCP       *mcpSetup
}

type apiKeysData struct {
	Pro      bool
	Keys     []keyView
	NewKey   *newKeyView
	Presets  []keyPreset
	Preset   string // the slug of the preset that filled the form, if one did
	Form     keyForm
	Fields   map[string]string
	Scopes   []scopeOption
	Expiries []expiryOption
}

// apiKeysView builds the page with the create form holding form.
func (s *Site) apiKeysView(r *http.Request, u finance.User, form keyForm) (apiKeysData, error) {
	keys, err := s.auth.ListKeys(r.Context(), u.ID)
	if err != nil {
		return apiKeysData{}, err
	}
	show, err := s.displayFor(r.Context(), u.ID)
	if err != nil {
		return apiKeysData{}, err
	}
	now := time.Now()
	d := apiKeysData{Pro: u.Plan == finance.PlanPro, Presets: keyPresets, Form: form, Fields: map[string]string{}}
	for _, k := range keys {
		writes, err := s.recentWrites(r.Context(), u.ID, k.ID)
		if err != nil {
			return apiKeysData{}, err
		}
		d.Keys = append(d.Keys, keyView{
			ID: k.ID, Name: k.Name, PublicID: k.PublicID, Status: k.Status(now),
			Scopes: auth.JoinScopes(k.Scopes), Created: show.Time(&k.CreatedAt, ""),
			Expires: show.Time(k.ExpiresAt, "never"), LastUsed: show.Time(k.LastUsedAt, "never"), Writes: writes,
		})
	}
	all := append([]auth.Scope{auth.ScopeAll}, auth.Scopes...)
	d.Scopes = scopeOptions(all, func(sc auth.Scope) bool { return slices.Contains(form.Scopes, string(sc)) })
	for _, e := range keyExpiries {
		d.Expiries = append(d.Expiries, expiryOption{Value: e.Value, Label: e.Label, Selected: e.Value == form.Expiry})
	}
	return d, nil
}

// apiKeysPage shows the keys and the create form, filled in from the preset
// the query names, if any.
func (s *Site) apiKeysPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	form, preset := defaultKeyForm, ""
	if i := slices.IndexFunc(keyPresets, func(p keyPreset) bool { return p.Slug == r.URL.Query().Get("preset") }); i >= 0 {
		form, preset = keyPresets[i].Form, keyPresets[i].Slug
	}
	d, err := s.apiKeysView(r.Request, u, form)
	if err != nil {
		return err
	}
	d.Preset = preset
	return s.render(w, r.Request, "apikeys", pageView{Title: "API keys", Nav: "settings", User: &u, CSRF: auth.CSRFToken(sid),
		Notice: notices[r.URL.Query().Get("notice")], Data: d})
}

// apiKeysCreate creates a key and shows it in this response only: it is
// never stored or put in a URL, and the page is not cacheable.
func (s *Site) apiKeysCreate(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	f := r.PostForm
	sent := keyForm{Name: f.Get("name"), Scopes: f["scopes"], Expiry: f.Get("expires_in")}
	req := auth.CreateKeyRequest{UserID: u.ID, Name: sent.Name, Scopes: sent.Scopes}
	i := slices.IndexFunc(keyExpiries, func(e keyExpiry) bool { return e.Value == sent.Expiry })
	var fields map[string]string
	if i < 0 {
		fields = map[string]string{"expires_in": "must be one of the choices offered"}
	} else {
		req.ExpiresIn = keyExpiries[i].In
	}
	var k auth.APIKey
	var key string
	if fields == nil {
		k, key, err = s.auth.CreateKey(r.Context(), req)
		var ve *finance.ValidationError
		if errors.As(err, &ve) {
			fields = ve.Fields
		} else if err != nil {
			return err
		}
	}
	p := pageView{Title: "API keys", Nav: "settings", User: &u, CSRF: auth.CSRFToken(sid)}
	form := defaultKeyForm
	if fields != nil {
		form = sent
		p.status = http.StatusBadRequest
		p.refuseFields("The key was not created.", &finance.ValidationError{Fields: fields})
	}
	d, err := s.apiKeysView(r.Request, u, form)
	if err != nil {
		return err
	}
	if fields != nil {
		d.Fields = fields
	} else {
		d.NewKey = &newKeyView{Name: k.Name, Key: key}
		// The check the MCP endpoint applies to this key ("all" passes too).
		if (auth.Principal{Method: auth.MethodAPIKey, Scopes: k.Scopes}).Allow(auth.MCPConnect) == nil {
			d.NewKey.MCP = newMCPSetup(s.mcpURL(), key)
		}
	}
	p.Data = d
	return s.render(w, r.Request, "apikeys", p)
}

// mcpSetup is what an MCP client needs to connect with an API key, ready to
// copy: the endpoint, the Claude Code command (holding the key), and a
// project's .mcp.json, which reads the key from the environment so that the
// file can be shared or committed without it. They follow docs/mcp.md.
type mcpSetup struct {
	URL, ClaudeCode, MCPJSON string
}

// mcpServerName is the name the client configurations give this server.
const mcpServerName = "finance"

func newMCPSetup(endpoint, key string) *mcpSetup {
	type server struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	doc := map[string]map[string]server{"mcpServers": {mcpServerName: {Type: "http", URL: endpoint,
		Headers: map[string]string{"Authorization": "Bearer ${FINANCE_API_KEY}"}}}}
	b, _ := json.MarshalIndent(doc, "", "  ") // strings only: it cannot fail
	return &mcpSetup{
		URL:        endpoint,
		ClaudeCode: "claude mcp add --transport http " + mcpServerName + " " + endpoint + ` --header "Authorization: Bearer ` + key + `"`,
		MCPJSON:    string(b),
	}
}

// mcpURL is the MCP endpoint as clients reach it.
func (s *Site) mcpURL() string { return s.cfg.BaseURL + oauth.MCPPath }

func (s *Site) apiKeysRevoke(w http.ResponseWriter, r bunrouter.Request) error {
	u, _, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	if _, err := s.auth.RevokeKey(r.Context(), u.ID, r.Param("id")); err != nil && !errors.Is(err, finance.ErrInvalidStatus) {
		return err
	}
	setPageHeaders(w.Header(), "")
	http.Redirect(w, r.Request, APIKeysPath+"?notice=revoked", http.StatusSeeOther)
	return nil
}

// --- connected apps ------------------------------------------------------------

type grantView struct {
	ID, Name, Scopes, Created, LastUsed string
	Writes                              recentWrites
}

type appsData struct {
	Grants []grantView
	MCPURL string
}

func (s *Site) appsPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	if s.oauth == nil {
		return httperr.RouteNotFound(r.Request)
	}
	grants, err := s.oauth.ListGrants(r.Context(), u.ID)
	if err != nil {
		return err
	}
	show, err := s.displayFor(r.Context(), u.ID)
	if err != nil {
		return err
	}
	d := appsData{MCPURL: s.mcpURL()}
	for _, g := range grants {
		writes, err := s.recentWrites(r.Context(), u.ID, g.ID)
		if err != nil {
			return err
		}
		d.Grants = append(d.Grants, grantView{
			ID: g.ID, Name: clientDisplayName(g.ClientName), Scopes: auth.JoinScopes(g.Scopes),
			Created: show.Time(&g.CreatedAt, ""), LastUsed: show.Time(g.LastUsedAt, "not yet"), Writes: writes,
		})
	}
	return s.render(w, r.Request, "apps", pageView{Title: "Connected apps", Nav: "settings", User: &u, CSRF: auth.CSRFToken(sid),
		Notice: notices[r.URL.Query().Get("notice")], Data: d})
}

func (s *Site) appsRevoke(w http.ResponseWriter, r bunrouter.Request) error {
	u, _, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	if s.oauth == nil {
		return httperr.RouteNotFound(r.Request)
	}
	if err := s.oauth.RevokeGrant(r.Context(), u.ID, r.Param("id")); err != nil {
		return err
	}
	setPageHeaders(w.Header(), "")
	http.Redirect(w, r.Request, ConnectedAppPath+"?notice=disconnected", http.StatusSeeOther)
	return nil
}

// clientDisplayName is how an app is named on the pages.
func clientDisplayName(name string) string {
	if name == "" {
		return "An unnamed app"
	}
	return name
}
