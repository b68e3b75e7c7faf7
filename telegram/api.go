package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The Bot API shapes this bot reads and sends (core.telegram.org/bots/api).
// Only the fields it uses are declared; Telegram adds fields freely and the
// decoder ignores the rest.

// Update is one incoming update of the webhook.
type Update struct {
	UpdateID      int64          `json:"update_id"`
	Message       *Message       `json:"message,omitempty"`
	CallbackQuery *CallbackQuery `json:"callback_query,omitempty"`
}

// Message is a chat message.
type Message struct {
	MessageID int64       `json:"message_id"`
	From      *User       `json:"from,omitempty"`
	Chat      Chat        `json:"chat"`
	Date      int64       `json:"date"`
	Text      string      `json:"text,omitempty"`
	Caption   string      `json:"caption,omitempty"`
	Photo     []PhotoSize `json:"photo,omitempty"`
}

// User is a Telegram user or bot.
type User struct {
	ID        int64  `json:"id"`
	IsBot     bool   `json:"is_bot"`
	FirstName string `json:"first_name"`
	Username  string `json:"username,omitempty"`
}

// Chat is where a message was sent. Type is private, group, supergroup or channel.
type Chat struct {
	ID        int64  `json:"id"`
	Type      string `json:"type"`
	Username  string `json:"username,omitempty"`
	FirstName string `json:"first_name,omitempty"`
}

// PhotoSize is one size of a photo; a message carries several, smallest first.
type PhotoSize struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	FileSize     int64  `json:"file_size,omitempty"`
}

// CallbackQuery is a press of an inline keyboard button.
type CallbackQuery struct {
	ID      string   `json:"id"`
	From    User     `json:"from"`
	Message *Message `json:"message,omitempty"`
	Data    string   `json:"data,omitempty"`
}

// InlineKeyboardMarkup is the buttons under a message.
type InlineKeyboardMarkup struct {
	InlineKeyboard [][]InlineKeyboardButton `json:"inline_keyboard"`
}

// InlineKeyboardButton is one button; CallbackData is at most 64 bytes.
type InlineKeyboardButton struct {
	Text         string `json:"text"`
	CallbackData string `json:"callback_data"`
}

// SendMessageRequest is the body of sendMessage.
type SendMessageRequest struct {
	ChatID      int64                 `json:"chat_id"`
	Text        string                `json:"text"`
	ParseMode   string                `json:"parse_mode,omitempty"`
	ReplyMarkup *InlineKeyboardMarkup `json:"reply_markup,omitempty"`
	// LinkPreviewOptions turns link previews off: replies carry no links worth one.
	LinkPreviewOptions *linkPreviewOptions `json:"link_preview_options,omitempty"`
}

type linkPreviewOptions struct {
	IsDisabled bool `json:"is_disabled"`
}

// AnswerCallbackQueryRequest is the body of answerCallbackQuery.
type AnswerCallbackQueryRequest struct {
	CallbackQueryID string `json:"callback_query_id"`
	Text            string `json:"text,omitempty"`
}

// EditMessageReplyMarkupRequest is the body of editMessageReplyMarkup; a nil
// ReplyMarkup removes the buttons.
type EditMessageReplyMarkupRequest struct {
	ChatID      int64                 `json:"chat_id"`
	MessageID   int64                 `json:"message_id"`
	ReplyMarkup *InlineKeyboardMarkup `json:"reply_markup,omitempty"`
}

// SetWebhookRequest is the body of setWebhook.
type SetWebhookRequest struct {
	URL            string   `json:"url"`
	SecretToken    string   `json:"secret_token"`
	AllowedUpdates []string `json:"allowed_updates"`
	MaxConnections int      `json:"max_connections,omitempty"`
}

// File is the answer of getFile.
type File struct {
	FileID   string `json:"file_id"`
	FileSize int64  `json:"file_size,omitempty"`
	FilePath string `json:"file_path,omitempty"`
}

// DefaultAPIURL is the public Bot API.
const DefaultAPIURL = "https://api.telegram.org"

// Limits of the client.
const (
	// DefaultTimeout bounds each call to the Bot API.
	DefaultTimeout = 15 * time.Second
	// maxAnswer bounds the answer of a Bot API method.
	maxAnswer = 1 << 20
	// MaxPhotoBytes is the largest photo downloaded (the receipt reader's limit).
	MaxPhotoBytes = 5 << 20
	// MaxMessageLen is the longest text of one message (Bot API limit, in UTF-16 units; counted in runes here, under it).
	MaxMessageLen = 4096
)

