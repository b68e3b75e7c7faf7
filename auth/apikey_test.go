package auth

import (
	"bytes"
	"crypto/sha256"
	"regexp"
	"strings"
	"testing"
	"time"
)

// keyFormat is svk_<public>_<secret>: 10 random bytes and 32 random bytes in
// lowercase unpadded base32, so neither part contains '_' or '.'.
var keyFormat = regexp.MustCompile(`^svk_([a-z2-7]{16})_([a-z2-7]{52})$`)

func TestKeyMaterial(t *testing.T) {
	key, publicID, hash := newKeyMaterial()
	m := keyFormat.FindStringSubmatch(key)
	if m == nil {
		t.Fatalf("key %q does not match %s", key, keyFormat)
	}
	if m[1] != publicID {
		t.Errorf("public part %q, want the returned public id %q", m[1], publicID)
	}
	if want := sha256.Sum256([]byte(m[2])); !bytes.Equal(hash, want[:]) {
		t.Errorf("secret hash is not the SHA-256 of the secret part")
	}
	if strings.Contains(key, m[2]+"_") || strings.Count(key, "_") != 2 || strings.Contains(key, ".") {
		t.Errorf("key %q has separators inside its parts", key)
	}

	gotPublic, gotSecret, ok := parseKey(key)
	if !ok || gotPublic != publicID || gotSecret != m[2] {
		t.Errorf("parseKey(%q) = %q, %q, %v; want %q, %q, true", key, gotPublic, gotSecret, ok, publicID, m[2])
	}
	if !secretMatches(APIKey{SecretHash: hash}, gotSecret) {
		t.Error("secretMatches rejects the key's own secret")
	}
	if secretMatches(APIKey{SecretHash: nil}, gotSecret) {
		t.Error("secretMatches accepts a key with no stored hash")
	}

	key2, publicID2, hash2 := newKeyMaterial()
	if key2 == key || publicID2 == publicID || bytes.Equal(hash2, hash) {
		t.Error("two new keys share material")
	}
	_, secret2, _ := parseKey(key2)
	if secretMatches(APIKey{SecretHash: hash}, secret2) {
		t.Error("secretMatches accepts another key's secret")
	}
}

func TestParseKey(t *testing.T) {
	tests := []struct {
		in                 string
		wantPublic, wantSe string
		wantOK             bool
	}{
		{"svk_abc_def", "abc", "def", true},
		{"svk_", "", "", false},
		{"svk_abc", "", "", false},
		{"svk__def", "", "", false},
		{"svk_abc_", "", "", false},
		{"svk_abc_def_ghi", "", "", false},
		{"SVK_abc_def", "", "", false},
		{"abc_def", "", "", false},
		{"abc.def", "", "", false},
		{"", "", "", false},
	}
	for _, tt := range tests {
		p, s, ok := parseKey(tt.in)
		if p != tt.wantPublic || s != tt.wantSe || ok != tt.wantOK {
			t.Errorf("parseKey(%q) = %q, %q, %v; want %q, %q, %v", tt.in, p, s, ok, tt.wantPublic, tt.wantSe, tt.wantOK)
		}
	}
}

func TestKeyStatus(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	tests := []struct {
		name string
		key  APIKey
		want string
	}{
		{"never expires", APIKey{}, "active"},
		{"expires later", APIKey{ExpiresAt: at(time.Nanosecond)}, "active"},
		{"expires now", APIKey{ExpiresAt: at(0)}, "expired"},
		{"expired", APIKey{ExpiresAt: at(-time.Hour)}, "expired"},
		{"revoked", APIKey{RevokedAt: at(-time.Hour)}, "revoked"},
		{"revoked wins over expired", APIKey{RevokedAt: at(-time.Hour), ExpiresAt: at(-2 * time.Hour)}, "revoked"},
	}
	for _, tt := range tests {
		if got := tt.key.Status(now); got != tt.want {
			t.Errorf("%s: Status = %q, want %q", tt.name, got, tt.want)
		}
	}
}
