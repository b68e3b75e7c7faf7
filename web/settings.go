package web

// The settings pages of the web app: a hub linking every settings page,
// the profile (with its picture), the password, the app settings and
// categories (budgets have a page of their own, budgets.go). Like the other
// pages they call the services the REST routes call (the picture and password through the same
// code as their routes) and show a refusal beside the field it concerns,
// in the API's words.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
)

// Paths of the settings pages.
const (
	SettingsPath    = "/settings"
	ProfilePath     = "/settings/profile"
	PasswordPath    = "/settings/password"
	AppSettingsPath = "/settings/app"
	CategoriesPath  = "/settings/categories"
	RemindersPath   = "/settings/reminders"
	MorePath        = "/more"
)

// ProfilePicturesPath is where uploaded profile pictures are served (by the
// server), publicly: each is named by a fresh UUIDv7, which nobody can guess.
const ProfilePicturesPath = "/media/profile-pictures"

// settingsListLimit bounds the categories the settings pages list.
const settingsListLimit = 1000

func (s *Site) registerWebAppSettingsRoutes() {
	s.page(http.MethodGet, SettingsPath, s.settingsHub)
	s.page(http.MethodGet, MorePath, s.morePage)
	s.page(http.MethodGet, ProfilePath, s.profilePage)
	s.page(http.MethodPost, ProfilePath, s.profileSubmit)
	s.add(Route{Method: http.MethodPost, Path: ProfilePath + "/picture", Upload: finance.MaxPictureBytes, Handler: s.profilePictureUpload})
	s.page(http.MethodPost, ProfilePath+"/picture-url", s.profilePictureURL)
	s.page(http.MethodPost, ProfilePath+"/picture-remove", s.profilePictureRemove)
	s.page(http.MethodGet, PasswordPath, s.passwordPage)
	// A session could be used to guess the current password: wrong ones
	// are counted per user and per IP with the API's (Host.ChangePassword).
	s.page(http.MethodPost, PasswordPath, s.passwordSubmit)
	s.page(http.MethodGet, AppSettingsPath, s.appSettingsPage)
	s.page(http.MethodPost, AppSettingsPath, s.appSettingsSubmit)
	s.page(http.MethodGet, CategoriesPath, s.categoriesPage)
	s.oncePage(CategoriesPath, s.categoryCreate)
	s.page(http.MethodPost, CategoriesPath+"/:id", s.categoryUpdate)
	s.page(http.MethodPost, CategoriesPath+"/:id/archive", s.categoryArchive)
	s.page(http.MethodPost, CategoriesPath+"/:id/unarchive", s.categoryArchive)
	s.page(http.MethodGet, RemindersPath, s.remindersPage)
	s.page(http.MethodPost, RemindersPath, s.remindersSubmit)
}

// settingsView is the frame of a settings page.
func settingsView(r *http.Request, u *finance.User, sid, title string) pageView {
	return pageView{Title: title, Nav: "settings", User: u, CSRF: auth.CSRFToken(sid), Notice: notices[r.URL.Query().Get("notice")]}
}

// refuse is refusal for the settings forms, whose views want the problems
// by field as a map even when the refusal names no field.
func refuse(p *pageView, what string, err error) (map[string]string, bool) {
	fields, ok := refusal(p, err, what)
	if ok && fields == nil {
		fields = map[string]string{}
	}
	return fields, ok
}

// --- Hub --------------------------------------------------------------------------

func (s *Site) settingsHub(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	return s.render(w, r.Request, "settings", settingsView(r.Request, &u, sid, "Settings"))
}

// morePage is the phone's menu behind the bottom bar's More: the
// destinations the bar has no room for, and Sign out. A wider screen shows
// them all in its top bar, yet the page answers there too.
func (s *Site) morePage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	return s.render(w, r.Request, "more", pageView{Title: "More", Nav: "more", User: &u, CSRF: auth.CSRFToken(sid)})
}

// --- Profile ----------------------------------------------------------------------

