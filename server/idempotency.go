package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"sync"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
)

// Idempotent writes (specification, safety rule 3). A client that lost the
// answer to a POST cannot tell whether it was written; with an
// Idempotency-Key header it can simply send the request again. The first
// request with a key runs and its successful response is stored, scoped to
// the user, for 24 hours; a repeat of the same request gets that response
// again, with Idempotent-Replayed: true, and writes nothing. "The same
// request" is the request as the route reads it, however its client spelled
// it (samerequest.go); the same key with another request is refused with
// IDEMPOTENCY_CONFLICT, which tells the client to read the state first.
//
// The stored response commits in the same transaction as the write it
// answers (store's write scope), so after a crash either both are there or
// neither is. Error responses are not stored: an error means nothing was
// written, so a retry simply runs again, and a request corrected after a 400
// may reuse its key.

// The headers of idempotent writes.
const (
	IdempotencyKeyHeader     = "Idempotency-Key"
	IdempotentReplayedHeader = "Idempotent-Replayed"
)

// maxIdempotencyKey is the longest key accepted, in bytes (all ASCII).
const maxIdempotencyKey = 255

// IdempotencyStore keeps the responses of idempotent writes. Its values are
// plain so that the store implements it without importing this package.
type IdempotencyStore interface {
	// WriteScope runs fn in one write transaction, committed only when fn
	// returns nil; every write made under fn's context joins it.
	WriteScope(ctx context.Context, fn func(ctx context.Context) error) error
	// IdempotentResponse returns the response stored for the user's key
	// within the 24 hours before now, or finance.ErrNotFound: in the write
	// scope of ctx if there is one, else on the read pool.
	IdempotentResponse(ctx context.Context, userID, key string, now time.Time) (
		fingerprint []byte, status int, contentType string, body []byte, err error)
	// SaveIdempotentResponse stores a response made at now, in the write
	// scope of ctx, and deletes the user's expired ones.
	SaveIdempotentResponse(ctx context.Context, userID, key string, fingerprint []byte,
		status int, contentType string, body []byte, now time.Time) error
}

// idempotent wraps the handler of rt, a POST route of the API; it runs
// after authentication and the scope check, since keys belong to the user.
// A request without the header is served as it is.
func (s *Server) idempotent(rt Route, h handlerFunc) handlerFunc {
	// The body's shape comes from the contract, which takes longer to parse
	// than the rest of start-up: it is read on the first request that
	// carries a key (TestIdempotentRoutesHaveBodyShapes resolves them all).
	shape := sync.OnceValues(func() (*bodyShape, error) { return requestBodyShape(rt.Method, rt.Path) })
	return func(w http.ResponseWriter, r bunrouter.Request) error {
		key, ok, err := idempotencyKey(r.Header)
		if err != nil {
			return err
		}
		if !ok {
			return h(w, r)
		}
		// The whole body is read before the transaction starts: it is part
		// of the fingerprint, and a slow upload must not hold the writer.
		shape, err := shape()
		if err != nil {
			return fmt.Errorf("server: route %s %s: %w", rt.Method, rt.Path, err)
		}
		body, err := s.readAll(r.Request)
		if err != nil {
			return err
		}
		q := idempotentRequest{userID: userID(r), key: key,
			fingerprint: s.sameRequestFingerprint(r.Request, body, shape),
			legacy:      fingerprint(r.Request, body)}
		err = s.once(w, r, q, body, h, apiOnce)
		if errors.Is(err, errKeyReused) {
			return errIdempotencyConflict
		}
		return err
	}
}

