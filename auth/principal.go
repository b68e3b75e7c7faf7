package auth

import (
	"context"

	"github.com/finance-app/finance/finance"
)

// Method is how a Principal proved who it is.
type Method string

const (
	MethodAPIKey Method = "api_key"
	MethodJWT    Method = "jwt"
	MethodOAuth  Method = "oauth"
	// MethodMessaging is a chat of a messaging platform linked to the user
	// (the Telegram bot); it acts with MessagingScopes.
	MethodMessaging Method = "messaging"
)

// Principal is the authenticated caller: the user whose data every read and
// write is limited to, and what the credential allows. The owner of every
// record is taken from here, never from the request.
type Principal struct {
	User         finance.User
	Method       Method
	CredentialID string  // API key id, OAuth grant id, or the user id for JWTs
	Scopes       []Scope // empty for first-party JWTs, which are not scope-limited
	// CredentialName is the API key's name or the connected app's (OAuth
	// client's) name, as the user's writes record it.
	CredentialName string
}

// Actor is who the ledger records as making p's writes (docs/domain.md
// "Activity: who did what").
func (p Principal) Actor() finance.Actor {
	switch p.Method {
	case MethodAPIKey:
		return finance.Actor{Kind: finance.ActorAPIKey, ID: p.CredentialID, Name: p.CredentialName}
	case MethodOAuth:
		return finance.Actor{Kind: finance.ActorOAuthClient, ID: p.CredentialID, Name: p.CredentialName}
	case MethodMessaging:
		return finance.Actor{Kind: finance.ActorTelegram, ID: p.User.ID, Name: "Telegram"}
	}
	return finance.Actor{Kind: finance.ActorApp, ID: p.User.ID, Name: "Signed-in app"}
}

// UserID is the id of the calling user.
func (p Principal) UserID() string { return p.User.ID }

// NeedsPro reports whether this kind of credential is a Pro-plan feature
// (API keys, OAuth connections and linked chats are; first-party sign-in is not).
func (p Principal) NeedsPro() bool {
	return p.Method == MethodAPIKey || p.Method == MethodOAuth || p.Method == MethodMessaging
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the Principal of ctx, if any.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
