package server

import (
	"context"
	"net/http"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/web"
)

// mountWeb builds the web app (package web) and registers its routes as
// pages: public routes outside the API contract, behind the same middleware
// as every other route, with their heavy reads, once-forms, uploads and
// per-IP limits as the site declares them.
func (s *Server) mountWeb() {
	s.web = web.New(web.Config{
		BaseURL: s.cfg.BaseURL, Log: s.log, Auth: s.auth, Ledger: s.ledger, OAuth: s.oauth, Telegram: s.telegram,
		Host: webHost{s}, RequestID: requestIDFrom, MaxImportBytes: s.cfg.MaxImportBytes,
	})
	for _, rt := range s.web.Routes() {
		perIP := map[web.Limit]*limiter{web.SignInLimit: s.loginLimiter, web.AuthorizeLimit: s.authorizeLimiter}[rt.Limit]
		s.add(Route{Method: rt.Method, Path: rt.Path, Access: auth.Public, Page: true, PerIP: perIP,
			Heavy: rt.Heavy, HeavyWith: rt.HeavyWith, Once: rt.Once, Upload: rt.Upload, LongWrite: rt.LongWrite},
			handlerFunc(rt.Handler))
	}
}

// SetupURL is the link to the first-run setup page, with the setup code
// that proves the visitor can read the server's log.
func (s *Server) SetupURL() string { return s.web.SetupURL() }

// webHost is the server's side of the pages (web.Host): the work they share
// with REST routes whose state is the server's.
type webHost struct{ s *Server }

func (h webHost) CanReadImages() (bool, string) { return h.s.ai.CanReadImages() }

func (h webHost) ParseText(ctx context.Context, hd http.Header, userID string, text finance.Field[string]) (ai.Result, error) {
	return h.s.parseExpenseText(ctx, hd, userID, text)
}

func (h webHost) ParseReceipt(r *http.Request, hd http.Header, userID, formSecret string) (string, ai.Result, error) {
	return h.s.parseReceiptForm(r, hd, userID, formSecret)
}

func (h webHost) UploadPicture(r *http.Request, userID, formSecret string) error {
	image, pic, err := h.s.readPictureForm(r, formSecret)
	if err != nil {
		return err
	}
	_, err = h.s.setProfilePicture(r.Context(), userID, image, pic)
	return err
}

func (h webHost) SetPicture(ctx context.Context, userID string, pic finance.ProfilePicture) error {
	_, err := h.s.setProfilePicture(ctx, userID, nil, pic)
	return err
}

func (h webHost) ChangePassword(w http.ResponseWriter, r *http.Request, userID string, req auth.PasswordChangeRequest, keepSessionID string) error {
	_, err := h.s.changeOwnPassword(w, r, userID, req, keepSessionID)
	return err
}

func (h webHost) GenerateDue(ctx context.Context, userID string, statements, bills bool) {
	h.s.generateDue(ctx, userID, statements, bills)
}

func (h webHost) ReserveUpload(r *http.Request, hd http.Header, limit int64) (func(), error) {
	return h.s.reserveUpload(r, hd, limit)
}