// errIdempotencyConflict answers a key that came again with another
// request. 422, as the IETF's Idempotency-Key draft has it for a key reused
// with another payload: the request is well formed (a 400 would send the
// client to fix its fields), and it conflicts with no state (409 is the
// draft's answer to a repeat of a request still running, which here waits
// and replays instead). The message never says to send a new key: the key
// was kept because its first request was carried out, so for an expense or
// an income, which no state check stops twice, a new key is a second write.
var errIdempotencyConflict = httperr.New(http.StatusUnprocessableEntity, CodeIdempotencyConflict,
	"This Idempotency-Key was used in the last 24 hours with a different request, which was carried out; "+
		"nothing was written now. Read the current state first to see what that request did. If it is the write "+
		"you meant, it is done (the same request with the same key returns its answer); if it is not, decide "+
		"with the user whether another write is wanted before sending one.").
	WithFields(map[string]string{IdempotencyKeyHeader: "was used with a different request"})

// onceRules tell once what of a handler's response to keep, and how to
// answer a repeat with what was kept.
type onceRules struct {
	// keep says whether the write commits and whether the response is
	// stored, and what is stored.
	keep func(res *bufferedResponse) (stored storedResponse, commit, save bool)
	// replay answers a repeat with the stored response.
	replay func(w http.ResponseWriter, r *http.Request, sr storedResponse)
}

// apiOnce: the API commits and stores its successes (2xx) and replays them
// as they were.
var apiOnce = onceRules{
	keep: func(res *bufferedResponse) (storedResponse, bool, bool) {
		ok := res.status >= 200 && res.status <= 299
		return storedResponse{status: res.status, contentType: res.header.Get("Content-Type"), body: res.body.Bytes()}, ok, ok
	},
	replay: func(w http.ResponseWriter, _ *http.Request, sr storedResponse) { sr.replay(w) },
}

// once runs h at most once for q's key: a repeat of a request already
// answered gets the kept answer, and writes nothing. errKeyReused: the key
// was used with another request.
func (s *Server) once(w http.ResponseWriter, r bunrouter.Request, q idempotentRequest, body []byte, h handlerFunc, rules onceRules) error {
	// Most repeats find the stored response here, on the read pool,
	// without queueing for the single writer.
	stored, err := s.storedResponse(r.Context(), q)
	if !errors.Is(err, finance.ErrNotFound) {
		if err != nil {
			return err
		}
		rules.replay(w, r.Request, stored)
		return nil
	}

	var res *bufferedResponse
	err = s.db.WriteScope(r.Context(), func(ctx context.Context) error {
		// Afresh on each run: on Postgres a scope refused for a conflict
		// runs again (store.DB.WriteScope).
		res = &bufferedResponse{header: http.Header{}}
		// Looked up again inside the transaction: the writer is one
		// connection taking IMMEDIATE transactions, so a duplicate that
		// arrived while the first request ran gets here only after it
		// committed, and finds its response.
		found, err := s.storedResponse(ctx, q)
		if !errors.Is(err, finance.ErrNotFound) {
			if err != nil {
				return err
			}
			stored = found
			return errReplay
		}
		inner := r.WithContext(ctx)
		inner.Body = io.NopCloser(bytes.NewReader(body))
		if err := h(res, inner); err != nil {
			return err // rendered by the route; the scope rolls back
		}
		kept, commit, save := rules.keep(res)
		switch {
		case !commit:
			return errNotStored
		case !save:
			return nil
		}
		return s.db.SaveIdempotentResponse(ctx, q.userID, q.key, q.fingerprint,
			kept.status, kept.contentType, kept.body, s.ledger.Now())
	})
	switch {
	case errors.Is(err, errReplay):
		rules.replay(w, r.Request, stored)
	case err == nil, errors.Is(err, errNotStored):
		// Sent only now: the client never sees an answer that did not
		// commit. After the commit, the server's state is the same
		// whether or not this reply reaches the client.
		res.send(w)
	default:
		return err
	}
	return nil
}

// errReplay and errNotStored end a write scope without committing: a
// duplicate found the stored response, or the handler answered without an
// error but not with a success, which is not kept. errKeyReused: a key came
// again with another request.
var (
	errReplay    = errors.New("replay the stored response")
	errNotStored = errors.New("the response is not a success and is not stored")
	errKeyReused = errors.New("the key was used with another request")
)

