// Package telegram is the Telegram bot (docs/telegram.md; the messaging
// webhook of specification §4.2 and §5): a client of the Bot API with
// timeouts and bounded reads, the handling of the webhook's updates, the
// link codes that tie a chat to a user, and the replies, formatted as
// MarkdownV2 with every piece of data escaped.
//
// How an update flows: the server's webhook route checks the secret header
// (SecretMatches) and hands the body to Accept, which stores the update by
// its update_id unless it was stored before, and returns; the route answers
// 200 at once. Workers then handle stored updates in the background, each
// chat's in order, and mark each handled. Telegram's redeliveries of an
// update are no-ops, an update stored but not handled when the process
// stops is handled at the next start, and an update is handled again only
// if the process died while handling it. The only ledger writes a chat can
// cause are the confirm steps behind its buttons, and each of those is
// exactly-once on its own (the assistant's confirm is once per proposal; a
// draft is recorded with its id as Idempotency-Key), so a repeat can at
// worst repeat a reply, never a record.
//
// The bot reaches the ledger only through the REST routes, served in
// process as the linked user (API, implemented by the server with a
// principal of limited scopes), so every validation, owner check, plan
// check, rate budget and side effect is the route's. The assistant is used
// through its two routes the same way (RESTAssistant).
//
// Import rules (arch_test.go): telegram imports finance's types and nothing
// else of this module, and no router, database, MCP or CLI library: it is
// an HTTP client and a state machine over ports. Only server and
// cmd/finance import it; store implements its Store port.
package telegram
