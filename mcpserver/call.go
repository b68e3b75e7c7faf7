package mcpserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"mime/multipart"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// tool is a row of the table joined with its contract operation.
type tool struct {
	toolSpec
	*operation
}

// call serves one tools/call through the REST route the tool wraps, as the
// caller's principal, and turns the route's envelope into the tool result:
// the data as structuredContent and as JSON text, or, for a REST error,
// isError with the REST error object (message, code, fields) as JSON text.
// A replayed answer (the same idempotency_key again) says so in a second
// text block.
func (h *Handler) call(t tool) func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return func(ctx context.Context, req mcp.CallToolRequest) (result *mcp.CallToolResult, err error) {
		p, ok := auth.FromContext(ctx)
		if !ok {
			// Unreachable behind the server's middleware, which authenticates first.
			return nil, fmt.Errorf("no authenticated caller")
		}
		status := http.StatusInternalServerError // a panic's, unless the call gets further
		if h.calls != nil {
			defer func() { h.calls.ToolCall(t.name, status) }()
		}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				h.log.ErrorContext(ctx, "panic in MCP tool", "tool", t.name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				result = errorResult(restError{Code: "INTERNAL_SERVER_ERROR", Message: "An unexpected error occurred"})
			}
		}()

		// An agent's writes say so: their activity entries and the
		// expenses they create have source agent.
		rest, problem := t.request(finance.ViaAgent(ctx), req.Params.RawArguments)
		if problem != nil {
			status = http.StatusBadRequest
			return errorResult(*problem), nil
		}
		rec := newRecorder()
		h.rest.ServeAs(p, rec, rest)
		status = rec.status
		return h.result(ctx, t, rec, t.compacts() && !wantsFull(req.Params.RawArguments)), nil
	}
}

// request builds the in-process REST request from the call's arguments: path
// parameters fill the path, query parameters the query string, and the other
// arguments are the JSON body, passed on byte for byte (amounts are never
// decoded into floats here; the REST decoder reads them exactly).
func (t tool) request(ctx context.Context, raw json.RawMessage) (*http.Request, *restError) {
	args := map[string]json.RawMessage{}
	var v finance.Validator
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		if err := json.Unmarshal(trimmed, &args); err != nil {
			return nil, invalid(finance.Invalid("arguments", "must be a JSON object"))
		}
		// Decoding into a map keeps the last of repeated names and turns
		// bytes that are not UTF-8 into U+FFFD; the REST route refuses both
		// in its body, so the arguments are held to the same rule. Nested
		// values reach the route as sent and are checked there.
		if !utf8.Valid(trimmed) {
			return nil, invalid(finance.Invalid("arguments", "must be valid UTF-8 text"))
		}
		for _, name := range repeatedNames(trimmed) {
			v.Add(name, "appears more than once")
		}
	}

	for _, name := range slices.Sorted(maps.Keys(args)) {
		if !t.pathParam(name) && !t.queryParams[name] && !t.bodyFields[name] && !t.keyArg(name) && !t.detailArg(name) {
			v.Add(name, "is not an argument of "+t.name+"; its arguments are: "+strings.Join(t.argumentNames(), ", "))
		}
	}

	path := t.path
	for _, name := range t.pathParams {
		var s string
		if err := json.Unmarshal(args[name], &s); err != nil || strings.TrimSpace(s) == "" {
			v.Add(name, "is required: a non-empty string")
			continue
		}
		path = strings.Replace(path, "{"+name+"}", url.PathEscape(s), 1)
	}

	// The key is a header of the route's request (null means none).
	var idempotencyKey *string
	if raw, given := args[idempotencyArg]; given && t.takesIdempotencyKey && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := json.Unmarshal(raw, &idempotencyKey); err != nil {
			v.Add(idempotencyArg, "must be a string")
		}
	}

	if raw, given := args[detailArg]; given && t.compacts() {
		var d *string
		if err := json.Unmarshal(raw, &d); err != nil || d != nil && *d != detailCompact && *d != detailFull {
			v.Add(detailArg, "must be "+detailCompact+" or "+detailFull)
		}
	}

	query := url.Values{}
	body := maps.Clone(t.fixedBody)
	if body == nil {
		body = map[string]json.RawMessage{}
	}
	for name, value := range args {
		switch {
		case t.queryParams[name]:
			s, ok := queryValue(value)
			if !ok {
				v.Add(name, "must be a string, number or boolean")
			} else if s != nil {
				query.Set(name, *s)
			}
		case t.bodyFields[name]:
			body[name] = value
		}
	}
	if err := v.Err(); err != nil {
		return nil, invalid(err.(*finance.ValidationError))
	}

	target := path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var payload []byte
	contentType := "application/json"
	switch {
	case t.files != nil:
		var problem *restError
		if payload, contentType, problem = t.form(body); problem != nil {
			return nil, problem
		}
	case t.hasBody:
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return nil, invalid(finance.Invalid("arguments", "must be valid JSON"))
		}
	}
	r, err := http.NewRequestWithContext(ctx, t.method, target, bytes.NewReader(payload))
	if err != nil {
		return nil, invalid(finance.Invalid("arguments", "do not form a valid request: "+err.Error()))
	}
	r.Header.Set("Accept", "application/json")
	if t.hasBody {
		r.Header.Set("Content-Type", contentType)
	}
	if idempotencyKey != nil {
		r.Header.Set(idempotencyHeader, *idempotencyKey)
	}
	return r, nil
}