type profileData struct {
	Account finance.UserAccount
	// Upload is the address of the uploaded picture on this site, "" when
	// there is none. An external picture is linked, not shown: the pages
	// load nothing from other sites.
	Upload string
	Name   string // the name form's value
	URL    string // the picture URL form's value
	Fields map[string]string
}

// profileView is the profile page; name and url are the forms' values ("" for
// the name: the saved one).
func (s *Site) profileView(r *http.Request, u finance.User, name, url string, fields map[string]string) (profileData, error) {
	a, err := s.ledger.UserAccount(r.Context(), u.ID)
	if err != nil {
		return profileData{}, err
	}
	d := profileData{Account: a, Name: name, URL: url, Fields: fields}
	if name == "" {
		d.Name = a.Name
	}
	if a.File != nil {
		d.Upload = ProfilePicturesPath + "/" + *a.File
	}
	if d.Fields == nil {
		d.Fields = map[string]string{}
	}
	return d, nil
}

func (s *Site) profilePage(w http.ResponseWriter, r bunrouter.Request) error {
	return showPage(s, w, r, "profile", "Profile", "settings", func(r *http.Request, u finance.User) (profileData, error) {
		return s.profileView(r, u, "", "", nil)
	})
}

// profileSubmit changes the name. It may be empty, as at setup.
func (s *Site) profileSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok || err != nil {
		return err
	}
	sent := r.PostForm.Get("name")
	if _, err = s.auth.SetName(r.Context(), u.ID, sent); err == nil {
		return Redirect(w, r.Request, ProfilePath+"?notice=profile-saved")
	}
	p := settingsView(r.Request, &u, sid, "Profile")
	fields, ok := refuse(&p, "Not saved.", err)
	if !ok {
		return err
	}
	d, verr := s.profileView(r.Request, u, sent, "", fields)
	if verr != nil {
		return verr
	}
	p.Data = d
	return s.render(w, r.Request, "profile", p)
}

// profilePictureDone ends a picture change: back to the profile on success,
// else the profile again with the refusal beside the field.
func (s *Site) profilePictureDone(w http.ResponseWriter, r *http.Request, u finance.User, sid, url string, err error) error {
	if err == nil {
		return Redirect(w, r, ProfilePath+"?notice=picture-changed")
	}
	p := settingsView(r, &u, sid, "Profile")
	fields, ok := refuse(&p, "The picture was not changed.", err)
	if !ok {
		return err
	}
	d, verr := s.profileView(r, u, "", url, fields)
	if verr != nil {
		return verr
	}
	p.Data = d
	return s.render(w, r, "profile", p)
}

// profilePictureUpload takes the multipart form of the profile page: its
// form token, then the file, read and checked as the API's upload is.
func (s *Site) profilePictureUpload(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	err = s.host.UploadPicture(r.Request, u.ID, sid)
	return s.profilePictureDone(w, r.Request, u, sid, "", err)
}

// profilePictureURL points the picture at an https URL, as the API's JSON body does.
func (s *Site) profilePictureURL(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok || err != nil {
		return err
	}
	sent := r.PostForm.Get("url")
	var req finance.PictureURLRequest
	formRequest(&req, map[string]string{"url": sent})
	pic, err := req.Picture()
	if err == nil {
		err = s.host.SetPicture(r.Context(), u.ID, pic)
	}
	return s.profilePictureDone(w, r.Request, u, sid, sent, err)
}

// profilePictureRemove removes the picture, as the API's {"url": null} does.
func (s *Site) profilePictureRemove(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok || err != nil {
		return err
	}
	err = s.host.SetPicture(r.Context(), u.ID, finance.ProfilePicture{})
	return s.profilePictureDone(w, r.Request, u, sid, "", err)
}

// --- Password ---------------------------------------------------------------------

type passwordData struct {
	Fields map[string]string
}

func (s *Site) passwordPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	p := settingsView(r.Request, &u, sid, "Password")
	p.Data = passwordData{Fields: map[string]string{}}
	return s.render(w, r.Request, "password", p)
}

