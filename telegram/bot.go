package telegram

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/finance-app/finance/internal/ascii"
)

// Config is the bot's setup.
type Config struct {
	// Token is the bot token BotFather gave (123456:ABC...).
	Token string
	// Secret is the webhook's secret token: Telegram sends it in
	// X-Telegram-Bot-Api-Secret-Token with every update.
	Secret string
	// APIURL is the Bot API's address (DefaultAPIURL when empty).
	APIURL string
	// Timeout bounds each Bot API call (DefaultTimeout when 0).
	Timeout    time.Duration
	HTTPClient *http.Client
	// Workers is how many chats are served at once (DefaultWorkers when 0).
	Workers int
	Log     *slog.Logger
	Now     func() time.Time
	// Handled, when set, is called after each update has been handled (or
	// skipped): tests wait on it instead of sleeping.
	Handled func(updateID int64)
}

// Defaults and limits of the bot.
const (
	DefaultWorkers = 2
	// MaxUpdateBytes bounds the webhook's body: an update of the kinds the
	// bot asks for (a message of at most 4096 characters, a photo's ids, a
	// button press) is a few kilobytes.
	MaxUpdateBytes = 64 << 10
	// keepUpdates is how long handled update ids are kept; Telegram gives
	// up redelivering after a day.
	keepUpdates = 7 * 24 * time.Hour
	// batchSize is how many pending updates are read at once.
	batchSize = 32
	// WebhookHeader carries the secret on every delivery.
	WebhookHeader = "X-Telegram-Bot-Api-Secret-Token"
)

// CheckToken reports a bot token that is not of BotFather's form.
func CheckToken(token string) error {
	// The bot's id (1 to 20 digits), a colon, its secret.
	id, secret, ok := strings.Cut(token, ":")
	if !ok || !ascii.Only(id, 1, 20, "") || strings.Trim(id, "0123456789") != "" || !ascii.Only(secret, 20, 100, "_-") {
		return errors.New("want the token BotFather gave, such as 123456789:AAE...; it is the bot's digits, a colon and its secret")
	}
	return nil
}

// CheckSecret reports a webhook secret Telegram would refuse or that is too
// easy to guess: 32 to 256 characters of A-Z a-z 0-9 _ - (openssl rand -hex 32 makes one).
func CheckSecret(secret string) error {
	if !ascii.Only(secret, 32, 256, "_-") {
		return errors.New("want 32 to 256 characters of A-Z, a-z, 0-9, _ and - (for example the output of: openssl rand -hex 32)")
	}
	return nil
}

// Bot receives the webhook's updates, stores each once, and handles them in
// the background: linking chats, and serving linked ones as their user.
type Bot struct {
	cfg    Config
	client *Client
	store  Store
	log    *slog.Logger
	now    func() time.Time
	secret [sha256.Size]byte

	api       API
	assistant Assistant
	links     *attempts

	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	workCtx context.Context
	cancel  context.CancelFunc
	started bool
	mu      sync.Mutex
}

