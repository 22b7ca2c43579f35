package devapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/console"
)

// redacted replaces every secret the journal would otherwise show.
const redacted = "[redacted]"

// maxJournalBody is the largest body the journal keeps: a longer one is shown as a note of its
// size, so a journal of many large lists stays small.
const maxJournalBody = 64 << 10

// redactor removes secrets from the JSON bodies the journal keeps: the values of every member
// named like a password or a secret (password, console_password, secret, root_password, ...),
// the token in a console_url, and of every app input the catalogue declares of the password kind, in app_inputs and
// wherever its name appears (an install's result).
type redactor struct {
	appPasswords map[string]map[string]bool // app id → input key → of the password kind
	passwordKeys map[string]bool            // every password-kind input key, folded (foldName)
}

func newRedactor(c *catalog.Catalog) redactor {
	x := redactor{appPasswords: map[string]map[string]bool{}, passwordKeys: map[string]bool{}}
	if c == nil {
		return x
	}
	for _, app := range c.Apps() {
		for _, in := range app.Inputs {
			if in.Kind != catalog.KindPassword {
				continue
			}
			if x.appPasswords[app.ID] == nil {
				x.appPasswords[app.ID] = map[string]bool{}
			}
			x.appPasswords[app.ID][in.Key] = true
			x.passwordKeys[foldName(in.Key)] = true
		}
	}
	return x
}

// body is b as the journal keeps it: nil when there is none, the JSON with its secrets
// redacted, or a JSON string noting a body that is not JSON or longer than maxJournalBody
// (size is the whole body's length; b may hold only its first bytes).
func (x redactor) body(b []byte, size int64) json.RawMessage {
	switch {
	case size > maxJournalBody:
		return note(fmt.Sprintf("[omitted: %d bytes, more than %d]", size, maxJournalBody))
	case len(bytes.TrimSpace(b)) == 0:
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return note(fmt.Sprintf("[not JSON: %d bytes]", size))
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x.value(v)); err != nil {
		return note(fmt.Sprintf("[not JSON: %d bytes]", size))
	}
	return bytes.TrimSpace(out.Bytes())
}

// note is s as a JSON string.
func note(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}

// value is v with the secrets of every object in it redacted, in place.
func (x redactor) value(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			switch {
			case child == nil: // null shows that nothing is set, and hides nothing
			case x.secretName(k):
				t[k] = redacted
			case foldName(k) == "console_url":
				t[k] = consoleURL(child)
			case foldName(k) == "app_inputs":
				t[k] = x.appInputs(child)
			default:
				t[k] = x.value(child)
			}
		}
	case []any:
		for i := range t {
			t[i] = x.value(t[i])
		}
	}
	return v
}

// consoleURL is a console_url with its token redacted (console.RedactPath): the token opens
// the console as much as its password does.
func consoleURL(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	u, err := url.Parse(s)
	if err != nil {
		return redacted
	}
	u.Path = console.RedactPath(u.Path)
	u.RawPath = u.Path // written as it is: brackets need no escaping in a path
	return u.String()
}

// secretName reports whether a member named k holds a secret, by its folded name: a name the
// API's decoder (encoding/json, which matches member names case-insensitively) takes for one
// that holds a secret is redacted too, such as "ſecret" (U+017F) for secret.
func (x redactor) secretName(k string) bool {
	l := foldName(k)
	return strings.Contains(l, "password") || strings.Contains(l, "secret") || l == "api_key" || x.passwordKeys[l]
}

// foldName is name with every letter replaced by the lower-case one of its simple case folding
// (strings.EqualFold's equivalence): two names encoding/json matches to one field have the same
// folded name, which for a field's ASCII name is that name in lower case. ſ (U+017F) folds
// with s and S, and K (U+212A, the Kelvin sign) with k and K, so they become s and k.
func foldName(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	for _, r := range name {
		b.WriteRune(unicode.ToLower(foldBase(r)))
	}
	return b.String()
}

// foldBase is the smallest rune of r's case-folding orbit (unicode.SimpleFold): the same rune
// for every member of the orbit.
func foldBase(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}

// appInputs redacts an app_inputs object (app id → input key → value): the inputs of the
// password kind of each app, and any named like a secret.
func (x redactor) appInputs(v any) any {
	apps, ok := v.(map[string]any)
	if !ok {
		return x.value(v)
	}
	for app, inputs := range apps {
		m, ok := inputs.(map[string]any)
		if !ok {
			continue
		}
		for k, val := range m {
			if val != nil && (x.appPasswords[app][k] || x.secretName(k)) {
				m[k] = redacted
			}
		}
	}
	return apps
}
