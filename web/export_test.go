package web

import "github.com/finance-app/finance/finance"

// What the tests of package web_test, which run the pages through the
// server that mounts them, read of the package's insides.
var (
	NewDisplay      = newDisplay
	PeriodCell      = periodCell
	Deref           = deref
	MaxPageValueLen = maxPageValueLen
	ConvertPath     = convertPath
)

// PHPMoney is m as a page shows it in pesos.
func PHPMoney(m finance.Money) string { return display{currency: "PHP"}.Money(m) }

// HasTemplate reports whether the page template name exists.
func HasTemplate(name string) bool { return pageTemplates[name] != nil }

// TemplateParses is how many template files were parsed since start.
func TemplateParses() int64 { return templateParses.Load() }

// ParsePageTemplate parses the page template name, if it was not yet.
func ParsePageTemplate(name string) error { _, err := pageTemplate(name); return err }

// PageNames are the names of the page templates.
var PageNames = pageNames

// ReportTitle is the heading of the report page name.
func ReportTitle(name string) string { return reportInfos[name].Title }
