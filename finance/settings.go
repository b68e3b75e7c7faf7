package finance

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // every IANA name loads, also on hosts without a zone database (scratch containers)
	"unicode/utf8"
)

// AppSettings are a user's preferences (domain.md §2.1). They are real
// inputs of the ledger: the timezone defines today, the currency labels
// every summary, due_soon_days is the due-soon window, and
// default_payment_method is the expense form's preselected method.
type AppSettings struct {
	Currency             string `json:"currency"`
	Timezone             string `json:"timezone"`
	DateFormat           string `json:"date_format"`
	WeekStart            string `json:"week_start"`
	DefaultPaymentMethod string `json:"default_payment_method"`
	BudgetWarningPercent int    `json:"budget_warning_percent"`
	DueSoonDays          int    `json:"due_soon_days"`
}

// The choices and defaults of the app settings.
var (
	DateFormats = []string{"YYYY-MM-DD", "MM/DD/YYYY", "DD/MM/YYYY", "DD MMM YYYY"}
	WeekStarts  = []string{"monday", "sunday"}
)

// DefaultBudgetWarningPercent is the default warning_percent of new thresholds.
const DefaultBudgetWarningPercent = 80

// DefaultAppSettings are the settings of a user who never changed them.
func DefaultAppSettings() AppSettings {
	return AppSettings{
		Currency: DefaultCurrency, Timezone: DefaultTimezone, DateFormat: DateFormats[0], WeekStart: WeekStarts[0],
		DefaultPaymentMethod: DefaultPaymentMethod, BudgetWarningPercent: DefaultBudgetWarningPercent,
		DueSoonDays: DefaultDueSoonDays,
	}
}

// AppSettingsRequest is the body of PUT /user-settings/app: a partial
// update. A field that is present changes; null puts back its default.
type AppSettingsRequest struct {
	Currency             Field[string] `json:"currency"`
	Timezone             Field[string] `json:"timezone"`
	DateFormat           Field[string] `json:"date_format"`
	WeekStart            Field[string] `json:"week_start"`
	DefaultPaymentMethod Field[string] `json:"default_payment_method"`
	BudgetWarningPercent Field[int]    `json:"budget_warning_percent"`
	DueSoonDays          Field[int]    `json:"due_soon_days"`
}

// Apply validates the fields present in r and sets them on st.
func (r AppSettingsRequest) Apply(v *Validator, st *AppSettings) {
	def := DefaultAppSettings()
	text := func(name string, f Field[string], dst *string, fallback string, ok func(string) bool, problem string) {
		switch {
		case !v.readable(name, f) || !f.Set:
		case f.Null:
			*dst = fallback
		case !ok(f.Value):
			v.Add(name, problem)
		default:
			*dst = f.Value
		}
	}
	number := func(name string, f Field[int], dst *int, fallback, lo, hi int) {
		switch {
		case !v.readable(name, f) || !f.Set:
		case f.Null:
			*dst = fallback
		case f.Value < lo || f.Value > hi:
			v.Add(name, "must be an integer from "+strconv.Itoa(lo)+" to "+strconv.Itoa(hi))
		default:
			*dst = f.Value
		}
	}
	oneOf := func(choices []string) func(string) bool {
		return func(s string) bool { return slices.Contains(choices, s) }
	}
	if r.Currency.Set && !r.Currency.Null {
		if c, ok := LookupCurrency(r.Currency.Value); ok {
			r.Currency.Value = c.Code // "usd" is USD: people do not type codes in capitals
		}
	}
	text("currency", r.Currency, &st.Currency, def.Currency, func(s string) bool { _, ok := LookupCurrency(s); return ok },
		problemCurrencyCode)
	text("timezone", r.Timezone, &st.Timezone, def.Timezone, func(s string) bool { _, err := LoadTimezone(s); return err == nil },
		"must be an IANA timezone name, like Asia/Manila or America/New_York")
	text("date_format", r.DateFormat, &st.DateFormat, def.DateFormat, oneOf(DateFormats), "must be one of: "+strings.Join(DateFormats, ", "))
	text("week_start", r.WeekStart, &st.WeekStart, def.WeekStart, oneOf(WeekStarts), "must be monday or sunday")
	text("default_payment_method", r.DefaultPaymentMethod, &st.DefaultPaymentMethod, def.DefaultPaymentMethod, oneOf(PaymentMethods),
		"must be one of: "+strings.Join(PaymentMethods, ", "))
	number("budget_warning_percent", r.BudgetWarningPercent, &st.BudgetWarningPercent, def.BudgetWarningPercent, 1, 100)
	number("due_soon_days", r.DueSoonDays, &st.DueSoonDays, def.DueSoonDays, 1, 31)
}

// LoadTimezone loads an IANA timezone by name. Names that would depend on
// the server ("Local", "") are refused: a user's today must not move with
// the host's configuration.
func LoadTimezone(name string) (*time.Location, error) {
	if name == "" || name == "Local" || len(name) > 64 {
		return nil, Invalid("timezone", "must be an IANA timezone name")
	}
	return time.LoadLocation(name)
}

