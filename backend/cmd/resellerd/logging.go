package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// logOptions are --log-format and --log-level: how serve writes its log on stderr.
type logOptions struct {
	Format string // text (logfmt-like key=value, for people) or json (one object a line, for collectors)
	Level  string // debug, info, warn or error
}

// defaultLog is what serve logs without flags: text lines from info up, which include one
// access line per request.
var defaultLog = logOptions{Format: "text", Level: "info"}

// addLogFlags registers --log-format and --log-level on fs, filling o, with the defaults def.
func addLogFlags(fs *flag.FlagSet, o *logOptions, def logOptions) {
	fs.StringVar(&o.Format, "log-format", def.Format, "log format: text or json")
	fs.StringVar(&o.Level, "log-level", def.Level, "lowest level logged: debug, info, warn or error")
}

// logLevels are the levels --log-level names.
var logLevels = map[string]slog.Level{
	"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError,
}

// validate refuses a format or a level serve does not know, before anything starts.
func (o logOptions) validate() error {
	_, err := newLogger(io.Discard, o)
	return err
}

// newLogger is the logger o describes, writing to w. An empty field takes its default, so a
// command registering the flags with defaults of its own may leave them out.
func newLogger(w io.Writer, o logOptions) (*slog.Logger, error) {
	if o.Format == "" {
		o.Format = defaultLog.Format
	}
	if o.Level == "" {
		o.Level = defaultLog.Level
	}
	level, ok := logLevels[o.Level]
	if !ok {
		return nil, fmt.Errorf("%w: serve: --log-level must be debug, info, warn or error, not %q", errUsage, o.Level)
	}
	ho := &slog.HandlerOptions{Level: level}
	switch o.Format {
	case "text":
		return slog.New(slog.NewTextHandler(w, ho)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, ho)), nil
	default:
		return nil, fmt.Errorf("%w: serve: --log-format must be text or json, not %q", errUsage, o.Format)
	}
}

// newAccessLog is serve's access log: the access lines in o's format and level, written to out
// in batches from a goroutine of their own, so a busy server makes one write for many lines
// instead of one on each request's path. The text format's lines are appended by hand in the
// bytes slog's text handler writes (resellerd.NewTextAccessLog), at a fraction of its cost.
func newAccessLog(out io.Writer, o logOptions) (*resellerd.AccessLog, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.Format == "" || o.Format == "text" {
		return resellerd.NewTextAccessLog(out, logLevels[cmp.Or(o.Level, defaultLog.Level)]), nil
	}
	return resellerd.NewBatchedAccessLog(out, func(w io.Writer) *slog.Logger {
		logger, _ := newLogger(w, o) // o is valid: validate said so
		return logger
	}), nil
}

// lockedWriter lets serve's logger and its access log's batches write to one writer (stderr,
// or a test's buffer) one write at a time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