// passwordSubmit changes the password through the same checks and change
// as PUT /user-settings/account/password. This browser stays signed in;
// every other sign-in made with the old password ends. Passwords are never
// put back into the form.
func (s *Site) passwordSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok || err != nil {
		return err
	}
	f := r.PostForm
	var req auth.PasswordChangeRequest
	formRequest(&req, map[string]string{"current_password": f.Get("current_password"), "new_password": f.Get("new_password")})
	if f.Get("new_password") != f.Get("new_password_confirm") {
		err = finance.Invalid("new_password_confirm", "must repeat the new password")
	} else {
		err = s.host.ChangePassword(w, r.Request, u.ID, req, sid)
	}
	if err == nil {
		return Redirect(w, r.Request, PasswordPath+"?notice=password-changed")
	}
	p := settingsView(r.Request, &u, sid, "Password")
	fields := map[string]string{}
	if errors.Is(err, httperr.ErrPasswordGuesses) {
		p.status = http.StatusTooManyRequests
		p.Error = "The password was not changed. Too many wrong current passwords for this account or from this network. " +
			"Try again " + retryIn(w.Header().Get("Retry-After")) + "."
	} else if fields, ok = refuse(&p, "The password was not changed.", err); !ok {
		return err
	}
	p.Data = passwordData{Fields: fields}
	return s.render(w, r.Request, "password", p)
}

// --- App settings -----------------------------------------------------------------

// appSettingsForm is the app settings form: the saved settings, or what was sent.
type appSettingsForm struct {
	Currency, Timezone, DateFormat, WeekStart, DefaultPaymentMethod, BudgetWarningPercent, DueSoonDays string
}

type appSettingsData struct {
	Form        appSettingsForm
	Fields      map[string]string
	Picker      zonePicker // currency and timezone
	DateFormats []choice   // each format with today's date in it
	WeekStarts  []string
	Methods     []string
}

func (s *Site) appSettingsView(r *http.Request, u finance.User, form *appSettingsForm, fields map[string]string) (appSettingsData, error) {
	st, err := s.ledger.AppSettings(r.Context(), u.ID)
	if err != nil {
		return appSettingsData{}, err
	}
	show, err := s.displayFor(r.Context(), u.ID)
	if err != nil {
		return appSettingsData{}, err
	}
	d := appSettingsData{Fields: fields, WeekStarts: finance.WeekStarts, Methods: finance.PaymentMethods}
	if d.Fields == nil {
		d.Fields = map[string]string{}
	}
	if form != nil {
		d.Form = *form
	} else {
		d.Form = appSettingsForm{Currency: st.Currency, Timezone: st.Timezone, DateFormat: st.DateFormat, WeekStart: st.WeekStart,
			DefaultPaymentMethod: st.DefaultPaymentMethod, BudgetWarningPercent: strconv.Itoa(st.BudgetWarningPercent),
			DueSoonDays: strconv.Itoa(st.DueSoonDays)}
	}
	d.Picker = newZonePicker(d.Form.Currency, d.Form.Timezone, d.Fields)
	for _, f := range finance.DateFormats {
		d.DateFormats = append(d.DateFormats, choice{Value: f, Label: f + " (" + newDisplay(finance.AppSettings{DateFormat: f}, show.today).Date(show.today) + ")"})
	}
	return d, nil
}

func (s *Site) appSettingsPage(w http.ResponseWriter, r bunrouter.Request) error {
	return showPage(s, w, r, "appsettings", "App settings", "settings", func(r *http.Request, u finance.User) (appSettingsData, error) {
		return s.appSettingsView(r, u, nil, nil)
	})
}

