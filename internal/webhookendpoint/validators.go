package webhookendpoint

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
	hook "github.com/reseller/terraform-provider-reseller/webhook"
)

// URL returns a validator for webhook URLs with the API's rule (webhook.CheckURL, shared with the
// backend), so a typo fails at plan time on the attribute instead of at apply time. The provider
// cannot know whether the backend allows http://, so a loopback http:// URL passes and the API
// decides.
func URL() validator.String {
	return tfutil.StringCheck(
		fmt.Sprintf("value must be an absolute https:// URL of at most %d characters without credentials or "+
			"fragment (http:// only on a loopback host)", hook.MaxURLLength),
		"Invalid webhook URL", "a valid webhook URL",
		func(raw string) error {
			if err := hook.CheckURL(raw, true); err != nil {
				return fmt.Errorf("it %w", err)
			}
			return nil
		})
}
