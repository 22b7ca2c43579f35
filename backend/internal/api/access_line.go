package api

import (
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/reseller/terraform-provider-reseller/backend/internal/console"
)

// The access line in serve's default format, appended by hand. slog's text handler builds each
// line through a Record, its attributes and a pooled buffer: most of the access log's writer's
// CPU in a profile of a busy GET (bench/README.md, "Issue 44, point 2"). appendTextLine writes
// the same bytes (TestTextLineAsSlogWritesIt holds it to slog.NewTextHandler's output), so a log
// collector or a grep sees no difference.

// appendTextLine appends e's access line to b exactly as slog.NewTextHandler (without
// ReplaceAttr or AddSource) writes the record writeAccess makes, newline included.
func appendTextLine(b []byte, e accessEntry) []byte {
	b = append(b, "time="...)
	b = appendMillis(b, e.at)
	b = append(b, " level=INFO msg=request request_id="...)
	b = appendTextString(b, e.id)
	b = append(b, " method="...)
	b = appendTextString(b, e.method)
	b = append(b, " route="...)
	b = appendTextString(b, e.route)
	b = append(b, " path="...)
	b = appendTextString(b, console.RedactPath(e.path))
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(e.status), 10)
	b = append(b, " duration_ms="...)
	b = strconv.AppendFloat(b, float64(e.elapsed.Microseconds())/1000, 'g', -1, 64)
	b = append(b, " bytes="...)
	b = strconv.AppendInt(b, e.bytes, 10)
	b = append(b, " client="...)
	b = appendTextString(b, e.client)
	if e.accountID != 0 {
		b = append(b, " account_id="...)
		b = strconv.AppendInt(b, e.accountID, 10)
	}
	return append(b, '\n')
}

// appendMillis appends t as slog's text handler does: RFC 3339 with exactly three digits of
// milliseconds, truncated, in t's own zone.
func appendMillis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	// RFC3339Nano trims trailing zeros: a tenth of a millisecond more keeps four digits, the
	// fourth of which is dropped.
	t = t.Round(0).Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}

// appendTextString appends s bare, or quoted by strconv.Quote where slog's text handler quotes
// it. A string of printable ASCII without '"' or '\' quotes as itself between quotes, so the
// common case, a route such as "GET /instances/{instance_id}", skips strconv's escaping.
func appendTextString(b []byte, s string) []byte {
	switch textQuoting(s) {
	case quoteNone:
		return append(b, s...)
	case quotePlain:
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	return strconv.AppendQuote(b, s)
}

// quoting is how a text value is written (textQuoting).
type quoting int

const (
	quoteNone    quoting = iota // bare
	quotePlain                  // between quotes, as it is
	quoteEscaped                // by strconv.Quote
)

// textQuoting applies slog's rule for a text value: it is quoted when empty or holding a space,
// '=', '"', a control character, invalid UTF-8 or a rune that is a space or not printable. A
// backslash alone does not need quoting, DEL does not either (slog borrows encoding/json's safe
// set). Quoted, it needs escaping unless it is printable ASCII without '"' or '\'.
func textQuoting(s string) quoting {
	quoted, plain := s == "", true
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			quoted = quoted || c == ' ' || c == '=' || c == '"' || c < 0x20
			plain = plain && c != '"' && c != '\\' && c >= 0x20 && c != 0x7f
			i++
			continue
		}
		plain = false
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			quoted = true
		}
		i += size
	}
	switch {
	case !quoted:
		return quoteNone
	case plain:
		return quotePlain
	}
	return quoteEscaped
}
