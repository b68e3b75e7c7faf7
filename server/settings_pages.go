package server

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/server/auth"
	"github.com/finance-app/finance/server/oauth"
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

// displayTime renders an instant for the pages (UTC: the server does not
// know the browser's time zone, and the pages use no script).
func displayTime(t *time.Time, zero string) string {
	if t == nil {
		return zero
	}
	return t.UTC().Format("2 Jan 2006 15:04 UTC")
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

type keyView struct {
	ID, Name, PublicID, Status, Scopes, Created, Expires, LastUsed string
}

type newKeyView struct{ Name, Key string }

type keyForm struct{ Name string }

type apiKeysData struct {
	Pro      bool
	Keys     []keyView
	NewKey   *newKeyView
	Form     keyForm
	Fields   map[string]string
	Scopes   []scopeOption
	Expiries []expiryOption
}

// apiKeysView builds the page; chosen are the ticked scopes and expiry of the form.
func (s *Server) apiKeysView(r *http.Request, u finance.User, chosen []string, expiry string) (apiKeysData, error) {
	keys, err := s.auth.ListKeys(r.Context(), u.ID)
	if err != nil {
		return apiKeysData{}, err
	}
	now := time.Now()
	d := apiKeysData{Pro: u.Plan == finance.PlanPro, Fields: map[string]string{}}
	for _, k := range keys {
		d.Keys = append(d.Keys, keyView{
			ID: k.ID, Name: k.Name, PublicID: k.PublicID, Status: k.Status(now),
			Scopes: auth.JoinScopes(k.Scopes), Created: displayTime(&k.CreatedAt, ""),
			Expires: displayTime(k.ExpiresAt, "never"), LastUsed: displayTime(k.LastUsedAt, "never"),
		})
	}
	all := append([]auth.Scope{auth.ScopeAll}, auth.Scopes...)
	d.Scopes = scopeOptions(all, func(sc auth.Scope) bool { return slices.Contains(chosen, string(sc)) })
	for _, e := range keyExpiries {
		d.Expiries = append(d.Expiries, expiryOption{Value: e.Value, Label: e.Label, Selected: e.Value == expiry})
	}
	return d, nil
}

func (s *Server) apiKeysPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	d, err := s.apiKeysView(r.Request, u, []string{string(auth.ScopeRead)}, "90d")
	if err != nil {
		return err
	}
	return s.render(w, r.Request, "apikeys", pageView{Title: "API keys", Nav: "keys", User: &u, CSRF: auth.CSRFToken(sid),
		Notice: notices[r.URL.Query().Get("notice")], Data: d})
}

// apiKeysCreate creates a key and shows it in this response only: it is
// never stored or put in a URL, and the page is not cacheable.
func (s *Server) apiKeysCreate(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	if err := checkForm(r.Request, sid); err != nil {
		return err
	}
	f := r.PostForm
	req := auth.CreateKeyRequest{UserID: u.ID, Name: f.Get("name"), Scopes: f["scopes"]}
	expiry := f.Get("expires_in")
	i := slices.IndexFunc(keyExpiries, func(e keyExpiry) bool { return e.Value == expiry })
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
	d, err := s.apiKeysView(r.Request, u, f["scopes"], expiry)
	if err != nil {
		return err
	}
	p := pageView{Title: "API keys", Nav: "keys", User: &u, CSRF: auth.CSRFToken(sid)}
	if fields != nil {
		d.Form = keyForm{Name: f.Get("name")}
		d.Fields = fields
		p.status = http.StatusBadRequest
		p.Error = "The key was not created: " + strings.Join(fieldProblems(fields), "; ") + "."
	} else {
		d.NewKey = &newKeyView{Name: k.Name, Key: key}
		d.Scopes = scopeOptions(append([]auth.Scope{auth.ScopeAll}, auth.Scopes...),
			func(sc auth.Scope) bool { return sc == auth.ScopeRead })
	}
	p.Data = d
	return s.render(w, r.Request, "apikeys", p)
}

// fieldProblems renders validation fields as "name is required".
func fieldProblems(fields map[string]string) []string {
	var out []string
	for _, k := range []string{"name", "scopes", "expires_in"} {
		if v, ok := fields[k]; ok {
			out = append(out, strings.ReplaceAll(k, "_", " ")+" "+v)
		}
	}
	return out
}

func (s *Server) apiKeysRevoke(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	if err := checkForm(r.Request, sid); err != nil {
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
}

type appsData struct {
	Grants []grantView
	MCPURL string
}

func (s *Server) appsPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	if s.oauth == nil {
		return errRouteNotFound(r.Request)
	}
	grants, err := s.oauth.ListGrants(r.Context(), u.ID)
	if err != nil {
		return err
	}
	d := appsData{MCPURL: s.cfg.BaseURL + oauth.MCPPath}
	for _, g := range grants {
		d.Grants = append(d.Grants, grantView{
			ID: g.ID, Name: clientDisplayName(g.ClientName), Scopes: auth.JoinScopes(g.Scopes),
			Created: displayTime(&g.CreatedAt, ""), LastUsed: displayTime(g.LastUsedAt, "not yet"),
		})
	}
	return s.render(w, r.Request, "apps", pageView{Title: "Connected apps", Nav: "apps", User: &u, CSRF: auth.CSRFToken(sid),
		Notice: notices[r.URL.Query().Get("notice")], Data: d})
}

func (s *Server) appsRevoke(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	if err := checkForm(r.Request, sid); err != nil {
		return err
	}
	if s.oauth == nil {
		return errRouteNotFound(r.Request)
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