// appSettingsSubmit saves the settings as PUT /user-settings/app does. A
// field left empty is not sent, so it keeps its value.
func (s *Site) appSettingsSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok || err != nil {
		return err
	}
	f := r.PostForm
	form := appSettingsForm{Currency: f.Get("currency"), Timezone: f.Get("timezone"), DateFormat: f.Get("date_format"),
		WeekStart: f.Get("week_start"), DefaultPaymentMethod: f.Get("default_payment_method"),
		BudgetWarningPercent: f.Get("budget_warning_percent"), DueSoonDays: f.Get("due_soon_days")}
	var req finance.AppSettingsRequest
	formRequest(&req, map[string]string{"currency": form.Currency, "timezone": form.Timezone, "date_format": form.DateFormat,
		"week_start": form.WeekStart, "default_payment_method": form.DefaultPaymentMethod,
		"budget_warning_percent": form.BudgetWarningPercent, "due_soon_days": form.DueSoonDays})
	_, err = s.ledger.UpdateAppSettings(r.Context(), u.ID, req)
	if err == nil {
		return Redirect(w, r.Request, AppSettingsPath+"?notice=settings-saved")
	}
	p := settingsView(r.Request, &u, sid, "App settings")
	fields, ok := refuse(&p, "Not saved.", err)
	if !ok {
		return err
	}
	d, verr := s.appSettingsView(r.Request, u, &form, fields)
	if verr != nil {
		return verr
	}
	p.Data = d
	return s.render(w, r.Request, "appsettings", p)
}

// --- Categories -------------------------------------------------------------------

// categoryForm is a category's form: its values, or what was sent.
type categoryForm struct {
	Name, Kind, Color string
}

// categoryRow is one category with its edit form.
type categoryRow struct {
	finance.Category
	Form   categoryForm
	Fields map[string]string
}

// categoryGroup is the categories of one kind.
type categoryGroup struct {
	Kind, Title string
	Rows        []categoryRow
}

type categoriesData struct {
	Groups    []categoryGroup // expense, then income
	New       categoryForm    // the create form
	NewFields map[string]string
}

// categoriesView lists every category of the user, active and archived,
// expense and income, each with its edit form.
func (s *Site) categoriesView(r *http.Request, u finance.User) (categoriesData, error) {
	list, err := s.ledger.ListCategories(r.Context(), u.ID, finance.CategoryFilter{Status: finance.StatusAll},
		finance.ListParams{Page: 1, Limit: settingsListLimit, SortBy: finance.CategoryList.Sorts[0]})
	if err != nil {
		return categoriesData{}, err
	}
	d := categoriesData{New: categoryForm{Kind: string(finance.KindExpense)}, NewFields: map[string]string{},
		Groups: []categoryGroup{{Kind: string(finance.KindExpense), Title: "Expense categories"},
			{Kind: string(finance.KindIncome), Title: "Income categories"}}}
	for _, c := range list.Items {
		row := categoryRow{Category: c, Form: categoryForm{Name: c.Name, Kind: string(c.Kind)}, Fields: map[string]string{}}
		if c.Color != nil {
			row.Form.Color = *c.Color
		}
		g := &d.Groups[0]
		if c.Kind == finance.KindIncome {
			g = &d.Groups[1]
		}
		g.Rows = append(g.Rows, row)
	}
	return d, nil
}

func (s *Site) categoriesPage(w http.ResponseWriter, r bunrouter.Request) error {
	return showPage(s, w, r, "categories", "Categories", "settings", s.categoriesView)
}

// categoryDone ends a category write: back to the list on success, else the
// list again with the refusal, beside the fields of the form that was sent
// (the create form when id is "", else that category's).
func (s *Site) categoryDone(w http.ResponseWriter, r *http.Request, u finance.User, sid, id string, sent *categoryForm, notice string, err error) error {
	if err == nil {
		return Redirect(w, r, CategoriesPath+"?notice="+notice)
	}
	p := settingsView(r, &u, sid, "Categories")
	fields, ok := refuse(&p, "Not saved.", err)
	if !ok {
		return err
	}
	d, verr := s.categoriesView(r, u)
	if verr != nil {
		return verr
	}
	if id == "" {
		d.New, d.NewFields = *sent, fields
	}
	for _, g := range d.Groups {
		for i := range g.Rows {
			if row := &g.Rows[i]; row.ID == id && id != "" {
				if sent != nil {
					row.Form = *sent
				}
				row.Fields = fields
			}
		}
	}
	p.Data = d
	return s.render(w, r, "categories", p)
}

