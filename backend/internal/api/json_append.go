package api

// JSON appended by hand for the busiest answers (views_instances_append.go): strings escaped as
// encoding/json escapes them, the members of an object, and the catalogue's texts quoted once.

import (
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

// appendJSONString appends s as a JSON string exactly as encoding/json writes it, HTML
// characters escaped (as the API's encoder does): '"' and '\' escaped, \b \f \n \r \t by
// name, the other control characters and '<', '>', '&' as \u00XX, invalid UTF-8 as \ufffd,
// U+2028 and U+2029 as themselves escaped. TestAppendJSONStringAsEncodingJSON holds it to
// encoding/json for every byte and awkward runes.
func appendJSONString(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		return appendJSONStringInvalid(b, s)
	}
	b = append(b, '"')
	start := 0 // s[start:i] is still to be copied as it is
	for i := 0; i < len(s); i++ {
		c := s[i]
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

// appendJSONStringInvalid is appendJSONString for a string that is not valid UTF-8, rune by
// rune: each invalid byte becomes \ufffd.
func appendJSONStringInvalid(b []byte, s string) []byte {
	b = append(b, '"')
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

// jsonTexts holds the JSON string of every text of the catalogue, made once (newJSONTexts):
// an instance's detail carries a dozen, mostly Persian by default, and checking and escaping
// them on every GET was half the cost of appending it. A text not held is quoted as any string.
type jsonTexts map[string]string

// newJSONTexts quotes every string of every entry of c, found by reflection so an entry's new
// field is held without a change here.
func newJSONTexts(c *catalog.Catalog) jsonTexts {
	t := jsonTexts{}
	for _, entries := range []any{c.Datacenters(), c.Locations(), c.Templates(), c.Plans(catalog.PlanFilter{}),
		c.Features(), c.Apps(), catalog.TermHourly} {
		t.addStrings(reflect.ValueOf(entries))
	}
	return t
}

// addStrings quotes every string v is or holds.
func (t jsonTexts) addStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		t[v.String()] = string(appendJSONString(nil, v.String()))
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				t.addStrings(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			t.addStrings(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			t.addStrings(k)
			t.addStrings(v.MapIndex(k))
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			t.addStrings(v.Elem())
		}
	}
}

// appendString appends s as a JSON string, from t when it holds s.
func (t jsonTexts) appendString(b []byte, s string) []byte {
	if q, ok := t[s]; ok {
		return append(b, q...)
	}
	return appendJSONString(b, s)
}

// appendKeyString is the package's appendKeyString for a text of the catalogue.
func (t jsonTexts) appendKeyString(b []byte, key, s string) []byte {
	return t.appendString(append(b, key...), s)
}

// appendKeyOptional is the package's appendKeyOptional for a text of the catalogue.
func (t jsonTexts) appendKeyOptional(b []byte, key, s string) []byte {
	if s == "" {
		return appendKeyOptional(b, key, s) // null
	}
	return t.appendKeyString(b, key, s)
}
