// Package mcpserver serves the MCP endpoint (/api/mcp) over stateless
// Streamable HTTP. Its tools are rows of a table that name a REST route; a
// call is served in-process by that route's handler with the caller's
// Principal, so every tool keeps the route's validation, owner scoping, side
// effects and error messages.
package mcpserver
