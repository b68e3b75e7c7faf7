// Package ai turns what people write and photograph into expense drafts
// (AI parsing, specification §4.2): the built-in parser of jotted text and
// of receipt text, a client of OpenAI-compatible chat-completions services
// (JSON-schema answers, timeouts, bounded reads), an OCR runner, and the
// Engine that picks among them, bounds the jobs running at once, and
// passes every draft through the domain's create checks.
//
// Parsing never saves anything. Model output and receipt text are untrusted
// data: they can only fill a draft's fields, and each field is checked
// against the caller's own active records (finance.ParseInputs.CheckDraft).
//
// Import rules (arch_test.go): ai imports finance's types and nothing else
// of this module, and no router, database, MCP or CLI library; finance does
// not import ai; only server and cmd/finance do.
package ai
