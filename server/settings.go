package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strconv"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/queryparam"
	"github.com/finance-app/finance/web"
)

// User settings (domain.md §2.1): the account with its profile picture and
// password, the app settings and the budget thresholds. Categories, the
// fourth part, are served by categories.go.
func (s *Server) registerSettingsRoutes() {
	read, write := auth.Read(auth.ScopeSettingsWrite), auth.Write(auth.ScopeSettingsWrite)
	const base = "/api/v1/user-settings"
	s.handle(http.MethodGet, base+"/account", read, s.getUserAccount)
	// No domain scope covers the picture: the first-party JWT or a key with all.
	s.add(Route{Method: http.MethodPut, Path: base + "/account/profile-picture", Access: auth.FirstPartyOrAll,
		Upload: finance.MaxPictureBytes}, s.putProfilePicture)
	s.handle(http.MethodPut, base+"/account/password", auth.FirstPartyOnly, s.changePassword)
	s.handle(http.MethodGet, base+"/app", read, s.getAppSettings)
	s.handle(http.MethodPut, base+"/app", write, s.updateAppSettings)
	s.handle(http.MethodGet, base+"/budget-thresholds", read, s.listBudgetThresholds, list("month")...)
	s.handle(http.MethodPut, base+"/budget-thresholds", write, s.replaceBudgetThresholds)
	s.page(http.MethodGet, web.ProfilePicturesPath+"/:file", s.profilePictureFile)
}

// account is the account as the API shows it: uploads at their public address.
func (s *Server) account(a finance.UserAccount) finance.UserAccount {
	a.ResolvePicture(s.cfg.BaseURL + web.ProfilePicturesPath)
	return a
}

func (s *Server) getUserAccount(w http.ResponseWriter, r bunrouter.Request) error {
	a, err := s.ledger.UserAccount(r.Context(), userID(r))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Account retrieved", s.account(a))
	return nil
}

// putProfilePicture takes a multipart file (stored in the database and
// served at web.ProfilePicturesPath) or a JSON {url} (null removes the
// picture). The previous upload is deleted in the same transaction, so the
// database holds only the pictures that users have.
func (s *Server) putProfilePicture(w http.ResponseWriter, r bunrouter.Request) error {
	var pic finance.ProfilePicture
	var image *pictureUpload
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && mt == "multipart/form-data" {
		if image, pic, err = s.readPictureForm(r.Request, ""); err != nil {
			return err
		}
	} else {
		var req finance.PictureURLRequest
		if err := s.decodeJSON(r.Request, &req); err != nil {
			return err
		}
		if pic, err = req.Picture(); err != nil {
			return err
		}
	}
	a, err := s.setProfilePicture(r.Context(), userID(r), image, pic)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Profile picture updated", s.account(a))
	return nil
}

// setProfilePicture makes image (when not nil), or else pic, the user's
// picture. The API route and the profile settings page share it.
func (s *Server) setProfilePicture(ctx context.Context, userID string, image *pictureUpload, pic finance.ProfilePicture) (finance.UserAccount, error) {
	var upload *finance.PictureFile
	if image != nil {
		upload = &finance.PictureFile{Name: finance.NewID() + "." + image.ext, ContentType: pictureContentTypes[image.ext],
			Content: image.data}
	}
	return s.ledger.SetProfilePicture(ctx, userID, pic, upload)
}

// pictureUpload is an uploaded image whose bytes are PNG, JPEG or WebP.
type pictureUpload struct {
	data []byte
	ext  string // png, jpg or webp
}

// pictureTypes maps the sniffed content type of an upload to its extension.
var pictureTypes = map[string]string{"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp"}

