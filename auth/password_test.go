package auth

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/crypto/argon2"
)

var phcFormat = regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`)

func TestHashPassword(t *testing.T) {
	const pw = "correct horse battery staple"
	h1, h2 := HashPassword(pw), HashPassword(pw)
	if !phcFormat.MatchString(h1) {
		t.Errorf("hash %q is not an argon2id PHC string with the configured parameters", h1)
	}
	if h1 == h2 {
		t.Error("two hashes of one password are equal; the salt is not random")
	}
	for _, h := range []string{h1, h2} {
		if !VerifyPassword(h, pw) {
			t.Errorf("VerifyPassword(%q, the password) = false", h)
		}
	}
	for _, wrong := range []string{"", "correct horse battery stapl", "Correct horse battery staple", pw + " "} {
		if VerifyPassword(h1, wrong) {
			t.Errorf("VerifyPassword accepts %q", wrong)
		}
	}

	const unicode = "pässwörd-🔑-密码"
	if !VerifyPassword(HashPassword(unicode), unicode) {
		t.Error("a non-ASCII password does not verify")
	}
}

func TestVerifyPasswordReadsParametersFromTheHash(t *testing.T) {
	// A hash made with other (older) parameters keeps working.
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	key := argon2.IDKey([]byte("s3cret-pass"), salt, 1, 8*1024, 2, 16)
	b64 := base64.RawStdEncoding
	old := fmt.Sprintf("$argon2id$v=19$m=8192,t=1,p=2$%s$%s", b64.EncodeToString(salt), b64.EncodeToString(key))
	if !VerifyPassword(old, "s3cret-pass") {
		t.Error("a hash with other parameters does not verify")
	}
	if VerifyPassword(old, "s3cret-pasS") {
		t.Error("a hash with other parameters accepts a wrong password")
	}
}

func TestVerifyPasswordComparesTheWholeKey(t *testing.T) {
	// A stored key that differs from the derived one only in its last byte
	// must not match: the comparison covers every byte.
	h := HashPassword("whatever1")
	i := strings.LastIndex(h, "$")
	key, err := base64.RawStdEncoding.DecodeString(h[i+1:])
	if err != nil {
		t.Fatal(err)
	}
	key[len(key)-1] ^= 1
	tampered := h[:i+1] + base64.RawStdEncoding.EncodeToString(key)
	if VerifyPassword(tampered, "whatever1") {
		t.Error("a hash differing in the last byte of its key accepts the password")
	}
	// Nor does a truncated stored key.
	short := h[:i+1] + base64.RawStdEncoding.EncodeToString(key[:16])
	if VerifyPassword(short, "whatever1") {
		t.Error("a hash with a truncated key accepts the password")
	}
}

func TestVerifyPasswordMalformed(t *testing.T) {
	good := HashPassword("whatever1")
	for _, h := range []string{
		"",
		"whatever1",
		"$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
		"$argon2id$v=19$m=19456,t=2$c2FsdHNhbHRzYWx0c2FsdA$aGFzaA",
		"$argon2id$v=19$m=x,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaA",
		"$argon2id$v=19$m=19456,t=2,p=1$!!!$aGFzaA",
		"$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$",
		"$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaA$extra",
		good[:len(good)-1],
	} {
		if VerifyPassword(h, "whatever1") {
			t.Errorf("VerifyPassword accepts malformed hash %q", h)
		}
	}
}

func TestGeneratePassword(t *testing.T) {
	format := regexp.MustCompile(`^[a-z2-7]{20}$`)
	a, b := GeneratePassword(), GeneratePassword()
	for _, p := range []string{a, b} {
		if !format.MatchString(p) {
			t.Errorf("generated password %q is not 20 base32 characters", p)
		}
	}
	if a == b {
		t.Error("two generated passwords are equal")
	}
}
