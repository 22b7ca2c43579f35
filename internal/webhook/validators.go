package webhook

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	hook "github.com/reseller/terraform-provider-reseller/webhook"
)

// URL returns a validator for webhook URLs with the API's rule (webhook.CheckURL, shared with the
// backend), so a typo fails at plan time on the attribute instead of at apply time.
func URL() validator.String { return urlValidator{} }

type urlValidator struct{}

func (urlValidator) Description(context.Context) string {
	return fmt.Sprintf("value must be an absolute https:// URL of at most %d characters without credentials or "+
		"fragment (http:// only on a loopback host)", hook.MaxURLLength)
}

func (v urlValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (urlValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	raw := req.ConfigValue.ValueString()
	// The provider cannot know whether the backend allows http://, so it lets a loopback http://
	// URL through and the API decides.
	if err := hook.CheckURL(raw, true); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid webhook URL",
			fmt.Sprintf("Attribute %s value %q is not a valid webhook URL: it %s.", req.Path, raw, err))
	}
}