// readPictureForm reads a multipart body part by part: the file is read up
// to one byte past finance.MaxPictureBytes, so a larger one is refused on its field
// after 2 MiB, whatever the body's length. A url field may stand in for the
// file, as in the JSON body.
//
// A web page's form (formSecret not empty: the session id) must carry its
// form token in a csrf field before the file; it is checked when it arrives,
// so a forged upload is refused before its file is read.
func (s *Server) readPictureForm(r *http.Request, formSecret string) (*pictureUpload, finance.ProfilePicture, error) {
	if formSecret != "" && r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return nil, finance.ProfilePicture{}, web.ErrFormExpired
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, finance.ProfilePicture{}, httperr.BadRequest("Request body is not a valid multipart form", nil)
	}
	formChecked := formSecret == ""
	var file []byte
	var urlField *string
	seen := map[string]bool{}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, finance.ProfilePicture{}, s.formReadError(err)
		}
		name := part.FormName()
		if !formChecked {
			token, err := io.ReadAll(io.LimitReader(part, 256))
			if err != nil {
				return nil, finance.ProfilePicture{}, s.formReadError(err)
			}
			if name != "csrf" || !auth.CSRFValid(formSecret, string(token)) {
				return nil, finance.ProfilePicture{}, web.ErrFormExpired
			}
			formChecked = true
			continue
		}
		if (name == "file" || name == "url") && seen[name] {
			return nil, finance.ProfilePicture{}, finance.Invalid(name, "appears more than once")
		}
		seen[name] = true
		switch name {
		case "file":
			file, err = io.ReadAll(io.LimitReader(part, finance.MaxPictureBytes+1))
			if err != nil {
				return nil, finance.ProfilePicture{}, s.formReadError(err)
			}
			if len(file) > finance.MaxPictureBytes {
				return nil, finance.ProfilePicture{}, finance.Invalid("file",
					"must be at most 2 MiB ("+strconv.Itoa(finance.MaxPictureBytes)+" bytes)")
			}
		case "url":
			b, err := io.ReadAll(io.LimitReader(part, finance.MaxPictureURLLen*4+1))
			if err != nil {
				return nil, finance.ProfilePicture{}, s.formReadError(err)
			}
			v := string(b)
			urlField = &v
		default:
			if _, err := io.Copy(io.Discard, part); err != nil { // unknown fields are ignored
				return nil, finance.ProfilePicture{}, s.formReadError(err)
			}
		}
	}
	switch {
	case !formChecked:
		return nil, finance.ProfilePicture{}, web.ErrFormExpired
	case seen["file"] && urlField != nil:
		return nil, finance.ProfilePicture{}, finance.Invalid("url", "must not be sent with a file; send one or the other")
	case urlField != nil:
		pic, err := finance.PictureURLRequest{URL: finance.Of(*urlField)}.Picture()
		return nil, pic, err
	case !seen["file"]:
		return nil, finance.ProfilePicture{}, finance.Invalid("file", "is required: send a PNG, JPEG or WebP image, or a url")
	}
	ext, ok := pictureTypes[http.DetectContentType(file)]
	if !ok {
		return nil, finance.ProfilePicture{}, finance.Invalid("file", "must be a PNG, JPEG or WebP image")
	}
	return &pictureUpload{data: file, ext: ext}, finance.ProfilePicture{}, nil
}

// formReadError is the answer to a multipart body that could not be read.
func (s *Server) formReadError(err error) error { return httperr.FormRead(err) }

// pictureName matches the names setProfilePicture gives: any other name is
// 404 without a query.
var pictureName = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}\.(png|jpg|webp)$`)

var pictureContentTypes = map[string]string{"png": "image/png", "jpg": "image/jpeg", "webp": "image/webp"}

// profilePictureFile serves an upload publicly, from the database, with the
// type its bytes were sniffed as when it was stored. Unknown names are 404;
// there is no listing.
func (s *Server) profilePictureFile(w http.ResponseWriter, r bunrouter.Request) error {
	name := r.Param("file")
	if !pictureName.MatchString(name) {
		return httperr.RouteNotFound(r.Request)
	}
	f, err := s.ledger.PictureFile(r.Context(), name)
	if errors.Is(err, finance.ErrNotFound) {
		return httperr.RouteNotFound(r.Request)
	} else if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", f.ContentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'")
	// A name is never reused: a new picture gets a new name, so the browser
	// may keep it for good. Only the browser: a shared cache in front of the
	// server (a proxy, a CDN) must not keep a person's picture and hand it on.
	h.Set("Cache-Control", "private, max-age=31536000, immutable")
	// The name stands for the bytes, so it is the ETag every replica gives.
	h.Set("ETag", `"`+name+`"`)
	http.ServeContent(w, r.Request, "", f.CreatedAt, bytes.NewReader(f.Content))
	return nil
}

// PasswordChanged is the reply to a password change. The caller's own
// access token was issued before the change and stops working with it, like
// every other sign-in; AccessToken replaces it, so the client that made the
// change stays signed in without asking for the password again.
type PasswordChanged struct {
	Updated     bool   `json:"updated"`
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"` // seconds
}

