package web

import (
	"html/template"

	"github.com/finance-app/finance/finance"
)

// Forms that count once. A second click on Save while the first is on its
// way, or a form sent again after its answer was lost, must not record the
// money twice, and must not answer with an error (the name is taken, the
// statement is already paid) about a write that succeeded. Each form that
// records something carries a fresh id in OnceField, and its route is
// marked Route.Once: the server that mounts the pages runs it once per id,
// as an API write runs once per Idempotency-Key. The first request runs,
// and its redirect is kept for the signed-in user in the transaction of the
// write; a repeat waits for the first to commit, then gets the same
// Redirect and writes nothing.

// OnceField names the hidden field that holds a form's once id.
const OnceField = "once"

// onceInput is the hidden field with a fresh once id: every rendering of a
// form is a new form.
func onceInput() template.HTML {
	return template.HTML(`<input type="hidden" name="` + OnceField + `" value="` + finance.NewID() + `">`)
}
