package tfutil

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// ValidRegex returns a validator that rejects a string which is not a valid regular expression
// in Go's RE2 syntax, so a typo fails at plan time on the attribute instead of at read time. The
// detail names the attribute too: Terraform shows only the block for a list block's config.
func ValidRegex() validator.String { return regexValidator{} }

type regexValidator struct{}

func (regexValidator) Description(context.Context) string {
	return "value must be a valid regular expression (RE2 syntax)"
}

func (v regexValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (regexValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := regexp.Compile(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid regular expression",
			fmt.Sprintf("%s = %q is not a valid regular expression (RE2 syntax): %s.", req.Path, req.ConfigValue.ValueString(), err))
	}
}

// MaxHostnameLength is the longest hostname the API accepts (spec: Limits).
const MaxHostnameLength = 63

// Hostname returns a validator for RFC 1123 hostnames of at most MaxHostnameLength characters:
// dot-separated labels of letters, digits and inner hyphens. The API applies the same rule, but
// checking it here reports a typo at plan time, before anything is ordered.
func Hostname() validator.String { return hostnameValidator{} }

type hostnameValidator struct{}

func (hostnameValidator) Description(context.Context) string {
	return fmt.Sprintf("value must be an RFC 1123 hostname (labels of letters, digits and inner hyphens, "+
		"separated by dots) of at most %d characters", MaxHostnameLength)
}

func (v hostnameValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v hostnameValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	h := req.ConfigValue.ValueString()
	if problem := HostnameProblem(h); problem != "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid hostname",
			fmt.Sprintf("%q is not a valid hostname: %s. The %s.", h, problem, v.Description(ctx)))
	}
}

// HostnameProblem says what is wrong with h as an RFC 1123 hostname, or "" when nothing is.
func HostnameProblem(h string) string {
	if h == "" {
		return "it is empty"
	}
	if len(h) > MaxHostnameLength {
		return fmt.Sprintf("it has %d characters", len(h))
	}
	for i, label := range strings.Split(h, ".") {
		switch {
		case label == "":
			return fmt.Sprintf("label %d is empty", i+1)
		case label[0] == '-' || label[len(label)-1] == '-':
			return fmt.Sprintf("label %q starts or ends with a hyphen", label)
		}
		for _, c := range label {
			if !hostnameChar(c) {
				return fmt.Sprintf("label %q contains %q", label, c)
			}
		}
	}
	return ""
}

// hostnameChar reports whether c may appear in an RFC 1123 label: an ASCII letter, digit or hyphen.
func hostnameChar(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
}
