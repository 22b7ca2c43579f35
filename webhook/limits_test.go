package webhook_test

import (
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/webhook"
)

func TestCheckURL(t *testing.T) {
	tests := []struct {
		url       string
		allowHTTP bool
		want      string // "" when accepted, else a part of the error
	}{
		{"https://hooks.example.com/x", false, ""},
		{"HTTPS://hooks.example.com/x", false, ""},
		{"https://[2001:db8::1]:8443/x?a=1", false, ""},
		{"http://127.0.0.1/x", false, "must be an https:// URL"},
		{"http://127.0.0.1/x", true, ""},
		{"http://127.0.0.2:8080/x", true, ""}, // all of 127.0.0.0/8 is loopback
		{"http://LOCALHOST/x", true, ""},
		{"http://[::1]/x", true, ""},
		{"http://localhost.example.com/x", true, "only for a receiver on the same machine"},
		{"http://192.168.1.1/x", true, "only for a receiver on the same machine"},
		{"ftp://hooks.example.com", true, `scheme "ftp"`},
		{"hooks.example.com/x", false, "absolute https://"},
		{"https://", false, "absolute https://"},
		{"https:///path", false, "absolute https://"},
		{"mailto:a@example.com", false, "absolute https://"},
		{"https://u:p@hooks.example.com/x", false, "credentials"},
		{"https://hooks.example.com/x#f", false, "fragment"},
		{"https://hooks.example.com/" + strings.Repeat("a", webhook.MaxURLLength), false, "at most 2048"},
	}
	for _, tt := range tests {
		err := webhook.CheckURL(tt.url, tt.allowHTTP)
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("CheckURL(%q, %v) = %v, want %q", tt.url, tt.allowHTTP, err, tt.want)
		}
	}
}

func TestCheckSecret(t *testing.T) {
	tests := []struct {
		secret string
		ok     bool
	}{
		{strings.Repeat("s", 15), false},
		{strings.Repeat("s", 16), true},
		{strings.Repeat("s", 256), true},
		{strings.Repeat("s", 257), false},
		{strings.Repeat("é", 16), true}, // characters, not bytes
		{"", false},
	}
	for _, tt := range tests {
		if err := webhook.CheckSecret(tt.secret); (err == nil) != tt.ok {
			t.Errorf("CheckSecret(%d characters) = %v, want ok %v", len([]rune(tt.secret)), err, tt.ok)
		}
	}
	if webhook.MinSecretLength != 16 || webhook.MaxSecretLength != 256 || webhook.MaxURLLength != 2048 {
		t.Errorf("limits %d..%d, URL %d: want the spec's 16..256 and 2048",
			webhook.MinSecretLength, webhook.MaxSecretLength, webhook.MaxURLLength)
	}
}
