package mcpserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// message is the JSON-RPC frame of one POST, checked before mcp-go reads it.
// mcp-go answers some malformed messages with a parse error and no id, lets
// a request with a null id pass as a notification, and reports a wrong
// params shape with Go's type names; the endpoint answers all of these
// itself, with the request's id wherever the body has one.
type message struct {
	// id is the request id as sent (a JSON string or number), nil when the
	// message has none.
	id     json.RawMessage
	method string
	params map[string]json.RawMessage
	// metaVersion is the protocol version in params._meta (2026-07-28 and
	// later carry it in every request), "" when absent.
	metaVersion string
}

// rpcError is a JSON-RPC error the endpoint answers itself.
type rpcError struct {
	code    int
	message string
	data    any
}

// requestID returns the id of body when it is a JSON object with a string or
// number id, and nil otherwise. It lets refusals made before the message is
// checked (Origin, Content-Type, protocol version) carry the id.
func requestID(body []byte) json.RawMessage {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &probe) != nil || !validID(probe.ID) {
		return nil
	}
	return probe.ID
}

// validID reports whether raw is an id JSON-RPC allows a request to carry:
// a string or a number. null is refused: it is the id of an error answering
// a message whose id could not be read, so a request that sends it could not
// tell its answer from such an error.
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		return true
	}
	return false
}

// readMessage checks the JSON-RPC frame of body: one message (no batch), a
// string or number id, a string method and an object for params, and, for
// the methods this endpoint serves, the members of params it reads.
func readMessage(body []byte) (message, *rpcError) {
	var m message
	trimmed := bytes.TrimSpace(body)
	if !json.Valid(trimmed) {
		return m, &rpcError{code: mcp.PARSE_ERROR, message: "Parse error: the body is not valid JSON"}
	}
	switch trimmed[0] {
	case '[':
		return m, &rpcError{code: mcp.INVALID_REQUEST,
			message: "Invalid request: batches are not supported; send one JSON-RPC message per request"}
	case '{':
	default:
		return m, &rpcError{code: mcp.INVALID_REQUEST, message: "Invalid request: the body must be a JSON-RPC message object"}
	}
	var frame map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &frame); err != nil {
		return m, &rpcError{code: mcp.PARSE_ERROR, message: "Parse error: the body is not valid JSON"}
	}

	rawID, hasID := frame["id"]
	rawMethod, hasMethod := frame["method"]
	_, hasResult := frame["result"]
	_, hasError := frame["error"]
	isResponse := !hasMethod && (hasResult || hasError)

	if hasID {
		switch {
		case validID(rawID):
			m.id = rawID
		case bytes.Equal(bytes.TrimSpace(rawID), []byte("null")) && isResponse:
			// An error response of the client to a message it could not read.
		case bytes.Equal(bytes.TrimSpace(rawID), []byte("null")):
			return m, &rpcError{code: mcp.INVALID_REQUEST,
				message: "Invalid request: id must be a string or a number, not null; leave id out to send a notification"}
		default:
			return m, &rpcError{code: mcp.INVALID_REQUEST, message: "Invalid request: id must be a string or a number"}
		}
	}
	var version string
	if json.Unmarshal(frame["jsonrpc"], &version) != nil || version != mcp.JSONRPC_VERSION {
		return m, &rpcError{code: mcp.INVALID_REQUEST, message: `Invalid request: jsonrpc must be "2.0"`}
	}
	if !hasMethod {
		if isResponse && hasID {
			return m, nil
		}
		return m, &rpcError{code: mcp.INVALID_REQUEST, message: "Invalid request: method is required"}
	}
	if json.Unmarshal(rawMethod, &m.method) != nil || m.method == "" {
		return m, &rpcError{code: mcp.INVALID_REQUEST, message: "Invalid request: method must be a non-empty string"}
	}

	if raw, ok := frame["params"]; ok && !isNull(raw) {
		if jsonType(raw) != "object" {
			return m, invalidParams("params must be an object")
		}
		if err := json.Unmarshal(raw, &m.params); err != nil {
			return m, invalidParams("params must be an object")
		}
	}
	if err := m.checkParams(); err != nil {
		return m, err
	}
	return m, nil
}

// A paramRule is one member of params that the endpoint reads.
type paramRule struct {
	name     string
	jsonType string // "string" or "object"
	required bool
}

