package tfutil

import (
	"context"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// ValidRegex returns a validator that rejects a string which is not a valid regular expression
// in Go's RE2 syntax, so a typo fails at plan time on the attribute instead of at read time.
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
			fmt.Sprintf("%q is not a valid regular expression (RE2 syntax): %s.", req.ConfigValue.ValueString(), err))
	}
}
