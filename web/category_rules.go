package web

// The Category rules page under Settings: the person's rules for imported
// rows, in the order they are tried, with forms to add, change, move and
// delete one. It calls the same service as /api/v1/category-rules.

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/finance"
)

// CategoryRulesPath is the Category rules page.
const CategoryRulesPath = "/settings/category-rules"

func (s *Site) registerWebAppCategoryRuleRoutes() {
	s.page(http.MethodGet, CategoryRulesPath, s.categoryRulesPage)
	s.oncePage(CategoryRulesPath, s.categoryRuleCreate)
	s.page(http.MethodPost, CategoryRulesPath+"/:id", s.categoryRuleUpdate)
	s.page(http.MethodPost, CategoryRulesPath+"/:id/move", s.categoryRuleMove)
	s.page(http.MethodPost, CategoryRulesPath+"/:id/delete", s.categoryRuleDelete)
}

// ruleForm is a rule's form: its values, or what was sent. Category is
// "kind:name", the value of the category picker.
type ruleForm struct {
	Description, Payee, AmountMin, AmountMax, Category string
}

// ruleRow is one rule with its edit form.
type ruleRow struct {
	finance.CategoryRule
	Form   ruleForm
	Fields map[string]string
	Last   bool // the last rule: it cannot move down
}

type categoryRulesData struct {
	Rules     []ruleRow
	Expense   []finance.CategoryOption // the picker's choices
	Income    []finance.CategoryOption
	New       ruleForm
	NewFields map[string]string
	Full      bool // the person keeps the most rules allowed
}

// Max is the most rules a person keeps.
func (d categoryRulesData) Max() int { return finance.MaxCategoryRules }

// ruleFieldsView is what the rule fields show: P prefixes the ids, F holds
// the values, E the problems by field, D the page (the category picker's choices).
type ruleFieldsView struct {
	P string
	F ruleForm
	E map[string]string
	D categoryRulesData
}

func ruleFields(prefix string, f ruleForm, problems map[string]string, d categoryRulesData) ruleFieldsView {
	return ruleFieldsView{P: prefix, F: f, E: problems, D: d}
}

// categoryRulesView lists every rule of the user with its form. The create
// form starts from the query (?description=…&category=kind:name), which the
// import page's "Make a rule" link fills from a row.
func (s *Site) categoryRulesView(r *http.Request, u finance.User) (categoryRulesData, error) {
	ctx := r.Context()
	rules, err := s.ledger.AllCategoryRules(ctx, u.ID)
	if err != nil {
		return categoryRulesData{}, err
	}
	q := r.URL.Query()
	d := categoryRulesData{NewFields: map[string]string{}, Full: len(rules) >= finance.MaxCategoryRules,
		New: ruleForm{Description: q.Get("description"), Category: q.Get("category")}}
	if d.Expense, err = s.ledger.CategoryOptions(ctx, u.ID, finance.KindExpense); err != nil {
		return categoryRulesData{}, err
	}
	if d.Income, err = s.ledger.CategoryOptions(ctx, u.ID, finance.KindIncome); err != nil {
		return categoryRulesData{}, err
	}
	for i, rule := range rules {
		d.Rules = append(d.Rules, ruleRow{CategoryRule: rule, Form: formOfRule(rule), Fields: map[string]string{}, Last: i == len(rules)-1})
	}
	return d, nil
}

// formOfRule is a rule's values as its form shows them.
func formOfRule(r finance.CategoryRule) ruleForm {
	f := ruleForm{Description: deref(r.DescriptionContains), Payee: deref(r.PayeeEquals),
		Category: string(r.CategoryKind) + ":" + r.Category}
	if r.AmountMin != nil {
		f.AmountMin = r.AmountMin.String()
	}
	if r.AmountMax != nil {
		f.AmountMax = r.AmountMax.String()
	}
	return f
}

func (s *Site) categoryRulesPage(w http.ResponseWriter, r bunrouter.Request) error {
	return showPage(s, w, r, "categoryrules", "Category rules", "settings", s.categoryRulesView)
}

// sentRule reads a rule's form.
func sentRule(f url.Values) ruleForm {
	return ruleForm{Description: f.Get("description_contains"), Payee: f.Get("payee_equals"),
		AmountMin: f.Get("amount_min"), AmountMax: f.Get("amount_max"), Category: f.Get("category")}
}