// idempotentRequest is a request made with a key: whose, which key, and
// its fingerprint, which is stored with its answer. legacy, when set, is
// the fingerprint this request had before requests were normalized
// (fingerprint): a key stored then still replays a request of the same
// bytes for the rest of its 24 hours.
type idempotentRequest struct {
	userID, key string
	fingerprint []byte
	legacy      []byte
}

// matches reports whether a stored fingerprint is q's.
func (q idempotentRequest) matches(stored []byte) bool {
	return bytes.Equal(stored, q.fingerprint) || (q.legacy != nil && bytes.Equal(stored, q.legacy))
}

// idempotencyKey reads the Idempotency-Key header: 1 to 255 visible ASCII
// characters (0x21 to 0x7E), given once. ok is false when there is none.
func idempotencyKey(h http.Header) (key string, ok bool, err error) {
	values := h.Values(IdempotencyKeyHeader)
	if len(values) == 0 {
		return "", false, nil
	}
	if len(values) > 1 {
		return "", false, httperr.BadRequest("Idempotency-Key is given more than once; send one key per request",
			map[string]string{IdempotencyKeyHeader: "must be given once"})
	}
	key = values[0]
	valid := len(key) >= 1 && len(key) <= maxIdempotencyKey
	for i := 0; valid && i < len(key); i++ {
		valid = key[i] >= 0x21 && key[i] <= 0x7e
	}
	if !valid {
		return "", false, httperr.BadRequest(fmt.Sprintf("Idempotency-Key must be 1 to %d visible ASCII characters, "+
			"without spaces; a random UUID is a good key", maxIdempotencyKey),
			map[string]string{IdempotencyKeyHeader: fmt.Sprintf("must be 1 to %d visible ASCII characters", maxIdempotencyKey)})
	}
	return key, true, nil
}

// fingerprint is the SHA-256 of the request's bytes: method, path, raw
// query and body, each but the last prefixed with its length so that no
// two requests hash the same input. A page form, which the browser resends
// byte for byte, is kept under it; the API keeps the normalized request's
// (sameRequestFingerprint), and compares this one only with answers stored
// before it did.
func fingerprint(r *http.Request, body []byte) []byte {
	h := sha256.New()
	for _, part := range []string{r.Method, r.URL.Path, r.URL.RawQuery} {
		fmt.Fprintf(h, "%d:%s", len(part), part)
	}
	h.Write(body)
	return h.Sum(nil)
}

// storedResponse is a response kept for an idempotency key.
type storedResponse struct {
	status      int
	contentType string
	body        []byte
}

// storedResponse returns the response stored for q, finance.ErrNotFound, or
// errKeyReused when the key was used with another request.
func (s *Server) storedResponse(ctx context.Context, q idempotentRequest) (storedResponse, error) {
	fp, status, contentType, body, err := s.db.IdempotentResponse(ctx, q.userID, q.key, s.ledger.Now())
	if err != nil {
		return storedResponse{}, err
	}
	if !q.matches(fp) {
		return storedResponse{}, errKeyReused
	}
	return storedResponse{status: status, contentType: contentType, body: body}, nil
}

// replay sends a stored response again, marked as a replay.
func (sr storedResponse) replay(w http.ResponseWriter) {
	h := w.Header()
	if sr.contentType != "" {
		h.Set("Content-Type", sr.contentType)
	}
	h.Set("Cache-Control", "no-store") // as on every JSON answer (writeJSON)
	h.Set(IdempotentReplayedHeader, "true")
	w.WriteHeader(sr.status)
	_, _ = w.Write(sr.body)
}

// bufferedResponse holds a handler's response until its transaction ends.
// Like the server's other writers, it is not an http.Flusher.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

// send copies the held response to w.
func (b *bufferedResponse) send(w http.ResponseWriter) {
	maps.Copy(w.Header(), b.header)
	if b.status == 0 {
		b.status = http.StatusOK
	}
	w.WriteHeader(b.status)
	_, _ = w.Write(b.body.Bytes())
}