// Client calls the Bot API. The token is part of every URL, so URLs are
// never logged and errors never include them.
type Client struct {
	base  string // e.g. https://api.telegram.org
	token string
	http  *http.Client
}

// NewClient returns a client of the Bot API at base (DefaultAPIURL when
// empty) for the bot token. httpClient may be nil; timeout 0 means DefaultTimeout.
func NewClient(base, token string, timeout time.Duration, httpClient *http.Client) *Client {
	if base == "" {
		base = DefaultAPIURL
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	c := &http.Client{Timeout: timeout}
	if httpClient != nil {
		cp := *httpClient
		if cp.Timeout == 0 || cp.Timeout > timeout {
			cp.Timeout = timeout
		}
		c = &cp
	}
	// Never follow a redirect to another host with the token in the path.
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Client{base: strings.TrimRight(base, "/"), token: token, http: c}
}

// APIError is a refusal of the Bot API ({"ok": false, ...}).
type APIError struct {
	Method      string
	Code        int
	Description string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("telegram %s: %d %s", e.Method, e.Code, e.Description)
}

// call posts body as JSON to method and decodes the result into out (may be nil).
func (c *Client) call(ctx context.Context, method string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/bot"+c.token+"/"+method, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("telegram %s: bad API URL", method)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("telegram %s: %w", method, redact(err, c.token))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return fmt.Errorf("telegram %s: %w", method, redact(err, c.token))
	}
	if len(raw) > maxAnswer {
		return fmt.Errorf("telegram %s: answer larger than %d bytes", method, maxAnswer)
	}
	var env struct {
		OK          bool            `json:"ok"`
		Result      json.RawMessage `json:"result"`
		ErrorCode   int             `json:"error_code"`
		Description string          `json:"description"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return fmt.Errorf("telegram %s: HTTP %d, not a Bot API answer", method, resp.StatusCode)
	}
	if !env.OK {
		code := env.ErrorCode
		if code == 0 {
			code = resp.StatusCode
		}
		return &APIError{Method: method, Code: code, Description: env.Description}
	}
	if out != nil {
		if err := json.Unmarshal(env.Result, out); err != nil {
			return fmt.Errorf("telegram %s: unexpected result: %w", method, err)
		}
	}
	return nil
}

// redact removes the token from an error (url.Error carries the URL).
func redact(err error, token string) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return errors.New(strings.ReplaceAll(ue.Err.Error(), token, "<token>"))
	}
	return errors.New(strings.ReplaceAll(err.Error(), token, "<token>"))
}

// SendMessage sends a message.
func (c *Client) SendMessage(ctx context.Context, m SendMessageRequest) error {
	return c.call(ctx, "sendMessage", m, nil)
}

// AnswerCallbackQuery stops the button's spinner, with an optional toast.
func (c *Client) AnswerCallbackQuery(ctx context.Context, a AnswerCallbackQueryRequest) error {
	return c.call(ctx, "answerCallbackQuery", a, nil)
}

// EditMessageReplyMarkup replaces (or removes) a message's buttons.
func (c *Client) EditMessageReplyMarkup(ctx context.Context, e EditMessageReplyMarkupRequest) error {
	return c.call(ctx, "editMessageReplyMarkup", e, nil)
}

// SetWebhook registers the webhook URL with its secret token.
func (c *Client) SetWebhook(ctx context.Context, s SetWebhookRequest) error {
	return c.call(ctx, "setWebhook", s, nil)
}

// DownloadFile fetches a file by id (getFile, then the file URL), refusing
// one larger than limit bytes.
func (c *Client) DownloadFile(ctx context.Context, fileID string, limit int64) ([]byte, error) {
	var f File
	if err := c.call(ctx, "getFile", map[string]string{"file_id": fileID}, &f); err != nil {
		return nil, err
	}
	if f.FileSize > limit {
		return nil, ErrFileTooLarge
	}
	if f.FilePath == "" || strings.Contains(f.FilePath, "..") {
		return nil, errors.New("telegram getFile: no usable file path")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/file/bot"+c.token+"/"+f.FilePath, nil)
	if err != nil {
		return nil, errors.New("telegram file: bad URL")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("telegram file: %w", redact(err, c.token))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("telegram file: HTTP %d", resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("telegram file: %w", redact(err, c.token))
	}
	if int64(len(b)) > limit {
		return nil, ErrFileTooLarge
	}
	return b, nil
}

// ErrFileTooLarge refuses a download over its limit.
var ErrFileTooLarge = errors.New("the file is too large")