// request is the form as the API's body would carry it. A blank condition
// is removed (null), so clearing a field on the edit form clears it.
func (f ruleForm) request() finance.CategoryRuleRequest {
	kind, name, _ := strings.Cut(f.Category, ":")
	var req finance.CategoryRuleRequest
	formRequest(&req, map[string]string{"description_contains": f.Description, "payee_equals": f.Payee,
		"amount_min": f.AmountMin, "amount_max": f.AmountMax, "category": name, "category_kind": kind},
		"description_contains", "payee_equals", "amount_min", "amount_max")
	return req
}

// categoryRuleDone ends a rule write: back to the list on success, else the
// list again with the refusal beside the form that was sent (the create
// form when id is "").
func (s *Site) categoryRuleDone(w http.ResponseWriter, r *http.Request, u finance.User, sid, id string, sent *ruleForm, notice string, err error) error {
	if err == nil {
		return Redirect(w, r, CategoryRulesPath+"?notice="+notice)
	}
	p := settingsView(r, &u, sid, "Category rules")
	fields, ok := refuse(&p, "Not saved.", err)
	if !ok {
		return err
	}
	d, verr := s.categoryRulesView(r, u)
	if verr != nil {
		return verr
	}
	if id == "" {
		d.New, d.NewFields = *sent, fields
	}
	for i := range d.Rules {
		if row := &d.Rules[i]; row.ID == id && id != "" {
			if sent != nil {
				row.Form = *sent
			}
			row.Fields = fields
		}
	}
	p.Data = d
	return s.render(w, r, "categoryrules", p)
}

func (s *Site) categoryRuleCreate(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok || err != nil {
		return err
	}
	sent := sentRule(r.PostForm)
	_, err = s.ledger.CreateCategoryRule(r.Context(), u.ID, sent.request())
	return s.categoryRuleDone(w, r.Request, u, sid, "", &sent, "rule-created", err)
}

// categoryRuleChange runs a change of the rule the path names (an update,
// a move, a delete) and ends it; change returns the form it was sent, if
// any, to show again beside a refusal.
func (s *Site) categoryRuleChange(w http.ResponseWriter, r bunrouter.Request, notice string,
	change func(ctx context.Context, userID, id string, form url.Values) (*ruleForm, error)) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok || err != nil {
		return err
	}
	id := r.Param("id")
	var sent *ruleForm
	err = finance.ErrNotFound
	if finance.ValidID(id) {
		sent, err = change(r.Context(), u.ID, id, r.PostForm)
	}
	return s.categoryRuleDone(w, r.Request, u, sid, id, sent, notice, err)
}

func (s *Site) categoryRuleUpdate(w http.ResponseWriter, r bunrouter.Request) error {
	return s.categoryRuleChange(w, r, "rule-saved", func(ctx context.Context, userID, id string, form url.Values) (*ruleForm, error) {
		sent := sentRule(form)
		_, err := s.ledger.UpdateCategoryRule(ctx, userID, id, sent.request())
		return &sent, err
	})
}

// categoryRuleMove moves a rule one place up or down (the form's direction),
// as PUT /category-rules/{id} with the position next to its own does.
func (s *Site) categoryRuleMove(w http.ResponseWriter, r bunrouter.Request) error {
	return s.categoryRuleChange(w, r, "rule-moved", func(ctx context.Context, userID, id string, form url.Values) (*ruleForm, error) {
		rule, err := s.ledger.GetCategoryRule(ctx, userID, id)
		if err != nil {
			return nil, err
		}
		step := 1
		if form.Get("direction") == "up" {
			step = -1
		}
		_, err = s.ledger.UpdateCategoryRule(ctx, userID, id, finance.CategoryRuleRequest{Position: finance.Of(rule.Position + step)})
		return nil, err
	})
}

func (s *Site) categoryRuleDelete(w http.ResponseWriter, r bunrouter.Request) error {
	return s.categoryRuleChange(w, r, "rule-deleted", func(ctx context.Context, userID, id string, _ url.Values) (*ruleForm, error) {
		_, err := s.ledger.DeleteCategoryRule(ctx, userID, id)
		return nil, err
	})
}