// categoryFields are a category form's values as the API's body would carry them.
func categoryFields(f categoryForm) map[string]string {
	return map[string]string{"name": f.Name, "kind": f.Kind, "color": f.Color}
}

// categoryCreate adds a category as POST /categories does.
func (s *Site) categoryCreate(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok || err != nil {
		return err
	}
	f := r.PostForm
	sent := categoryForm{Name: f.Get("name"), Kind: f.Get("kind"), Color: f.Get("color")}
	var req finance.CategoryRequest
	formRequest(&req, categoryFields(sent))
	_, err = s.ledger.CreateCategory(r.Context(), u.ID, req)
	return s.categoryDone(w, r.Request, u, sid, "", &sent, "category-created", err)
}

// categoryUpdate renames or recolors a category as PUT /categories/{id}
// does. An empty color is not sent, so it keeps its color.
func (s *Site) categoryUpdate(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok || err != nil {
		return err
	}
	id := r.Param("id")
	f := r.PostForm
	sent := categoryForm{Name: f.Get("name"), Color: f.Get("color")}
	var req finance.CategoryRequest
	formRequest(&req, categoryFields(sent))
	err = finance.ErrNotFound
	if finance.ValidID(id) {
		_, err = s.ledger.UpdateCategory(r.Context(), u.ID, id, req)
	}
	return s.categoryDone(w, r.Request, u, sid, id, &sent, "category-saved", err)
}

// categoryArchive archives a category as DELETE /categories/{id} does, or
// makes an archived one active again (the path ends in /unarchive).
func (s *Site) categoryArchive(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok || err != nil {
		return err
	}
	change, notice := s.ledger.ArchiveCategory, "category-archived"
	if strings.HasSuffix(r.URL.Path, "/unarchive") {
		change, notice = s.ledger.UnarchiveCategory, "category-unarchived"
	}
	id := r.Param("id")
	err = finance.ErrNotFound
	if finance.ValidID(id) {
		_, err = change(r.Context(), u.ID, id)
	}
	return s.categoryDone(w, r.Request, u, sid, id, nil, notice, err)
}

// --- Reminders --------------------------------------------------------------------

// remindersForm is the reminder preferences form: the saved ones, or what was sent.
type remindersForm struct {
	Enabled, BudgetThreshold                     bool
	BillDays, StatementDays, LoanDays, DigestDay string
	DigestHour, QuietStart, QuietEnd             string
}

type remindersData struct {
	Form       remindersForm
	Fields     map[string]string
	DigestDays []string
	Hours      []choice
	Linked     bool // a Telegram chat is linked: reminders reach it
	List       reminderList
}

// reminderList is what the "reminder-list" partial shows, on Home and on
// the reminders page: the newest reminders claimed, and how each went.
type reminderList struct {
	Recent []finance.Reminder
	Show   display
}

// reminderDelivery says in words what a reminder's delivery did.
func reminderDelivery(delivery string) string {
	switch delivery {
	case finance.DeliverySent:
		return "sent to Telegram"
	case finance.DeliveryFailed:
		return "Telegram could not be reached"
	case finance.DeliveryHomeOnly:
		return "shown here only"
	default:
		return "not sent"
	}
}

// daysFieldView is one days-before field of the reminders form.
type daysFieldView struct{ Name, Label, Value, Problem string }

func daysField(name, label, value string, fields map[string]string) daysFieldView {
	return daysFieldView{Name: name, Label: label, Value: value, Problem: fields[name]}
}

// recentReminders reads what Home and the reminders page list.
func (s *Site) recentReminders(ctx context.Context, userID string) (reminderList, error) {
	var l reminderList
	var err error
	if l.Recent, err = s.ledger.Reminders(ctx, userID); err != nil {
		return l, err
	}
	l.Show, err = s.displayFor(ctx, userID)
	return l, err
}

