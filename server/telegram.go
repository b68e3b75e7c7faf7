package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/telegram"
)

// The messaging webhook (specification §4.2, §5) and the Messaging settings
// page. POST /messaging-platform/webhook takes Telegram's updates: it is
// outside API-key access (auth.PlatformSecret); what authenticates it is
// the secret Telegram sends in X-Telegram-Bot-Api-Secret-Token, compared in
// constant time before the body is read. The update is stored and the
// route answers 200 at once; the bot (package telegram) handles it in the
// background, calling REST routes in process as the chat's linked user
// (MessagingAPI). Without a bot token the route answers 404.

// MessagingWebhookPath is the address to register with setWebhook.
const MessagingWebhookPath = APIPrefix + "messaging-platform/webhook"

// MessagingPath is the Messaging settings page.
const MessagingPath = "/settings/messaging"

func (s *Server) registerMessagingRoutes() {
	s.add(Route{Method: http.MethodPost, Path: MessagingWebhookPath, Access: auth.PlatformSecret}, s.messagingWebhook)
	s.page(http.MethodGet, MessagingPath, s.messagingPage)
	s.page(http.MethodPost, MessagingPath+"/link-code", s.messagingLinkCode)
	s.page(http.MethodPost, MessagingPath+"/chats/:chat/unlink", s.messagingUnlink)
}

var errWebhookSecret = httperr.New(http.StatusUnauthorized, CodeUnauthorized,
	"The "+telegram.WebhookHeader+" header is missing or does not match the webhook secret")

func (s *Server) messagingWebhook(w http.ResponseWriter, r bunrouter.Request) error {
	if s.telegram == nil {
		return httperr.RouteNotFound(r.Request)
	}
	// Per source address, before anything else: a flood of guesses costs a
	// map lookup. Telegram retries a refused update later.
	d := s.webhookLimiter.take(s.clientIP(r.Request))
	s.webhookLimiter.setHeaders(w.Header(), d)
	if !d.allowed {
		return errRateLimited
	}
	if !s.telegram.SecretMatches(r.Header.Get(telegram.WebhookHeader)) {
		return errWebhookSecret
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, telegram.MaxUpdateBytes+1))
	if err != nil {
		return s.readError(err)
	}
	if len(body) > telegram.MaxUpdateBytes {
		return httperr.New(http.StatusRequestEntityTooLarge, CodeValidation,
			"An update is at most "+strconv.Itoa(telegram.MaxUpdateBytes)+" bytes")
	}
	if err := s.telegram.Accept(r.Context(), body); err != nil {
		if errors.Is(err, telegram.ErrMalformedUpdate) {
			return httperr.BadRequest("The body is not a Telegram update (a JSON object with a positive update_id)", nil)
		}
		return err
	}
	writeData(w, http.StatusOK, "Update received", nil)
	return nil
}

func (s *Server) readError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return httperr.TooLarge(tooLarge.Limit)
	}
	return httperr.BadRequest("Could not read the request body", nil)
}

// MessagingAPI is how the bot calls the REST routes: in process, as the
// linked user with auth.MessagingScopes and the Pro plan check of API keys.
func (s *Server) MessagingAPI() telegram.API { return messagingAPI{s} }

type messagingAPI struct{ s *Server }

func (m messagingAPI) Pro(ctx context.Context, userID string) (bool, error) {
	p, err := m.s.auth.MessagingPrincipal(ctx, userID)
	if err != nil {
		return false, err
	}
	return p.User.Plan == finance.PlanPro, nil
}

