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
// ReplaceAttr or AddSource) writes the record writeAccess makes, newline included. sec keeps
// the text of the last line's second; one goroutine at a time may use it.
func appendTextLine(b []byte, e accessEntry, sec *secondText) []byte {
	b = append(b, "time="...)
	b = appendMillis(b, e.at, sec)
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
// milliseconds, truncated, in t's own zone. The text of t's second comes from sec, formatted
// once a second and zone, not once a line.
func appendMillis(b []byte, t time.Time, sec *secondText) []byte {
	if t.Unix() != sec.unix || t.Location() != sec.loc || sec.date == nil {
		sec.set(t)
	}
	b = append(b, sec.date...)
	ms := t.Nanosecond() / int(time.Millisecond)
	b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	return append(b, sec.zone...)
}

// secondText is the RFC 3339 text of one second in one zone: the date and clock, and the
// zone's suffix (Z or ±hh:mm), which the milliseconds go between. Its zero value holds none.
type secondText struct {
	unix       int64
	loc        *time.Location
	date, zone []byte
}

// set makes sec the text of t's second in t's zone.
func (sec *secondText) set(t time.Time) {
	const dateLen = len("2006-01-02T15:04:05")
	text := t.AppendFormat(sec.date[:0], time.RFC3339) // no fraction
	sec.unix, sec.loc = t.Unix(), t.Location()
	sec.date, sec.zone = text[:dateLen], append(sec.zone[:0], text[dateLen:]...)
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
			class := asciiClass[c]
			quoted = quoted || class&needsQuotes != 0
			plain = plain && class&needsEscape == 0
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

// asciiClass holds, for each ASCII byte, what it asks of a text value holding it (textQuoting):
// looked up, not tested byte by byte against five characters and two ranges.
var asciiClass = func() (class [utf8.RuneSelf]uint8) {
	for c := range class {
		if c == ' ' || c == '=' || c == '"' || c < 0x20 {
			class[c] |= needsQuotes
		}
		if c == '"' || c == '\\' || c < 0x20 || c == 0x7f {
			class[c] |= needsEscape
		}
	}
	return class
}()

// The bits of asciiClass.
const (
	needsQuotes = 1 << iota // the value is quoted
	needsEscape             // quoted, it is escaped by strconv.Quote
)
