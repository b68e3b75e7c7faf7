// Package server is the HTTP face of the service: the bunrouter routes of the
// REST API, their middleware (request id, recovery, access log, body limit,
// authentication, Pro plan, rate limit, scope) and the one place where errors
// become the specification's JSON envelope (httperr's table). It mounts the
// web app of package web (web.go: its routes, registered as pages, and
// web.Host, the work the pages share with REST routes) and the MCP endpoint,
// and routes the OAuth endpoints to the authorization server of package
// oauth.
//
// Every route is registered with the auth.Requirement it needs; registration
// panics on a route without one, and a test checks that each route has an
// operation in the OpenAPI contract (pages, Route.Page, are outside it).
package server
