package telegram

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"strings"
	"time"
)

// Link codes: a signed-in user gets one (settings page or CLI) and sends
// /link CODE to the bot, which ties that chat to the user. A code is 8
// characters from an alphabet without look-alikes (no 0, 1, I, L or O), which
// is almost 40 bits; it lives 10 minutes, is used once, is stored only as its
// SHA-256, and each chat may try 5 codes per 10 minutes.

// linkAlphabet has 31 characters: A-Z and 2-9 without I, L and O.
const linkAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

// Link code rules.
const (
	LinkCodeLen = 8
	LinkCodeTTL = 10 * time.Minute
)

// newLinkCode returns a random code.
func newLinkCode() string {
	var b [LinkCodeLen]byte
	out := make([]byte, LinkCodeLen)
	for i := 0; i < LinkCodeLen; {
		if _, err := rand.Read(b[:]); err != nil {
			panic(err) // crypto/rand does not fail on supported platforms
		}
		for _, c := range b {
			// Rejection sampling keeps every character equally likely.
			if v := int(c & 31); v < len(linkAlphabet) && i < LinkCodeLen {
				out[i] = linkAlphabet[v]
				i++
			}
		}
	}
	return string(out)
}

// normalizeLinkCode reads a code as people type it: any case, spaces or a
// dash between its halves.
func normalizeLinkCode(s string) (string, bool) {
	s = strings.ToUpper(strings.NewReplacer(" ", "", "-", "").Replace(strings.TrimSpace(s)))
	if len(s) != LinkCodeLen {
		return "", false
	}
	for _, c := range s {
		if !strings.ContainsRune(linkAlphabet, c) {
			return "", false
		}
	}
	return s, true
}

func hashLinkCode(code string) []byte {
	h := sha256.Sum256([]byte("telegram-link:" + code))
	return h[:]
}

// IssueLinkCode makes a new link code for the user, valid LinkCodeTTL from
// now, and stores its hash (replacing the user's earlier code). The code
// itself is returned once and never stored.
func IssueLinkCode(ctx context.Context, s Store, userID string, now time.Time) (code string, expires time.Time, err error) {
	code = newLinkCode()
	expires = now.UTC().Add(LinkCodeTTL)
	if err := s.SaveTelegramLinkCode(ctx, userID, hashLinkCode(code), now.UTC(), expires); err != nil {
		return "", time.Time{}, err
	}
	return code, expires, nil
}

// FormatLinkCode shows a code in two halves (ABCD-EFGH), easier to copy by eye.
func FormatLinkCode(code string) string {
	if len(code) != LinkCodeLen {
		return code
	}
	return code[:4] + "-" + code[4:]
}

// IssueLinkCode makes a new link code for the user (see the function of the same name).
func (b *Bot) IssueLinkCode(ctx context.Context, userID string) (string, time.Time, error) {
	return IssueLinkCode(ctx, b.store, userID, b.now())
}

// Chats lists the user's linked chats.
func (b *Bot) Chats(ctx context.Context, userID string) ([]ChatLink, error) {
	return b.store.TelegramChats(ctx, userID)
}

// Unlink ends the user's link of a chat (from the settings page).
func (b *Bot) Unlink(ctx context.Context, userID string, chatID int64) error {
	return b.store.UnlinkTelegramChat(ctx, userID, chatID)
}
