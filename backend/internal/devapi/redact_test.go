package devapi

import (
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
)

// TestRedactorBodies: what the journal keeps of a body. App inputs are redacted by the kind the
// catalogue gives them (an app's password-kind TOKEN, but not another app's text TOKEN), members
// named like passwords and secrets at any depth, and a password-kind input's name wherever it
// appears (an install's result); null stays null, and a body that is not JSON, or is too long,
// becomes a note of its size.
func TestRedactorBodies(t *testing.T) {
	t.Parallel()
	x := newRedactor(catalog.New())
	x.appPasswords["vault"] = map[string]bool{"TOKEN": true} // an app whose password input has no telling name
	for _, tt := range []struct{ in, want string }{
		{``, ``},
		{`  `, ``},
		{`{"app_inputs": {"vault": {"TOKEN": "t-1", "NAME": "n"}, "other": {"TOKEN": "t-2"}, "mysql": {"ROOT_PASSWORD": "p", "DATABASE": "d"}}}`,
			`{"app_inputs":{"mysql":{"DATABASE":"d","ROOT_PASSWORD":"[redacted]"},"other":{"TOKEN":"t-2"},"vault":{"NAME":"n","TOKEN":"[redacted]"}}}`},
		{`{"url": "https://x/<a>&", "secret": "s", "n": 12345678901234567890}`, `{"n":12345678901234567890,"secret":"[redacted]","url":"https://x/<a>&"}`},
		{`{"data": [{"credentials": {"password": "p", "username": "root"}}, {"credentials": {"password": null}}]}`,
			`{"data":[{"credentials":{"password":"[redacted]","username":"root"}},{"credentials":{"password":null}}]}`},
		{`{"data": {"console_password": "c", "Webhook_Secret": {"a": 1}, "api_key": "k", "api_key_hint": "abcd"}}`,
			`{"data":{"Webhook_Secret":"[redacted]","api_key":"[redacted]","api_key_hint":"abcd","console_password":"[redacted]"}}`},
		{`{"result": {"root_password": "p", "admin_password": "q", "host": "h"}}`,
			`{"result":{"admin_password":"[redacted]","host":"h","root_password":"[redacted]"}}`},
		{`not json`, `"[not JSON: 8 bytes]"`},
		{`{"a": 1} {"b": 2}`, `"[not JSON: 17 bytes]"`},
		{`[1, "two", null]`, `[1,"two",null]`},
	} {
		if got := string(x.body([]byte(tt.in), int64(len(tt.in)))); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
	if got := string(x.body([]byte(`{"a":`), maxJournalBody+1)); got != `"[omitted: 65537 bytes, more than 65536]"` {
		t.Errorf("a long body: %s", got)
	}
}
