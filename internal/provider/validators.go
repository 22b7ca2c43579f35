package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// endpointURL rejects a configured endpoint that client.CheckEndpoint refuses, so the mistake
// shows at plan time on the attribute rather than as a network error. An empty value means "take
// the environment variable", which Configure checks.
func endpointURL() validator.String {
	return tfutil.StringCheck("value must be an absolute http or https URL", "Invalid URL", "a usable URL",
		func(raw string) error {
			if raw == "" {
				return nil
			}
			return client.CheckEndpoint(raw)
		})
}