// paramRules are the members of params, by method, whose shape is checked
// before mcp-go decodes them (it would name Go types in its message). null
// counts as absent.
var paramRules = map[string][]paramRule{
	string(mcp.MethodInitialize): {
		{name: "protocolVersion", jsonType: "string", required: true},
		{name: "capabilities", jsonType: "object"},
		{name: "clientInfo", jsonType: "object"},
	},
	string(mcp.MethodToolsList): {{name: "cursor", jsonType: "string"}},
	// arguments is not checked here: arguments that do not fit the tool
	// are a tool execution error, which a model can read and correct.
	string(mcp.MethodToolsCall): {{name: "name", jsonType: "string", required: true}},
}

func (m *message) checkParams() *rpcError {
	if raw, ok := m.params["_meta"]; ok && !isNull(raw) {
		if jsonType(raw) != "object" {
			return invalidParams("params._meta must be an object")
		}
		var meta map[string]json.RawMessage
		_ = json.Unmarshal(raw, &meta)
		if v, ok := meta[mcp.MetaKeyProtocolVersion]; ok && json.Unmarshal(v, &m.metaVersion) != nil {
			return invalidParams("params._meta." + mcp.MetaKeyProtocolVersion + " must be a string")
		}
	}
	if m.method == string(mcp.MethodInitialize) && mcp.IsModernProtocol(m.metaVersion) {
		// Removed in 2026-07-28: mcp-go answers it as an unknown method.
		return nil
	}
	for _, rule := range paramRules[m.method] {
		raw, ok := m.params[rule.name]
		if !ok || isNull(raw) {
			if rule.required {
				return invalidParams("params." + rule.name + " is required")
			}
			continue
		}
		if jsonType(raw) != rule.jsonType {
			return invalidParams("params." + rule.name + " must be " + article(rule.jsonType))
		}
	}
	if m.method == string(mcp.MethodToolsList) {
		var cursor string
		_ = json.Unmarshal(m.params["cursor"], &cursor)
		if cursor != "" {
			// tools/list answers every tool at once (no page limit), so it
			// never issues a cursor, and any cursor sent is not one of its own.
			return invalidParams("params.cursor is not a cursor this server issued: tools/list returns every tool in one page, so call it without a cursor")
		}
	}
	return nil
}

func invalidParams(what string) *rpcError {
	return &rpcError{code: mcp.INVALID_PARAMS, message: "Invalid params: " + what}
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// jsonType names the JSON type of a valid JSON value.
func jsonType(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func article(jsonType string) string {
	if jsonType == "object" || jsonType == "array" {
		return "an " + jsonType
	}
	return "a " + jsonType
}

// httpStatus is the HTTP status of an error answered before mcp-go. A
// message that is not a valid request is refused with 400 in every protocol
// revision. Errors about a valid request's params are JSON-RPC errors sent
// with 200 before 2026-07-28, which maps them onto HTTP statuses (400).
func httpStatus(code int, modern bool) int {
	switch code {
	case mcp.PARSE_ERROR, mcp.INVALID_REQUEST, mcp.UNSUPPORTED_PROTOCOL_VERSION, mcp.HEADER_MISMATCH:
		return http.StatusBadRequest
	case mcp.INVALID_PARAMS:
		if modern {
			return http.StatusBadRequest
		}
	}
	return http.StatusOK
}

// unsupportedVersion is the error of a request naming a protocol version this
// endpoint does not speak; its data lists the supported ones, newest first,
// so that a client can retry with one of them.
func unsupportedVersion(requested string) *rpcError {
	e := mcp.UnsupportedProtocolVersionError{Version: requested, Supported: slices.Clone(ProtocolVersions)}
	return &rpcError{
		code:    mcp.UNSUPPORTED_PROTOCOL_VERSION,
		message: "Unsupported protocol version " + requested + "; supported: " + strings.Join(ProtocolVersions, ", "),
		data:    e.JSONRPCError().Error.Data,
	}
}

// writeRPCError answers with a JSON-RPC error carrying id (null when nil).
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, e rpcError) {
	if id == nil {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    any    `json:"data,omitempty"`
		} `json:"error"`
	}{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      id,
		Error: struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    any    `json:"data,omitempty"`
		}{e.code, e.message, e.data},
	})
}
