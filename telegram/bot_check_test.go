package telegram

import (
	"strings"
	"testing"
)

// A bot token is BotFather's form (its id's digits, a colon, 20 to 100
// characters of secret) and a webhook secret 32 to 256 characters of
// A-Z a-z 0-9 _ -; anything else is refused before it reaches Telegram.
func TestCheckTokenAndSecret(t *testing.T) {
	secret := strings.Repeat("Ab9_-", 4) // 20 characters
	for token, ok := range map[string]bool{
		"123456789:" + secret:                        true,
		"1:" + strings.Repeat("x", 100):              true,
		"123456789:" + secret[:19]:                   false,
		"1:" + strings.Repeat("x", 101):              false,
		"12a456789:" + secret:                        false,
		":" + secret:                                 false,
		strings.Repeat("1", 21) + ":" + secret:       false,
		"123456789" + secret:                         false,
		"123456789:" + secret[:19] + ":":             false,
		"123456789:" + secret[:19] + " ":             false,
		" 123456789:" + secret:                       false,
		strings.Repeat("1", 20) + ":" + secret + "_": true,
	} {
		if err := CheckToken(token); (err == nil) != ok {
			t.Errorf("CheckToken(%q) = %v, want accepted %v", token, err, ok)
		}
	}
	for s, ok := range map[string]bool{
		strings.Repeat("a", 32):           true,
		strings.Repeat("a-_Z9", 52)[:256]: true,
		strings.Repeat("a", 31):           false,
		strings.Repeat("a", 257):          false,
		strings.Repeat("a", 31) + "=":     false,
		strings.Repeat("a", 31) + "é":     false,
	} {
		if err := CheckSecret(s); (err == nil) != ok {
			t.Errorf("CheckSecret(%q) = %v, want accepted %v", s, err, ok)
		}
	}
}
