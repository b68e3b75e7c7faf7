package telegram

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/finance-app/finance/telegram/telegramtest"
)

const testToken = "123456789:AAEtest-token_abcdefghijklmnopqrstu"

func TestCommand(t *testing.T) {
	tests := []struct{ in, cmd, arg string }{
		{"/link ABCD-EFGH", "/link", "ABCD-EFGH"},
		{"  /LINK@finance_bot  abcd efgh ", "/link", "abcd efgh"},
		{"/today", "/today", ""},
		{"lunch 250 cash", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		if cmd, arg := command(tt.in); cmd != tt.cmd || arg != tt.arg {
			t.Errorf("command(%q) = %q, %q; want %q, %q", tt.in, cmd, arg, tt.cmd, tt.arg)
		}
	}
}

func TestLinkCodes(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		c := newLinkCode()
		if len(c) != LinkCodeLen || strings.Trim(c, linkAlphabet) != "" {
			t.Fatalf("code %q is not 8 characters of the alphabet", c)
		}
		seen[c] = true
	}
	if len(seen) < 199 {
		t.Errorf("only %d distinct codes in 200", len(seen))
	}
	for in, want := range map[string]string{
		"abcd-efgh": "ABCDEFGH", " ABCD EFGH ": "ABCDEFGH", "ABCDEFGH": "ABCDEFGH",
		"ABCD-EFG": "", "ABCD-EFGI": "", "ABCD-EFG0": "", "ABCDEFGHJ": "",
	} {
		got, ok := normalizeLinkCode(in)
		if got != want || ok != (want != "") {
			t.Errorf("normalizeLinkCode(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if FormatLinkCode("ABCDEFGH") != "ABCD-EFGH" {
		t.Error("FormatLinkCode")
	}
}

func TestParseCallback(t *testing.T) {
	id := "019a8f4e-6c1d-7b2a-9e3f-5d4c3b2a1908"
	for data, want := range map[string]string{
		"p:c:" + id: "p c " + id, "d:x:" + id: "d x " + id,
		"p:y:" + id: "  ", "q:c:" + id: "  ", "p:c:not-an-id": "  ", "p:c": "  ", "": "  ",
	} {
		kind, action, gotID := parseCallback(data)
		if got := kind + " " + action + " " + gotID; got != want {
			t.Errorf("parseCallback(%q) = %q, want %q", data, got, want)
		}
	}
	if b := buttons(kindProposal, id); len(b.InlineKeyboard[0][0].CallbackData) > 64 {
		t.Error("callback data over Telegram's 64 bytes")
	}
}

// Every fixed reply is valid MarkdownV2 (Telegram refuses the message otherwise).
func TestFixedRepliesAreValidMarkdownV2(t *testing.T) {
	b := &Bot{}
	withAssistant := &Bot{assistant: NewRESTAssistant(nil)}
	for name, text := range map[string]string{
		"not linked": notLinkedText, "unlinked": unlinkedText, "pro": proText,
		"help": b.helpText(), "help with assistant": withAssistant.helpText(),
		"escaped data": Escape(`Kape_ni *Ana* [2] (x) ~ > # + - = | { } . ! \ ` + "`"),
	} {
		if !telegramtest.ValidMarkdownV2(text) {
			t.Errorf("%s: %q is not valid MarkdownV2", name, text)
		}
	}
	if telegramtest.ValidMarkdownV2("1.5") || telegramtest.ValidMarkdownV2("*open") {
		t.Error("the checker accepts unescaped text; it checks nothing")
	}
}

func TestClientCallsAndErrors(t *testing.T) {
	fake := telegramtest.New(t, testToken)
	c := NewClient(fake.URL, testToken, 0, nil)
	ctx := context.Background()
	markup := buttons(kindDraft, "019a8f4e-6c1d-7b2a-9e3f-5d4c3b2a1908")
	if err := c.SendMessage(ctx, SendMessageRequest{ChatID: 7, Text: Escape("Total: 1.50"), ParseMode: "MarkdownV2", ReplyMarkup: markup}); err != nil {
		t.Fatal(err)
	}
	calls := fake.Calls("sendMessage")
	if len(calls) != 1 || calls[0].Text() != `Total: 1\.50` || calls[0].Body["parse_mode"] != "MarkdownV2" ||
		strings.Join(calls[0].Buttons(), ",") != "d:c:019a8f4e-6c1d-7b2a-9e3f-5d4c3b2a1908,d:x:019a8f4e-6c1d-7b2a-9e3f-5d4c3b2a1908" {
		t.Fatalf("recorded %+v", calls)
	}
	// A refusal of the Bot API is an APIError.
	err := c.SendMessage(ctx, SendMessageRequest{ChatID: 7, Text: "1.5", ParseMode: "MarkdownV2"})
	if ae, ok := err.(*APIError); !ok || ae.Code != 400 {
		t.Fatalf("err %v", err)
	}
	// Files: the size limit is checked before and while downloading.
	fake.AddFile("f1", []byte("0123456789"))
	if b, err := c.DownloadFile(ctx, "f1", 10); err != nil || string(b) != "0123456789" {
		t.Fatalf("download %q %v", b, err)
	}
	if _, err := c.DownloadFile(ctx, "f1", 9); err != ErrFileTooLarge {
		t.Fatalf("over the limit: %v", err)
	}
	// The token never appears in an error, even one carrying the URL.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	err = NewClient(dead.URL, testToken, 0, nil).SendMessage(ctx, SendMessageRequest{ChatID: 1, Text: "x"})
	if err == nil || strings.Contains(err.Error(), testToken) || strings.Contains(err.Error(), "AAEtest") {
		t.Fatalf("error %v", err)
	}
}

func TestSecretMatches(t *testing.T) {
	b, err := New(Config{Token: testToken, Secret: strings.Repeat("s", 40)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for secret, want := range map[string]bool{strings.Repeat("s", 40): true, strings.Repeat("s", 39): false,
		strings.Repeat("s", 41): false, "": false, strings.Repeat("S", 40): false} {
		if got := b.SecretMatches(secret); got != want {
			t.Errorf("SecretMatches(%d chars) = %v", len(secret), got)
		}
	}
	if _, err := New(Config{Token: testToken, Secret: "short"}, nil); err == nil {
		t.Error("a short secret is accepted")
	}
	if _, err := New(Config{Token: "not-a-token", Secret: strings.Repeat("s", 40)}, nil); err == nil {
		t.Error("a malformed token is accepted")
	}
}
