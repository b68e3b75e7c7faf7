package main

import (
	"errors"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/pflag"

	"github.com/finance-app/finance/server"
)

// logFlags are how every command logs: --log-format and --log-level, flags
// of the root command so that serve, migrate, backup, restore and the rest
// write their log lines alike.
type logFlags struct {
	format logFormat
	level  slog.Level
}

func (f *logFlags) register(fl *pflag.FlagSet) {
	f.format = logText
	fl.Var(&f.format, "log-format", "format of the log lines on standard error: text (key=value) or json (one JSON object a line)")
	fl.Var((*logLevel)(&f.level), "log-level", "least severe log lines written: debug, info, warn or error; debug adds lines that may hold "+
		"what people recorded (descriptions, amounts, AI answers)")
}

// newLogger is the one logger setup of every command: lines to w in the
// flags' format from their level up, each logged during a request carrying
// its request_id (server.LogHandler).
func newLogger(w io.Writer, f logFlags) *slog.Logger {
	opts := &slog.HandlerOptions{Level: f.level}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if f.format == logJSON {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(server.LogHandler(h))
}

// logFormat is --log-format: text or json.
type logFormat string

const (
	logText logFormat = "text"
	logJSON logFormat = "json"
)

func (f *logFormat) Set(s string) error {
	switch v := logFormat(strings.ToLower(strings.TrimSpace(s))); v {
	case logText, logJSON:
		*f = v
		return nil
	}
	return errors.New("want text or json")
}

func (f *logFormat) String() string { return string(*f) }
func (f *logFormat) Type() string   { return "format" }

// logLevel is --log-level: one of slog's four level names, in any case.
// slog.Level's own parser also takes offsets (info+2), which a flag has no
// use for.
type logLevel slog.Level

func (l *logLevel) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		*l = logLevel(slog.LevelDebug)
	case "info":
		*l = logLevel(slog.LevelInfo)
	case "warn":
		*l = logLevel(slog.LevelWarn)
	case "error":
		*l = logLevel(slog.LevelError)
	default:
		return errors.New("want debug, info, warn or error")
	}
	return nil
}

func (l *logLevel) String() string { return strings.ToLower(slog.Level(*l).String()) }
func (l *logLevel) Type() string   { return "level" }