// SettingsRepo is the persistence of the user's account and settings.
type SettingsRepo interface {
	// AppSettings returns the user's settings, or the defaults when the user never saved any.
	AppSettings(ctx context.Context, userID string) (AppSettings, error)
	SaveAppSettings(ctx context.Context, userID string, st AppSettings, at time.Time) error
	// UserAccount returns the user with their profile picture.
	UserAccount(ctx context.Context, userID string) (UserAccount, error)
	SetProfilePicture(ctx context.Context, userID string, pic ProfilePicture, at time.Time) error
	// SavePictureFile stores an uploaded picture as the user's, in place of
	// the one they had (a user has at most one upload).
	SavePictureFile(ctx context.Context, userID string, f PictureFile) error
	// DeletePictureFiles deletes the user's uploaded picture, if any.
	DeletePictureFiles(ctx context.Context, userID string) error
	// PictureFile returns the upload named name, whoever it belongs to: the
	// pictures are served publicly.
	PictureFile(ctx context.Context, name string) (PictureFile, error)
	// FirstSteps reports which of the first-run checklist's ledger steps the
	// user has taken, and whether they put the checklist away.
	FirstSteps(ctx context.Context, userID string) (FirstSteps, error)
	// DismissChecklist puts the checklist away (a user who never saved
	// settings gets the defaults with it).
	DismissChecklist(ctx context.Context, userID string, at time.Time) error
	BudgetRepo
}

// userPrefs are a user's settings as the ledger uses them on every request,
// with the timezone already loaded (LoadLocation reads the zone database).
type userPrefs struct {
	settings AppSettings
	loc      *time.Location
}

// prefsCache holds userPrefs by user id, so that a request loads no
// timezone. Which settings are current is the store's answer: it keeps them
// in memory and drops them when this process or another one (a second
// replica, the CLI) saved new ones. An entry is used only while it holds
// the settings the store answers.
type prefsCache struct {
	byUser sync.Map // user id -> *userPrefs
}

func newPrefs(st AppSettings) *userPrefs {
	loc, err := LoadTimezone(st.Timezone)
	if err != nil {
		loc = defaultLocation() // a zone the server can no longer load: the default, not a failure
	}
	return &userPrefs{settings: st, loc: loc}
}

// prefs returns the user's settings, from the cache when it has them.
func (s *Service) prefs(ctx context.Context, userID string) (*userPrefs, error) {
	st, err := s.store.Read().AppSettings(ctx, userID)
	if err != nil {
		return nil, err
	}
	if p, ok := s.cache.byUser.Load(userID); ok && p.(*userPrefs).settings == st {
		return p.(*userPrefs), nil
	}
	p := newPrefs(st)
	s.cache.byUser.Store(userID, p)
	return p, nil
}

// settingsOrDefault is the user's settings; if they cannot be read (the
// database is failing), the defaults, uncached, so the next request reads
// again. The callers need a value and the request fails anyway on its own
// queries when the database does.
func (s *Service) settingsOrDefault(ctx context.Context, userID string) *userPrefs {
	p, err := s.prefs(ctx, userID)
	if err != nil {
		return newPrefs(DefaultAppSettings())
	}
	return p
}

// AppSettings is GET /user-settings/app.
func (s *Service) AppSettings(ctx context.Context, userID string) (AppSettings, error) {
	p, err := s.prefs(ctx, userID)
	if err != nil {
		return AppSettings{}, err
	}
	return p.settings, nil
}

// UpdateAppSettings is PUT /user-settings/app: it changes the fields present
// and returns the settings, which take effect from the next request on.
func (s *Service) UpdateAppSettings(ctx context.Context, userID string, req AppSettingsRequest) (AppSettings, error) {
	var out AppSettings
	err := s.store.Write(ctx, func(tx Repo) error {
		st, err := tx.AppSettings(ctx, userID)
		if err != nil {
			return err
		}
		cur := st
		var v Validator
		req.Apply(&v, &st)
		if err := v.Err(); err != nil {
			return err
		}
		out = st
		if err := tx.SaveAppSettings(ctx, userID, st, s.stamp()); err != nil {
			return err
		}
		c := changes(cur, st, "currency", "timezone", "date_format", "week_start", "default_payment_method",
			"budget_warning_percent", "due_soon_days")
		if len(c) == 0 {
			return nil
		}
		return s.record(ctx, tx, userID, Activity{Kind: RecordAppSettings, RecordID: userID, Action: LogUpdated,
			Summary: "Settings: " + c.String()})
	})
	if err != nil {
		return AppSettings{}, err
	}
	return out, nil
}

// UserAccount is GET /user-settings/account: the user and their profile picture.
type UserAccount struct {
	User
	ProfilePicture
	// ProfilePictureURL is where the picture is: the external URL, or the
	// address the server serves the upload at (ResolvePicture); null without one.
	ProfilePictureURL *string `json:"profile_picture_url"`
}

