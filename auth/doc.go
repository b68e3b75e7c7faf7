// Package auth answers "who is calling, and what may they do?". It verifies
// every kind of credential the service accepts (API keys, first-party JWTs,
// OAuth access tokens through the TokenVerifier of package oauth, and the
// browser sessions of the web pages), turns it into a Principal or a user,
// and decides whether that Principal holds the scope a route declares.
//
// Persistence is a port (Store) implemented by package store.
package auth