func (s *Site) remindersView(r *http.Request, u finance.User, form *remindersForm, fields map[string]string) (remindersData, error) {
	ctx := r.Context()
	d := remindersData{Fields: fields, DigestDays: finance.DigestDays}
	if d.Fields == nil {
		d.Fields = map[string]string{}
	}
	if form != nil {
		d.Form = *form
	} else {
		st, err := s.ledger.ReminderSettings(ctx, u.ID)
		if err != nil {
			return d, err
		}
		d.Form = remindersForm{Enabled: st.Enabled, BudgetThreshold: st.BudgetThreshold, BillDays: strconv.Itoa(st.BillDays),
			StatementDays: strconv.Itoa(st.StatementDays), LoanDays: strconv.Itoa(st.LoanDays), DigestDay: st.DigestDay,
			DigestHour: strconv.Itoa(st.DigestHour)}
		if st.QuietStart != nil && st.QuietEnd != nil {
			d.Form.QuietStart, d.Form.QuietEnd = *st.QuietStart, *st.QuietEnd
		}
	}
	for h := range 24 {
		d.Hours = append(d.Hours, choice{Value: strconv.Itoa(h), Label: fmt.Sprintf("%02d:00", h)})
	}
	var err error
	if d.List, err = s.recentReminders(ctx, u.ID); err != nil {
		return d, err
	}
	if s.telegram != nil {
		chats, err := s.telegram.Chats(ctx, u.ID)
		if err != nil {
			return d, err
		}
		d.Linked = len(chats) > 0
	}
	return d, nil
}

func (s *Site) remindersPage(w http.ResponseWriter, r bunrouter.Request) error {
	return showPage(s, w, r, "reminders", "Reminders", "settings", func(r *http.Request, u finance.User) (remindersData, error) {
		return s.remindersView(r, u, nil, nil)
	})
}

// remindersSubmit saves the preferences as PUT /user-settings/reminders
// does. Both quiet times left empty turn quiet hours off.
func (s *Site) remindersSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok || err != nil {
		return err
	}
	f := r.PostForm
	form := remindersForm{Enabled: f.Get("enabled") == "on", BudgetThreshold: f.Get("budget_threshold") == "on",
		BillDays: f.Get("bill_days"), StatementDays: f.Get("statement_days"), LoanDays: f.Get("loan_days"),
		DigestDay: f.Get("digest_day"), DigestHour: f.Get("digest_hour"), QuietStart: f.Get("quiet_start"), QuietEnd: f.Get("quiet_end")}
	var req finance.ReminderSettingsRequest
	formRequest(&req, map[string]string{"bill_days": form.BillDays, "statement_days": form.StatementDays, "loan_days": form.LoanDays,
		"digest_day": form.DigestDay, "digest_hour": form.DigestHour, "quiet_start": form.QuietStart, "quiet_end": form.QuietEnd})
	// Both quiet times emptied turn quiet hours off; one emptied is sent
	// empty, and refused as the missing end.
	switch start, end := strings.TrimSpace(form.QuietStart), strings.TrimSpace(form.QuietEnd); {
	case start == "" && end == "":
		req.QuietStart, req.QuietEnd = finance.Field[string]{Set: true, Null: true}, finance.Field[string]{Set: true, Null: true}
	case start == "":
		req.QuietStart = finance.Of("")
	case end == "":
		req.QuietEnd = finance.Of("")
	}
	// A checkbox left unticked is not posted: it means off.
	req.Enabled, req.BudgetThreshold = finance.Of(form.Enabled), finance.Of(form.BudgetThreshold)
	if _, err = s.ledger.UpdateReminderSettings(r.Context(), u.ID, req); err == nil {
		return Redirect(w, r.Request, RemindersPath+"?notice=settings-saved")
	}
	p := settingsView(r.Request, &u, sid, "Reminders")
	fields, ok := refuse(&p, "Not saved.", err)
	if !ok {
		return err
	}
	d, verr := s.remindersView(r.Request, u, &form, fields)
	if verr != nil {
		return verr
	}
	p.Data = d
	return s.render(w, r.Request, "reminders", p)
}
