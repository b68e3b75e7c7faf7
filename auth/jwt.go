package auth

import (
	"errors"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// JWT issues and verifies the first-party access tokens returned by
// POST /api/v1/auth/login. They are HS256-signed with a secret kept in the
// data directory, short-lived, and not scope-limited.
type JWT struct {
	secret []byte
	ttl    time.Duration
	now    func() time.Time
}

// DefaultJWTTTL is the lifetime of a first-party access token.
const DefaultJWTTTL = 15 * time.Minute

const (
	jwtIssuer   = "finance"
	jwtAudience = "finance-api"
)

// NewJWT returns an issuer using secret (at least 32 bytes).
func NewJWT(secret []byte, ttl time.Duration) (*JWT, error) {
	if len(secret) < 32 {
		return nil, errors.New("auth: JWT secret must be at least 32 bytes")
	}
	return &JWT{secret: secret, ttl: ttl, now: time.Now}, nil
}

// TTL is the lifetime of issued tokens.
func (j *JWT) TTL() time.Duration { return j.ttl }

// claims are the claims of an access token: the registered ones, and the
// credential epoch of the user it was issued under (see Identity). A token
// from before epochs existed has none and reads as epoch 0, the epoch of a
// user whose password never changed.
type claims struct {
	jwt.RegisteredClaims
	Epoch int64 `json:"credential_epoch"`
}

// Issue returns a signed token for userID under credential epoch.
func (j *JWT) Issue(userID string, epoch int64) (string, error) {
	now := j.now()
	c := claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    jwtIssuer,
			Subject:   userID,
			Audience:  jwt.ClaimStrings{jwtAudience},
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(j.ttl)),
		},
		Epoch: epoch,
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(j.secret)
}

// Verify checks the signature, algorithm, issuer, audience and expiry and
// returns the user id and the credential epoch the token was issued under.
func (j *JWT) Verify(token string) (userID string, epoch int64, err error) {
	var c claims
	_, err = jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return j.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(jwtIssuer), jwt.WithAudience(jwtAudience),
		jwt.WithExpirationRequired(), jwt.WithTimeFunc(j.now))
	if err != nil {
		if errors.Is(err, jwt.ErrTokenExpired) {
			return "", 0, unauthenticated("The access token has expired; sign in again")
		}
		return "", 0, unauthenticated("The access token is invalid")
	}
	if c.Subject == "" {
		return "", 0, unauthenticated("The access token is invalid")
	}
	return c.Subject, c.Epoch, nil
}
