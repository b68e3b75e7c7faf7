// Package auth answers "who is calling, and what may they do?". It verifies
// every kind of credential the service accepts (API keys, first-party JWTs,
// and later OAuth access tokens and web sessions), turns it into a Principal,
// and decides whether that Principal holds the scope a route declares.
//
// Persistence is a port (Store) implemented by package store.
package auth
