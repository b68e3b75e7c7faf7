package server

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

func (s *Server) registerLoginRoutes() {
	s.add(Route{Method: http.MethodPost, Path: "/api/v1/auth/login", Access: auth.Public, PerIP: s.loginLimiter}, s.login)
}

// LoginRequest is the body of POST /api/v1/auth/login.
type LoginRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// LoginResponse carries a first-party access token.
type LoginResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"` // seconds
}

// login exchanges an email and password for a short-lived JWT. It is not
// Pro-gated: first-party sign-in works on every plan.
func (s *Server) login(w http.ResponseWriter, r bunrouter.Request) error {
	var req LoginRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	var v finance.Validator
	if req.Email == "" {
		v.Add("email", "is required")
	}
	if req.Password == "" {
		v.Add("password", "is required")
	}
	if err := v.Err(); err != nil {
		return err
	}
	who, err := s.auth.Login(r.Context(), req.Email, req.Password)
	if err != nil {
		return err
	}
	token, err := s.auth.IssueToken(who)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Signed in", LoginResponse{
		AccessToken: token, TokenType: "Bearer", ExpiresIn: int(s.auth.JWT().TTL().Seconds()),
	})
	return nil
}
