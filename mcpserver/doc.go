// Package mcpserver is the MCP endpoint (POST /api/mcp): Streamable HTTP,
// JSON-RPC 2.0, stateless, answering in application/json.
//
// Its tools are thin wrappers over REST routes. A tool is a row of a table
// (name, title, route, behaviour hints, description for a model); its input
// schema and scope come from the route's operation in the OpenAPI contract.
// A call is served in process through the real router as the caller's
// principal, so it keeps the route's validation, scope, owner scoping, side
// effects and error messages. tools/list shows, and tools/call accepts, only
// the tools whose route the caller's scopes allow.
//
// The endpoint is mounted behind the server's middleware, which does
// authentication (with the OAuth challenge on 401), the Pro plan, rate limits,
// the body limit and the mcp:connect scope; this package adds the Origin check
// against DNS rebinding and the protocol version rules.
package mcpserver