// form builds the multipart/form-data body of a route that takes files:
// each file argument (base64 text, or a list of it) becomes one file part
// per file, in order, under its field name; other arguments are text parts.
// The route checks the files themselves (kind, size, count).
func (t tool) form(body map[string]json.RawMessage) ([]byte, string, *restError) {
	var v finance.Validator
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if t.textFile != "" {
		t.textFilePart(&v, w, body)
	}
	for _, name := range slices.Sorted(maps.Keys(body)) {
		raw := body[name]
		if !t.files[name] {
			s, ok := queryValue(raw)
			if !ok {
				v.Add(name, "must be a string, number or boolean")
			} else if s != nil {
				_ = w.WriteField(name, *s)
			}
			continue
		}
		var list []string
		if err := json.Unmarshal(raw, &list); err != nil {
			var one string
			if err := json.Unmarshal(raw, &one); err != nil {
				v.Add(name, "must be base64 text, or a list of it")
				continue
			}
			list = []string{one}
		}
		for i, text := range list {
			data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text))
			if err != nil {
				v.Add(fmt.Sprintf("%s[%d]", name, i), "must be base64 text")
				continue
			}
			part, _ := w.CreateFormFile(name, fmt.Sprintf("%s-%d", name, i+1))
			_, _ = part.Write(data)
		}
	}
	if err := v.Err(); err != nil {
		return nil, "", invalid(err.(*finance.ValidationError))
	}
	_ = w.Close()
	return buf.Bytes(), w.FormDataContentType(), nil
}

// textFilePart writes the file of a text-file tool (withTextFile): its
// text or base64 argument under the route's file field, with its file name.
// It takes the three arguments out of body.
func (t tool) textFilePart(v *finance.Validator, w *multipart.Writer, body map[string]json.RawMessage) {
	var text, encoded, name string
	read := func(arg string, into *string) bool {
		raw, ok := body[arg]
		delete(body, arg)
		if ok && json.Unmarshal(raw, into) != nil {
			v.Add(arg, "must be a string")
		}
		return ok
	}
	hasText, hasBase64 := read(fileTextArg, &text), read(fileBase64Arg, &encoded)
	read(fileNameArg, &name)
	data := []byte(text)
	switch {
	case hasText && hasBase64:
		v.Add(fileBase64Arg, "must be absent when text is given (send the file one way)")
		return
	case !hasText && !hasBase64:
		return // the route answers for the missing file
	case hasBase64:
		var err error
		if data, err = base64.StdEncoding.DecodeString(strings.TrimSpace(encoded)); err != nil {
			v.Add(fileBase64Arg, "must be base64 text")
			return
		}
	}
	if name == "" {
		name = "upload"
	}
	part, _ := w.CreateFormFile(t.textFile, name)
	_, _ = part.Write(data)
}

// repeatedNames returns the member names that a JSON object names more than
// once at its top level.
func repeatedNames(object []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(object))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	seen := map[string]bool{}
	var repeated []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return repeated
		}
		name, _ := tok.(string)
		if seen[name] && !slices.Contains(repeated, name) {
			repeated = append(repeated, name)
		}
		seen[name] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return repeated
		}
	}
	return repeated
}

// queryValue renders a JSON scalar as a query value; nil means absent (null).
func queryValue(raw json.RawMessage) (*string, bool) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		return nil, true
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		return &s, true
	case raw[0] == '{' || raw[0] == '[':
		return nil, false
	}
	// A number or boolean: its JSON text is its query form, digits unchanged.
	s := string(raw)
	return &s, true
}

func (t tool) pathParam(name string) bool { return slices.Contains(t.pathParams, name) }

// keyArg reports whether name is the tool's idempotency_key argument.
func (t tool) keyArg(name string) bool { return t.takesIdempotencyKey && name == idempotencyArg }

// compacts reports whether the tool answers compact items unless called
// with detail full: a list tool whose items are not always whole.
func (t tool) compacts() bool { return t.page && !t.whole }

// detailArg reports whether name is the detail argument of a list tool.
func (t tool) detailArg(name string) bool { return t.compacts() && name == detailArg }

// wantsFull reports whether a list tool's call asks for its items in full
// (arguments that request has already checked).
func wantsFull(raw json.RawMessage) bool {
	var args struct {
		Detail *string `json:"detail"`
	}
	_ = json.Unmarshal(raw, &args)
	return args.Detail != nil && *args.Detail == detailFull
}

