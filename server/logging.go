package server

import (
	"context"
	"log/slog"
)

// LogHandler wraps h so that every record logged with a request's context
// (s.log.ErrorContext(r.Context(), ...), in any package the request passes
// through: web, mcpserver, oauth, ai, the assistant) carries the request's
// id as request_id, the id its X-Request-Id header answered. Lines logged
// outside a request (start-up, backups, reminders) have none.
//
// request_id is added at the top level of the record; no logger here uses
// WithGroup, which would put it inside the group.
func LogHandler(h slog.Handler) slog.Handler { return requestIDHandler{h} }

type requestIDHandler struct{ slog.Handler }

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if ctx == nil {
		return h.Handler.Handle(ctx, r)
	}
	if id := requestIDFrom(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestIDHandler{h.Handler.WithAttrs(attrs)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{h.Handler.WithGroup(name)}
}