func (m messagingAPI) Call(ctx context.Context, userID string, req telegram.Request) telegram.Response {
	p, err := m.s.auth.MessagingPrincipal(ctx, userID)
	if err != nil {
		m.s.log.WarnContext(ctx, "messaging: the linked user", "error", err)
		return telegram.Response{Status: http.StatusUnauthorized, Code: CodeUnauthorized, Message: "The linked user no longer exists"}
	}
	r, err := http.NewRequestWithContext(ctx, req.Method, req.Path, bytes.NewReader(req.Body))
	if err != nil {
		return telegram.Response{Status: http.StatusBadRequest, Code: CodeValidation, Message: "Bad request"}
	}
	r.Header.Set("Accept", "application/json")
	if req.ContentType != "" {
		r.Header.Set("Content-Type", req.ContentType)
	}
	if req.IdempotencyKey != "" {
		r.Header.Set(IdempotencyKeyHeader, req.IdempotencyKey)
	}
	r.ContentLength = int64(len(req.Body))
	rec := &bufferedResponse{header: http.Header{}}
	s := m.s
	s.ServeAs(p, rec, r)
	var env struct {
		Success bool            `json:"success"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
		Error   *errorDetail    `json:"error"`
	}
	out := telegram.Response{Status: rec.status}
	if err := json.Unmarshal(rec.body.Bytes(), &env); err != nil {
		return telegram.Response{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "The route did not answer with JSON"}
	}
	out.Message, out.Data = env.Message, env.Data
	if env.Error != nil {
		out.Message, out.Code = env.Error.Message, env.Error.Code
	}
	return out
}

// --- the Messaging settings page ----------------------------------------------

type chatView struct {
	ID, Label, Linked string
}

type messagingData struct {
	Configured bool
	Pro        bool
	Chats      []chatView
	Code       string // a new link code, shown once
	Expires    string
}

func (s *Server) messagingView(ctx context.Context, u finance.User) (messagingData, error) {
	d := messagingData{Configured: s.telegram != nil, Pro: u.Plan == finance.PlanPro}
	if s.telegram == nil {
		return d, nil
	}
	chats, err := s.telegram.Chats(ctx, u.ID)
	if err != nil {
		return d, err
	}
	for _, c := range chats {
		d.Chats = append(d.Chats, chatView{ID: strconv.FormatInt(c.ChatID, 10), Label: c.Label, Linked: displayTime(&c.LinkedAt, "")})
	}
	return d, nil
}

func (s *Server) messagingPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	d, err := s.messagingView(r.Context(), u)
	if err != nil {
		return err
	}
	return s.render(w, r.Request, "messaging", pageView{Title: "Messaging", Nav: "settings", User: &u, CSRF: auth.CSRFToken(sid),
		Notice: notices[r.URL.Query().Get("notice")], Data: d})
}

// messagingLinkCode shows a new link code in this response only.
func (s *Server) messagingLinkCode(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	if s.telegram == nil {
		return httperr.RouteNotFound(r.Request)
	}
	p := pageView{Title: "Messaging", Nav: "settings", User: &u, CSRF: auth.CSRFToken(sid)}
	d, err := s.messagingView(r.Context(), u)
	if err != nil {
		return err
	}
	if u.Plan != finance.PlanPro {
		p.status = http.StatusPaymentRequired
		p.Error = "Telegram access is a Pro plan feature, like API access; no code was made."
	} else {
		code, expires, err := s.telegram.IssueLinkCode(r.Context(), u.ID)
		if err != nil {
			return err
		}
		d.Code, d.Expires = telegram.FormatLinkCode(code), displayTime(&expires, "")
	}
	p.Data = d
	return s.render(w, r.Request, "messaging", p)
}

func (s *Server) messagingUnlink(w http.ResponseWriter, r bunrouter.Request) error {
	u, _, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	chat, perr := strconv.ParseInt(r.Param("chat"), 10, 64)
	if s.telegram == nil || perr != nil {
		return httperr.RouteNotFound(r.Request)
	}
	if err := s.telegram.Unlink(r.Context(), u.ID, chat); err != nil {
		return err
	}
	setPageHeaders(w.Header(), "")
	http.Redirect(w, r.Request, MessagingPath+"?notice=unlinked", http.StatusSeeOther)
	return nil
}
