package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/finance-app/finance/telegram/telegramtest"
)

const (
	testBotToken      = "123456789:AAEtest-token_abcdefghijklmnopqrstu"
	testWebhookSecret = "0123456789abcdef0123456789abcdef_webhook"
)

func TestTelegramSetWebhook(t *testing.T) {
	dir := t.TempDir()
	fake := telegramtest.New(t, testBotToken)
	t.Setenv("FINANCE_TELEGRAM_BOT_TOKEN", testBotToken)
	t.Setenv("FINANCE_TELEGRAM_WEBHOOK_SECRET", testWebhookSecret)
	r := mustRun(t, dir, "", "telegram", "set-webhook", "--base-url", "https://finance.example.com/", "--telegram-api-url", fake.URL)
	if !strings.Contains(r.stdout, "https://finance.example.com/api/v1/messaging-platform/webhook") {
		t.Errorf("stdout %q", r.stdout)
	}
	calls := fake.Calls("setWebhook")
	if len(calls) != 1 || calls[0].Body["url"] != "https://finance.example.com/api/v1/messaging-platform/webhook" ||
		calls[0].Body["secret_token"] != testWebhookSecret {
		t.Fatalf("setWebhook calls %+v", calls)
	}
	mustFail(t, dir, "", "only to https", "telegram", "set-webhook", "--base-url", "http://finance.example.com")
	t.Setenv("FINANCE_TELEGRAM_WEBHOOK_SECRET", "short")
	mustFail(t, dir, "", "--telegram-webhook-secret", "telegram", "set-webhook", "--base-url", "https://x.example.com", "--telegram-api-url", fake.URL)
}

func TestServeRefusesHalfATelegramSetup(t *testing.T) {
	dir := t.TempDir()
	mustFail(t, dir, "", "--telegram-webhook-secret is not set", "serve", "--addr", "127.0.0.1:0", "--telegram-bot-token", testBotToken)
	mustFail(t, dir, "", "--telegram-bot-token", "serve", "--addr", "127.0.0.1:0", "--telegram-bot-token", "nope", "--telegram-webhook-secret", testWebhookSecret)
}

func TestTelegramLinkCode(t *testing.T) {
	dir := t.TempDir()
	createUser(t, dir, "pro@example.com")
	createUser(t, dir, "free@example.com", "--plan", "free")
	r := mustRun(t, dir, "", "telegram", "link-code", "--user", "pro@example.com")
	if !regexp.MustCompile(`^/link [A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}\n$`).MatchString(r.stdout) {
		t.Errorf("stdout %q", r.stdout)
	}
	mustFail(t, dir, "", "Pro plan feature", "telegram", "link-code", "--user", "free@example.com")
}
