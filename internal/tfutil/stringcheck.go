package tfutil

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// StringCheck returns a validator that runs check on a configured value and reports the problem
// it finds on the attribute, so a rule written once as a plain function (shared with the client
// or the backend) also fails a typo at plan time. summary heads the diagnostic; the detail reads
// `Attribute <path> value "<value>" is not <what>: <problem>.` Null and unknown values are not
// checked; check decides about the empty string.
func StringCheck(description, summary, what string, check func(string) error) validator.String {
	return stringCheck{description: description, summary: summary, what: what, check: check}
}

type stringCheck struct {
	description, summary, what string
	check                      func(string) error
}

func (v stringCheck) Description(context.Context) string { return v.description }

func (v stringCheck) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v stringCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	raw := req.ConfigValue.ValueString()
	if err := v.check(raw); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, v.summary,
			fmt.Sprintf("Attribute %s value %q is not %s: %s.", req.Path, raw, v.what, err))
	}
}