func (t tool) argumentNames() []string {
	names := slices.Clone(t.pathParams)
	names = append(names, slices.Sorted(maps.Keys(t.queryParams))...)
	names = append(names, slices.Sorted(maps.Keys(t.bodyFields))...)
	if t.takesIdempotencyKey {
		names = append(names, idempotencyArg)
	}
	if t.compacts() {
		names = append(names, detailArg)
	}
	return names
}

// restError is the error object of the REST envelope.
type restError struct {
	Message   string            `json:"message"`
	Code      string            `json:"code"`
	Fields    map[string]string `json:"fields,omitempty"`
	RequestID string            `json:"request_id,omitempty"`
}

// invalid is the REST form of a validation failure found before the route
// is called (arguments that cannot form its request).
func invalid(ve *finance.ValidationError) *restError {
	return &restError{Code: "VALIDATION_ERROR", Message: ve.Message, Fields: ve.Fields}
}

// result turns the REST envelope into the tool result; compact leaves out
// of a page's items what compactPage does.
func (h *Handler) result(ctx context.Context, t tool, rec *recorder, compact bool) *mcp.CallToolResult {
	var env struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
		Error   *restError      `json:"error"`
	}
	if err := json.Unmarshal(rec.body.Bytes(), &env); err != nil || (!env.Success && env.Error == nil) {
		// The body may hold the caller's records: only at debug level.
		h.log.ErrorContext(ctx, "MCP tool got a response that is not the REST envelope", "tool", t.name, "status", rec.status)
		h.log.DebugContext(ctx, "MCP tool got a response that is not the REST envelope", "tool", t.name, "body", truncate(rec.body.String(), 500))
		return errorResult(restError{Code: "INTERNAL_SERVER_ERROR", Message: "An unexpected error occurred"})
	}
	if !env.Success {
		return errorResult(*env.Error)
	}
	data := bytes.TrimSpace(env.Data)
	if len(data) == 0 {
		data = []byte("null")
	}
	if compact {
		data = compactPage(data)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(data))}}
	if data[0] == '{' {
		// structuredContent must be an object; kept as raw JSON so amounts
		// reach the client exactly as the REST route wrote them.
		res.StructuredContent = json.RawMessage(data)
		if note := warningsNote(data); note != "" {
			// A block of its own after the data, as the replay note is.
			res.Content = append(res.Content, mcp.NewTextContent(note))
		}
	}
	if rec.header.Get(replayedHeader) == "true" {
		// A block of its own after the data, so that the first block stays
		// the JSON that programs parse.
		res.Content = append(res.Content, mcp.NewTextContent(replayedNote))
	}
	return res
}

// warningsNote is the text block that follows the JSON of a write whose
// answer carries warnings (data.warnings), so that an agent cannot miss
// them: some clients show a model only the text, and a line per warning is
// plainer than a member deep in the JSON. The first block stays exactly the
// serialized structuredContent, which programs parse.
func warningsNote(data []byte) string {
	if !bytes.Contains(data, []byte(`"warnings"`)) {
		return ""
	}
	var answer struct {
		Warnings []json.RawMessage `json:"warnings"`
	}
	if json.Unmarshal(data, &answer) != nil {
		return ""
	}
	var b strings.Builder
	for _, raw := range answer.Warnings {
		var w struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Index   *int   `json:"index"`
		}
		// Only a write's warnings: objects with a code (a parser's
		// warnings about its drafts are plain strings).
		if json.Unmarshal(raw, &w) != nil || w.Code == "" {
			continue
		}
		b.WriteString("\n- ")
		if w.Index != nil {
			fmt.Fprintf(&b, "item %d: ", *w.Index)
		}
		b.WriteString(w.Code + ": " + w.Message)
	}
	if b.Len() == 0 {
		return ""
	}
	return "Warnings (the write was saved; show these to the user before going on):" + b.String()
}

// replayedHeader marks the REST route's stored answer to an earlier request
// with the same Idempotency-Key; the tool result says so in replayedNote.
const (
	replayedHeader = "Idempotent-Replayed"
	replayedNote   = "Replayed: an earlier call with the same idempotency_key and the same arguments already did " +
		"this write, and this is its result; nothing was written again."
)

// errorResult is a tool execution error carrying the REST error object as
// JSON text, which models and programs both read. It has no
// structuredContent: the error object does not match the tool's
// outputSchema, and clients that validate results against it (the official
// TypeScript SDK once it has listed the tools) would throw away the result,
// message and all, for a schema error of their own. The MCP specification
// reports tool errors in content.
func errorResult(e restError) *mcp.CallToolResult {
	text, _ := json.Marshal(e)
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{mcp.NewTextContent(string(text))},
	}
}

// recorder captures the in-process REST response. Like the server's own
// writer, it is not an http.Flusher: every REST response is one JSON document.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newRecorder() *recorder { return &recorder{header: http.Header{}} }

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
