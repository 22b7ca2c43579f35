package devapi

import (
	"encoding/json"
	"strings"
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
		{`{"data": {"console_url": "http://127.0.0.1:8080/console/T0KEN", "console_password": "c"}}`,
			`{"data":{"console_password":"[redacted]","console_url":"http://127.0.0.1:8080/console/[redacted]"}}`},
		{`{"data": {"console_url": "https://console.sim.reseller.test/vm-1/abc?expires=1"}}`,
			`{"data":{"console_url":"https://console.sim.reseller.test/vm-1/abc?expires=1"}}`},
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

// TestRedactorFoldsNamesAsTheDecoderDoes: encoding/json matches member names case-insensitively
// with Unicode's simple folding, so the API takes "ſecret" (U+017F) for secret and
// "root_passworD" or "Kelvin"-spelled names for theirs; the journal redacts what the API reads
// as a secret, however it is spelled. The test checks the decoder's matching first, so it
// follows encoding/json should that ever change.
func TestRedactorFoldsNamesAsTheDecoderDoes(t *testing.T) {
	t.Parallel()
	x := newRedactor(catalog.New())
	x.appPasswords["vault"] = map[string]bool{"TOKEN": true} // redacted in app_inputs by its kind alone
	for _, name := range []string{"ſecret", "SECRET", "ſEcReT"} {
		var decoded struct {
			Secret string `json:"secret"`
		}
		if err := json.Unmarshal([]byte(`{"`+name+`": "s3"}`), &decoded); err != nil || decoded.Secret != "s3" {
			t.Fatalf("encoding/json no longer takes %q for secret (%v); update the test", name, err)
		}
		body := `{"url": "https://x", "` + name + `": "s3"}`
		if got := string(x.body([]byte(body), int64(len(body)))); strings.Contains(got, "s3") {
			t.Errorf("%s: journal keeps %s", name, got)
		}
	}
	for _, body := range []string{
		`{"app_inputſ": {"vault": {"TOKEN": "t-1"}}}`, // app_inputs, spelled with ſ
		`{"data": {"api_\u212Aey": "t-1"}}`,           // api_key, spelled with the Kelvin sign
		`{"app_inputs": {"mysql": {"ROOT_PAſſWORD": "t-1"}}}`,
	} {
		if got := string(x.body([]byte(body), int64(len(body)))); strings.Contains(got, "t-1") {
			t.Errorf("%s: journal keeps %s", body, got)
		}
	}
}
