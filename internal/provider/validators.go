package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// urlValidator rejects a configured endpoint that client.CheckEndpoint refuses, so the mistake
// shows at plan time on the attribute rather than as a network error.
type urlValidator struct{}

var _ validator.String = urlValidator{}

func (urlValidator) Description(context.Context) string {
	return "value must be an absolute http or https URL"
}

func (v urlValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (urlValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() || req.ConfigValue.ValueString() == "" {
		return
	}
	if err := client.CheckEndpoint(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid URL",
			fmt.Sprintf("%q is not a usable URL: %s.", req.ConfigValue.ValueString(), err))
	}
}