// New returns the bot of cfg, which must hold a valid token and secret.
func New(cfg Config, store Store) (*Bot, error) {
	if err := CheckToken(cfg.Token); err != nil {
		return nil, fmt.Errorf("telegram bot token: %w", err)
	}
	if err := CheckSecret(cfg.Secret); err != nil {
		return nil, fmt.Errorf("telegram webhook secret: %w", err)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	b := &Bot{cfg: cfg, client: NewClient(cfg.APIURL, cfg.Token, cfg.Timeout, cfg.HTTPClient), store: store,
		log: cfg.Log, now: cfg.Now, secret: sha256.Sum256([]byte(cfg.Secret)), links: newAttempts(linkAttempts, linkWindow),
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	b.workCtx, b.cancel = context.WithCancel(context.Background())
	return b, nil
}

// Client is the bot's Bot API client.
func (b *Bot) Client() *Client { return b.client }

// SecretMatches compares the webhook's secret header with the configured
// secret in constant time (both are hashed first, so neither their
// contents nor their lengths show in the timing).
func (b *Bot) SecretMatches(header string) bool {
	got := sha256.Sum256([]byte(header))
	return header != "" && subtle.ConstantTimeCompare(got[:], b.secret[:]) == 1
}

// ErrMalformedUpdate refuses a body that is not an update.
var ErrMalformedUpdate = errors.New("the body is not a Telegram update")

// Accept stores one delivered update for handling, unless its update_id
// was stored before (a redelivery), and wakes the workers. It returns once
// the update is stored, so the webhook can answer 200 at once: from then
// on the update is handled even if the process restarts first.
func (b *Bot) Accept(ctx context.Context, body []byte) error {
	var u Update
	if err := json.Unmarshal(body, &u); err != nil || u.UpdateID <= 0 {
		return ErrMalformedUpdate
	}
	// Only the fields the bot reads are kept.
	payload, err := json.Marshal(u)
	if err != nil {
		return err
	}
	now := b.now().UTC()
	fresh, err := b.store.ClaimTelegramUpdate(ctx, u.UpdateID, payload, now, now.Add(-keepUpdates))
	if err != nil {
		return err
	}
	if fresh {
		select {
		case b.wake <- struct{}{}:
		default: // already woken
		}
	}
	return nil
}

// Start begins handling stored updates (those left pending by an earlier
// run first) through api, as the linked users. assistant may be nil: text
// then gets the built-in parser's drafts.
func (b *Bot) Start(api API, assistant Assistant) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started {
		return
	}
	b.started = true
	b.api, b.assistant = api, assistant
	go b.loop()
}

// Stop stops taking updates and waits for those being handled until ctx
// ends; then their calls are cancelled. Updates not handled stay stored as
// pending and are handled at the next Start.
func (b *Bot) Stop(ctx context.Context) {
	b.mu.Lock()
	started := b.started
	b.mu.Unlock()
	if !started {
		return
	}
	select {
	case <-b.stop:
	default:
		close(b.stop)
	}
	select {
	case <-b.done:
	case <-ctx.Done():
		b.cancel()
		<-b.done
	}
	b.cancel()
}

func (b *Bot) stopping() bool {
	select {
	case <-b.stop:
		return true
	default:
		return false
	}
}

// loop handles pending updates batch by batch until none is left, then
// sleeps until Accept wakes it.
func (b *Bot) loop() {
	defer close(b.done)
	for {
		for !b.stopping() {
			batch, err := b.store.PendingTelegramUpdates(b.workCtx, batchSize)
			if err != nil {
				b.log.Error("telegram: reading pending updates", "error", err)
				break
			}
			if len(batch) == 0 {
				break
			}
			if !b.runBatch(batch) {
				break
			}
		}
		select {
		case <-b.wake:
		case <-b.stop:
			return
		}
	}
}

// runBatch handles a batch: each chat's updates in order, up to Workers
// chats at once. It reports false when an update could not be marked
// handled (the database is failing; the loop waits for the next wake).
func (b *Bot) runBatch(batch []PendingUpdate) bool {
	var order []int64
	byChat := map[int64][]Update{}
	for _, p := range batch {
		var u Update
		if err := json.Unmarshal(p.Payload, &u); err != nil {
			u = Update{UpdateID: p.UpdateID} // unreadable: marked handled, never retried
		}
		u.UpdateID = p.UpdateID
		chat := chatOf(u)
		if _, ok := byChat[chat]; !ok {
			order = append(order, chat)
		}
		byChat[chat] = append(byChat[chat], u)
	}
	slots := make(chan struct{}, b.cfg.Workers)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := true
	for _, chat := range order {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			for _, u := range byChat[chat] {
				if b.workCtx.Err() != nil {
					return
				}
				b.safeHandle(u)
				if b.workCtx.Err() != nil {
					return // cancelled at shutdown: left pending, handled at the next start
				}
				if err := b.store.FinishTelegramUpdate(b.workCtx, u.UpdateID, b.now().UTC()); err != nil {
					b.log.Error("telegram: marking an update handled", "update_id", u.UpdateID, "error", err)
					mu.Lock()
					ok = false
					mu.Unlock()
					return
				}
				if b.cfg.Handled != nil {
					b.cfg.Handled(u.UpdateID)
				}
			}
		})
	}
	wg.Wait()
	return ok
}

// chatOf is the chat an update belongs to (0 for none).
func chatOf(u Update) int64 {
	switch {
	case u.Message != nil:
		return u.Message.Chat.ID
	case u.CallbackQuery != nil && u.CallbackQuery.Message != nil:
		return u.CallbackQuery.Message.Chat.ID
	case u.CallbackQuery != nil:
		return u.CallbackQuery.From.ID
	}
	return 0
}

// safeHandle handles one update; a failure is logged (and the chat told
// when possible), never retried: the update is marked handled either way,
// so one bad update cannot block the queue.
func (b *Bot) safeHandle(u Update) {
	defer func() {
		if v := recover(); v != nil {
			b.log.Error("telegram: panic handling an update", "update_id", u.UpdateID, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	if err := b.handle(b.workCtx, u); err != nil {
		b.log.Warn("telegram: handling an update failed", "update_id", u.UpdateID, "error", err)
	}
}

// attempts counts link attempts per chat in a sliding window, so the 8
// characters of a link code cannot be guessed by trying.
type attempts struct {
	mu     sync.Mutex
	limit  int
	window time.Duration
	byChat map[int64][]time.Time
}

const (
	linkAttempts = 5
	linkWindow   = 10 * time.Minute
)

func newAttempts(limit int, window time.Duration) *attempts {
	return &attempts{limit: limit, window: window, byChat: map[int64][]time.Time{}}
}

// allow records an attempt of chat at now and reports whether it is within the limit.
func (a *attempts) allow(chat int64, now time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, ts := range a.byChat { // forget chats whose window has passed
		if len(ts) > 0 && now.Sub(ts[len(ts)-1]) > a.window {
			delete(a.byChat, k)
		}
	}
	var kept []time.Time
	for _, t := range a.byChat[chat] {
		if now.Sub(t) <= a.window {
			kept = append(kept, t)
		}
	}
	if len(kept) >= a.limit {
		a.byChat[chat] = kept
		return false
	}
	a.byChat[chat] = append(kept, now)
	return true
}
