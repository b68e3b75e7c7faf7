package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"strings"
	"time"
)

// APIKey is a stored key. Only the SHA-256 of its secret is kept; the full
// key (svk_<public>_<secret>) is shown once, when it is created.
type APIKey struct {
	ID         string     `json:"id"`
	UserID     string     `json:"user_id"`
	Name       string     `json:"name"`
	PublicID   string     `json:"public_id"`
	SecretHash []byte     `json:"-"`
	Scopes     []Scope    `json:"scopes"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  *time.Time `json:"expires_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

// Status is "active", "revoked" or "expired" at time now.
func (k APIKey) Status(now time.Time) string {
	switch {
	case k.RevokedAt != nil:
		return "revoked"
	case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
		return "expired"
	}
	return "active"
}

// KeyPrefix starts every current API key.
const KeyPrefix = "svk_"

// Lowercase base32 without padding: no '_' or '.', so the parts split cleanly,
// and the key survives shells, URLs and double-click selection.
var keyEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// randomToken returns n random bytes encoded with keyEncoding.
func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return keyEncoding.EncodeToString(b)
}

// newKeyMaterial returns a fresh key string and its public id and secret hash.
// The secret carries 256 bits of entropy; the public id 80 bits.
func newKeyMaterial() (key, publicID string, secretHash []byte) {
	publicID = randomToken(10)
	secret := randomToken(32)
	return KeyPrefix + publicID + "_" + secret, publicID, hashSecret(secret)
}

func hashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// parseKey splits svk_<public>_<secret>. ok is false for anything else.
func parseKey(token string) (publicID, secret string, ok bool) {
	rest, found := strings.CutPrefix(token, KeyPrefix)
	if !found {
		return "", "", false
	}
	publicID, secret, found = strings.Cut(rest, "_")
	if !found || publicID == "" || secret == "" || strings.Contains(secret, "_") {
		return "", "", false
	}
	return publicID, secret, true
}

// secretMatches compares in constant time, so response timing reveals nothing about the hash.
func secretMatches(k APIKey, secret string) bool {
	// The secret is copied into a buffer on the stack (a conversion's own
	// holds only 32 bytes) and hashed there: no allocation per check.
	var buf [64]byte
	h := sha256.Sum256(append(buf[:0], secret...))
	return subtle.ConstantTimeCompare(k.SecretHash, h[:]) == 1
}
