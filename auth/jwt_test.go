package auth

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef")

// newTestJWT returns an issuer whose clock is at *now.
func newTestJWT(t *testing.T, ttl time.Duration, now *time.Time) *JWT {
	t.Helper()
	j, err := NewJWT(testSecret, ttl)
	if err != nil {
		t.Fatal(err)
	}
	j.now = func() time.Time { return *now }
	return j
}

// sign signs claims with method and key, as a forger or another issuer would.
func sign(t *testing.T, method jwt.SigningMethod, key any, claims jwt.Claims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNewJWT(t *testing.T) {
	if _, err := NewJWT(testSecret[:31], time.Minute); err == nil {
		t.Error("NewJWT accepts a 31-byte secret")
	}
	j, err := NewJWT(testSecret, 5*time.Minute)
	if err != nil || j.TTL() != 5*time.Minute {
		t.Errorf("NewJWT = %v, %v; want TTL 5m", j, err)
	}
}

func TestJWTIssueVerify(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	j := newTestJWT(t, 15*time.Minute, &now)
	token, err := j.Issue("user-1", 3)
	if err != nil {
		t.Fatal(err)
	}

	var got jwt.MapClaims
	if _, err := jwt.ParseWithClaims(token, &got, func(*jwt.Token) (any, error) { return testSecret, nil },
		jwt.WithTimeFunc(func() time.Time { return now })); err != nil {
		t.Fatalf("the issued token does not parse: %v", err)
	}
	want := jwt.MapClaims{
		"iss": "finance", "sub": "user-1", "aud": []any{"finance-api"},
		"iat": float64(now.Unix()), "exp": float64(now.Add(15 * time.Minute).Unix()),
		"credential_epoch": float64(3),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claims mismatch (-want +got):\n%s", diff)
	}

	if sub, epoch, err := j.Verify(token); err != nil || sub != "user-1" || epoch != 3 {
		t.Errorf("Verify = %q, %d, %v; want user-1, epoch 3", sub, epoch, err)
	}
	now = now.Add(15*time.Minute - time.Second)
	if _, _, err := j.Verify(token); err != nil {
		t.Errorf("Verify one second before expiry: %v", err)
	}
	now = now.Add(time.Second)
	if _, _, err := j.Verify(token); err == nil || err.Error() != "The access token has expired; sign in again" {
		t.Errorf("Verify at expiry = %v, want the expired message", err)
	}
}

// A token issued before tokens carried an epoch reads as epoch 0: valid for
// a user whose password never changed, refused for any other.
func TestJWTWithoutEpoch(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	j := newTestJWT(t, 15*time.Minute, &now)
	token := sign(t, jwt.SigningMethodHS256, testSecret, jwt.RegisteredClaims{
		Issuer: "finance", Subject: "user-1", Audience: jwt.ClaimStrings{"finance-api"},
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Minute)),
	})
	if sub, epoch, err := j.Verify(token); err != nil || sub != "user-1" || epoch != 0 {
		t.Errorf("Verify = %q, %d, %v; want user-1, epoch 0", sub, epoch, err)
	}
}

func TestJWTVerifyRejects(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	j := newTestJWT(t, 15*time.Minute, &now)
	good := func(mod func(*jwt.RegisteredClaims)) jwt.RegisteredClaims {
		c := jwt.RegisteredClaims{
			Issuer: "finance", Subject: "user-1", Audience: jwt.ClaimStrings{"finance-api"},
			IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Minute)),
		}
		if mod != nil {
			mod(&c)
		}
		return c
	}
	issued, _ := j.Issue("user-1", 0)
	parts := strings.Split(issued, ".")

	const invalid = "The access token is invalid"
	tests := []struct {
		name  string
		token string
		want  string
	}{
		{"control: correctly signed claims", sign(t, jwt.SigningMethodHS256, testSecret, good(nil)), ""},
		{"wrong secret", sign(t, jwt.SigningMethodHS256, []byte("another-secret-another-secret-32"), good(nil)), invalid},
		{"alg none", sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, good(nil)), invalid},
		{"HS512 with the right secret", sign(t, jwt.SigningMethodHS512, testSecret, good(nil)), invalid},
		{"wrong audience", sign(t, jwt.SigningMethodHS256, testSecret, good(func(c *jwt.RegisteredClaims) {
			c.Audience = jwt.ClaimStrings{"mcp"}
		})), invalid},
		{"no audience", sign(t, jwt.SigningMethodHS256, testSecret, good(func(c *jwt.RegisteredClaims) { c.Audience = nil })), invalid},
		{"wrong issuer", sign(t, jwt.SigningMethodHS256, testSecret, good(func(c *jwt.RegisteredClaims) { c.Issuer = "evil" })), invalid},
		{"no expiry", sign(t, jwt.SigningMethodHS256, testSecret, good(func(c *jwt.RegisteredClaims) { c.ExpiresAt = nil })), invalid},
		{"no subject", sign(t, jwt.SigningMethodHS256, testSecret, good(func(c *jwt.RegisteredClaims) { c.Subject = "" })), invalid},
		{"expired", sign(t, jwt.SigningMethodHS256, testSecret, good(func(c *jwt.RegisteredClaims) {
			c.ExpiresAt = jwt.NewNumericDate(now.Add(-time.Second))
		})), "The access token has expired; sign in again"},
		{"not yet valid", sign(t, jwt.SigningMethodHS256, testSecret, good(func(c *jwt.RegisteredClaims) {
			c.NotBefore = jwt.NewNumericDate(now.Add(time.Minute))
		})), invalid},
		{"payload swapped", parts[0] + "." + strings.Split(sign(t, jwt.SigningMethodHS256, testSecret, good(func(c *jwt.RegisteredClaims) {
			c.Subject = "user-2"
		})), ".")[1] + "." + parts[2], invalid},
		{"signature stripped", parts[0] + "." + parts[1] + ".", invalid},
		{"garbage", "a.b.c", invalid},
		{"empty", "", invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub, _, err := j.Verify(tt.token)
			if tt.want == "" {
				if err != nil || sub != "user-1" {
					t.Errorf("Verify = %q, %v; want user-1", sub, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Verify accepted the token as %q", sub)
			}
			if err.Error() != tt.want || !errors.Is(err, ErrUnauthenticated) {
				t.Errorf("Verify error = %v, want %q matching ErrUnauthenticated", err, tt.want)
			}
			if sub != "" {
				t.Errorf("Verify returned subject %q with its error", sub)
			}
		})
	}
}