// ResolvePicture sets ProfilePictureURL, with uploads served under uploadBase.
func (a *UserAccount) ResolvePicture(uploadBase string) {
	switch {
	case a.File != nil:
		u := uploadBase + "/" + *a.File
		a.ProfilePictureURL = &u
	case a.URL != nil:
		a.ProfilePictureURL = a.URL
	default:
		a.ProfilePictureURL = nil
	}
}

// ProfilePicture is a user's picture: an external https URL, or an upload
// served by this server. At most one is set; neither means no picture.
type ProfilePicture struct {
	// URL is the external picture, as the user gave it.
	URL *string `json:"-"`
	// File is the upload's file name (a UUIDv7 and its extension); the
	// server turns it into the address it serves the file at.
	File *string `json:"-"`
}

// MaxPictureURLLen bounds an external profile picture URL.
const MaxPictureURLLen = 2048

// MaxPictureBytes is the largest profile picture upload: 2 MiB.
const MaxPictureBytes = 2 << 20

// PictureURLRequest is the JSON body of PUT /user-settings/account/profile-picture.
type PictureURLRequest struct {
	URL Field[string] `json:"url"`
}

// Picture validates the request: an absolute https URL, or null to remove the picture.
func (r PictureURLRequest) Picture() (ProfilePicture, error) {
	var v Validator
	if !v.readable("url", r.URL) {
		return ProfilePicture{}, v.Err()
	}
	switch {
	case !r.URL.Set:
		return ProfilePicture{}, Invalid("url", "is required: send an https URL, null to remove the picture, or a multipart file")
	case r.URL.Null:
		return ProfilePicture{}, nil
	}
	raw := strings.TrimSpace(r.URL.Value)
	if utf8.RuneCountInString(raw) > MaxPictureURLLen {
		return ProfilePicture{}, Invalid("url", "must be at most "+strconv.Itoa(MaxPictureURLLen)+" characters")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.Opaque != "" {
		return ProfilePicture{}, Invalid("url", "must be an absolute https URL")
	}
	return ProfilePicture{URL: &raw}, nil
}

// UserAccount is GET /user-settings/account.
func (s *Service) UserAccount(ctx context.Context, userID string) (UserAccount, error) {
	return s.store.Read().UserAccount(ctx, userID)
}

// PictureFile is an uploaded profile picture: its bytes, kept in the
// database so that every replica of the server serves it.
type PictureFile struct {
	// Name is the name it is served under: a UUIDv7 and the extension of
	// its type. A new upload gets a new name, so a name's bytes never change.
	Name        string
	ContentType string // image/png, image/jpeg or image/webp
	Content     []byte
	CreatedAt   time.Time
}

// SetProfilePicture replaces the user's picture with pic (the zero value
// removes it), or with upload when it is not nil, and returns the account.
// The upload the user had before is deleted in the same transaction.
func (s *Service) SetProfilePicture(ctx context.Context, userID string, pic ProfilePicture, upload *PictureFile) (UserAccount, error) {
	var out UserAccount
	err := s.store.Write(ctx, func(tx Repo) error {
		a, err := tx.UserAccount(ctx, userID)
		if err != nil {
			return err
		}
		now := s.stamp()
		if err := tx.DeletePictureFiles(ctx, userID); err != nil {
			return err
		}
		if upload != nil {
			f := *upload
			f.CreatedAt = now
			if err := tx.SavePictureFile(ctx, userID, f); err != nil {
				return err
			}
			pic = ProfilePicture{File: &f.Name}
		}
		if err := tx.SetProfilePicture(ctx, userID, pic, now); err != nil {
			return err
		}
		a.ProfilePicture, a.UpdatedAt = pic, now
		out = a
		return nil
	})
	if err != nil {
		return UserAccount{}, err
	}
	return out, nil
}

// PictureFile returns the uploaded picture named name (ErrNotFound when no
// user has it).
func (s *Service) PictureFile(ctx context.Context, name string) (PictureFile, error) {
	return s.store.Read().PictureFile(ctx, name)
}

// FirstSteps are the ledger's part of the first-run checklist on Home (add
// an account, add a card, record an expense; connecting an agent is the
// credentials' part), each true once the user has one of any status, and
// whether the person put the checklist away (domain.md "First run").
type FirstSteps struct {
	Account, Card, Expense bool
	Dismissed              bool
}

// FirstSteps reads the user's first-run steps.
func (s *Service) FirstSteps(ctx context.Context, userID string) (FirstSteps, error) {
	return s.store.Read().FirstSteps(ctx, userID)
}

// DismissChecklist puts the user's first-run checklist away for good.
func (s *Service) DismissChecklist(ctx context.Context, userID string) error {
	// The settings row it may make holds the defaults, which the cache already
	// answers for a user without one: nothing cached changes.
	return s.store.Write(ctx, func(tx Repo) error { return tx.DismissChecklist(ctx, userID, s.stamp()) })
}
