// Package finance is the domain of the personal finance tracker: its records,
// their validation and state rules, exact money and calendar dates, and the
// use cases that the REST API and the MCP endpoint both call.
//
// It imports no HTTP, database, MCP or CLI library, so every rule here can be
// tested without a server and is enforced the same way on every surface.
package finance
