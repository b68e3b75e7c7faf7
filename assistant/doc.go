// Package assistant is the AI assistant (specification §1 rule 6, §4.2):
// it answers questions from the caller's data and turns requests to record
// or pay into proposals, and executes a proposal, once, when the user
// confirms it. Its conversations and proposals are finance's records
// (finance.ChatTurn, finance.Proposal, with their states and limits); this
// package holds the rules that make and decide them.
//
// The assistant reads only through the REST routes, served in process as
// the caller (the Routes port), so it sees exactly what the caller may see.
// It never writes to the ledger: a write is a stored proposal (method, path
// and body of a REST request) until the user confirms it, and what the
// assistant read (including text inside the user's records, or a model's
// output) can only ever produce a proposal, never an action. A confirm
// executes the proposal through its own route, as the caller, so the
// route's scope, validation and side effects apply; the route's writes and
// the proposal's result commit in one write scope of the Store, which makes
// a proposal's execution exactly-once however often it is confirmed.
//
// Two engines answer: the built-in one (builtin.go), deterministic and
// without any AI service, and a model with tools (model.go) when the AI
// engine has a chat model and the binary gave the MCP tool table
// (SetTools); the built-in one answers when the model's service fails.
//
// Ports, declared here: Store (conversations and proposals; package store
// implements it), Ledger (the service's clock and the user's parse inputs;
// finance.Service), Routes (the REST routes served in process; package
// server) and ToolTable (the MCP tool table; package mcpserver).
//
// Import rules (arch_test.go): assistant imports finance, auth and ai, and
// nothing of store, server, mcpserver, web or telegram, and no router,
// database, MCP or CLI library. It does not import net/http: it speaks to
// the routes in plain values (method, target, body; status, data, error).
// The HTTP layer keeps only the two handlers of POST /ai-assistant/chat and
// /ai-assistant/confirm: decode, call, envelope.
package assistant
