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

// The messaging webhook (specification §4.2, §5); the Messaging settings
// page is the web app's. POST /messaging-platform/webhook takes Telegram's
// updates: it is outside API-key access (auth.PlatformSecret); what authenticates it is
// the secret Telegram sends in X-Telegram-Bot-Api-Secret-Token, compared in
// constant time before the body is read. The update is stored and the
// route answers 200 at once; the bot (package telegram) handles it in the
// background, calling REST routes in process as the chat's linked user
// (MessagingAPI). Without a bot token the route answers 404.

// MessagingWebhookPath is the address to register with setWebhook.
const MessagingWebhookPath = APIPrefix + "messaging-platform/webhook"

func (s *Server) registerMessagingRoutes() {
	s.add(Route{Method: http.MethodPost, Path: MessagingWebhookPath, Access: auth.PlatformSecret}, s.messagingWebhook)
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
