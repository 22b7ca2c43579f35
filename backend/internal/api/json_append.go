package api

// JSON appended by hand for the busiest answers (views_instances_append.go): strings escaped as
// encoding/json escapes them, and the members of an object.

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

// appendJSONString appends s as a JSON string exactly as encoding/json writes it, HTML
// characters escaped (as the API's encoder does): '"' and '\' escaped, \b \f \n \r \t by
// name, the other control characters and '<', '>', '&' as \u00XX, invalid UTF-8 as \ufffd,
// U+2028 and U+2029 as themselves escaped. TestAppendJSONStringAsEncodingJSON holds it to
// encoding/json for every byte and awkward runes.
//
// It copies runs of safe bytes, found by a table lookup a byte. Most of an answer's strings are
// ASCII (names, addresses, states) and are never checked as UTF-8: only at the first byte above
// ASCII is the rest checked, once; invalid UTF-8 goes rune by rune from there.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0         // s[start:i] is still to be copied as it is
	validRest := false // s[i:] is known to be valid UTF-8
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf && !validRest {
			if !utf8.ValidString(s[i:]) {
				return appendJSONStringInvalid(append(b, s[start:i]...), s[i:])
			}
			validRest = true
		}
		if jsonSafe[c] || c == lineSeparatorLead && !isLineSeparator(s[i:]) {
			continue
		}
		b = append(b, s[start:i]...)
		if c == lineSeparatorLead {
			b = append(b, `\u202`...)
			b = append(b, hexDigits[s[i+2]-0xa0]) // U+2028 ends in A8, U+2029 in A9
			i += 2
		} else {
			b = appendEscapedASCII(b, c)
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// lineSeparatorLead is the first byte of U+2028 and U+2029 in UTF-8 (E2 80 A8, E2 80 A9),
// the only runes above ASCII a valid string escapes.
const lineSeparatorLead = 0xe2

// isLineSeparator reports whether s starts with U+2028 or U+2029.
func isLineSeparator(s string) bool {
	return len(s) >= 3 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9)
}

// appendJSONStringInvalid is the rest of appendJSONString from s, which is not valid UTF-8,
// rune by rune: each invalid byte becomes \ufffd.
func appendJSONStringInvalid(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r < utf8.RuneSelf && !jsonSafe[r]:
			b = appendEscapedASCII(b, byte(r))
		case r == '\u2028' || r == '\u2029':
			b = append(b, `\u202`...)
			b = append(b, hexDigits[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// appendEscapedASCII appends the escape of an ASCII byte jsonSafe refuses.
func appendEscapedASCII(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

const hexDigits = "0123456789abcdef"

// jsonSafe holds the bytes of valid UTF-8 a JSON string carries as they are: ASCII but for
// the control characters, '"', '\\' and the HTML characters, and every byte above ASCII but
// the lead byte of the line separators.
var jsonSafe = func() (safe [256]bool) {
	for c := range safe {
		safe[c] = c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' && c != lineSeparatorLead
	}
	return safe
}()

// The appenders of one member: key is the member's name as JSON with what comes before it
// (`,"name":`), so an object is a run of calls with no separator logic.

func appendKeyString(b []byte, key, s string) []byte { return appendJSONString(append(b, key...), s) }

func appendKeyInt(b []byte, key string, n int64) []byte {
	return strconv.AppendInt(append(b, key...), n, 10)
}

func appendKeyBool(b []byte, key string, v bool) []byte {
	return strconv.AppendBool(append(b, key...), v)
}

func appendKeyMoney(b []byte, key string, m money.Micros) []byte {
	return m.AppendDecimal(append(b, key...))
}

// appendKeyOptional is the member of a string the view shows through optional: null for "".
func appendKeyOptional(b []byte, key, s string) []byte {
	if s == "" {
		return append(append(b, key...), "null"...)
	}
	return appendKeyString(b, key, s)
}

// appendKeyID is the member of an id the view shows through optionalID: null for 0.
func appendKeyID(b []byte, key string, id int64) []byte {
	if id == 0 {
		return append(append(b, key...), "null"...)
	}
	return appendKeyInt(b, key, id)
}

// appendKeyTime is the member of a time the view shows through optionalTime: null for the
// zero time, else timestamp's text, which needs no escaping.
func appendKeyTime(b []byte, key string, t time.Time) []byte {
	b = append(b, key...)
	if t.IsZero() {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = appendTimestamp(b, t)
	return append(b, '"')
}
