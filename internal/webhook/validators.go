package webhook

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// URL returns a validator for webhook URLs with the API's rules (backend README: webhook URL
// and secret), so a typo fails at plan time on the attribute instead of at apply time.
func URL() validator.String { return urlValidator{} }

type urlValidator struct{}

func (urlValidator) Description(context.Context) string {
	return fmt.Sprintf("value must be an absolute https:// URL of at most %d characters without credentials or "+
		"fragment (http:// only on a loopback host)", maxURLLength)
}

func (v urlValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (urlValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	raw := req.ConfigValue.ValueString()
	if problem := URLProblem(raw); problem != "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid webhook URL",
			fmt.Sprintf("Attribute %s value %q is not a valid webhook URL: %s.", req.Path, raw, problem))
	}
}

// URLProblem says what is wrong with raw as a webhook URL, or "" when nothing is.
func URLProblem(raw string) string {
	if len(raw) > maxURLLength {
		return fmt.Sprintf("it has %d characters, at most %d are allowed", len(raw), maxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Hostname() == "" {
		return "it must be an absolute https:// URL such as https://hooks.example.com/reseller"
	}
	if u.User != nil {
		return "it must not contain credentials (the secret authenticates the deliveries)"
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return "it must not have a fragment (#...)"
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return ""
	case "http":
		if loopback(u.Hostname()) {
			return ""
		}
		return "http:// is accepted only for a receiver on the same machine (127.0.0.1, localhost or [::1]) and " +
			"only by a backend started with --allow-http-webhooks; use https://"
	}
	return fmt.Sprintf("the scheme %q is not supported; use https://", u.Scheme)
}

// loopback reports whether host names this machine.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