// changePassword is the signed-in user changing their password (first-party
// JWT only). It goes through the same change as the admin's
// "finance users set-password": the credential epoch moves on, which ends
// every access token issued before, and every web session is deleted.
func (s *Server) changePassword(w http.ResponseWriter, r bunrouter.Request) error {
	var req auth.PasswordChangeRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	who, err := s.changeOwnPassword(w, r.Request, userID(r), req, "")
	if err != nil {
		return err
	}
	token, err := s.auth.IssueToken(who)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Password changed; every other sign-in has ended", PasswordChanged{
		Updated: true, AccessToken: token, TokenType: "Bearer", ExpiresIn: int(s.auth.JWT().TTL().Seconds()),
	})
	return nil
}

// changeOwnPassword checks a password change request and makes it, keeping
// the web session keepSessionID ("" for none): the API route and the
// password settings page share it, so both refuse the same things and count
// wrong current passwords together. A request refused for its fields checks
// no password and counts nothing; once the user or the client IP is out of
// guesses, even the right password changes nothing (httperr.ErrPasswordGuesses,
// with Retry-After).
func (s *Server) changeOwnPassword(w http.ResponseWriter, r *http.Request, userID string, req auth.PasswordChangeRequest, keepSessionID string) (auth.Identity, error) {
	var v finance.Validator
	current, next := "", ""
	if finance.Readable(&v, "current_password", req.CurrentPassword) && req.CurrentPassword.Value != "" {
		current = req.CurrentPassword.Value
	} else if !v.Has("current_password") {
		v.Add("current_password", "is required")
	}
	if finance.Readable(&v, "new_password", req.NewPassword) && req.NewPassword.Value != "" {
		next = req.NewPassword.Value
		v.Merge("new_", finance.CheckPassword("password", next))
	} else if !v.Has("new_password") {
		v.Add("new_password", "is required")
	}
	if current != "" && next != "" && current == next {
		v.Add("new_password", "must differ from the current password")
	}
	if err := v.Err(); err != nil {
		return auth.Identity{}, err
	}
	d, done := s.passwordLimiter.admit("user:"+userID, "ip:"+s.clientIP(r))
	if !d.allowed {
		s.passwordLimiter.setHeaders(w.Header(), d)
		return auth.Identity{}, httperr.ErrPasswordGuesses
	}
	who, err := s.auth.ChangeOwnPassword(r.Context(), userID, current, next, keepSessionID)
	done(errors.Is(err, auth.ErrWrongPassword))
	return who, err
}

func (s *Server) getAppSettings(w http.ResponseWriter, r bunrouter.Request) error {
	st, err := s.ledger.AppSettings(r.Context(), userID(r))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "App settings retrieved", st)
	return nil
}

func (s *Server) updateAppSettings(w http.ResponseWriter, r bunrouter.Request) error {
	var req finance.AppSettingsRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	st, err := s.ledger.UpdateAppSettings(r.Context(), userID(r), req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "App settings updated", st)
	return nil
}

func (s *Server) listBudgetThresholds(w http.ResponseWriter, r bunrouter.Request) error {
	var month finance.Date
	p, err := listQuery(r.Request, finance.BudgetThresholdList, func(v *finance.Validator, q url.Values) {
		month = queryparam.Month(v, q, "month")
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.BudgetThresholds(r.Context(), userID(r), month, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Budget thresholds retrieved", page)
	return nil
}

func (s *Server) replaceBudgetThresholds(w http.ResponseWriter, r bunrouter.Request) error {
	var req finance.BudgetThresholdsRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	page, err := s.ledger.ReplaceBudgetThresholds(r.Context(), userID(r), req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Budget thresholds replaced", page)
	return nil
}
