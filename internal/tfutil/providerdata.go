package tfutil

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// ClientFromProviderData returns the API client the provider's Configure handed to a data source
// or resource. It returns nil without a diagnostic when providerData is nil, which happens when
// Terraform validates a configuration before the provider is configured; callers then do
// nothing. Any other type is a bug in the provider and is reported as such.
func ClientFromProviderData(providerData any, diags *diag.Diagnostics) *client.Client {
	if providerData == nil {
		return nil
	}
	c, ok := providerData.(*client.Client)
	if !ok || c == nil {
		diags.AddError(
			"Unexpected provider data",
			fmt.Sprintf("Expected *client.Client, got %T. This is a bug in the provider; please report it.", providerData),
		)
		return nil
	}
	return c
}

// AddUnconfiguredClient reports a data source or resource used while the provider has no
// client. That happens when the provider block depends on values known only after apply: the
// provider then stays unconfigured during the plan rather than failing it.
func AddUnconfiguredClient(diags *diag.Diagnostics) {
	diags.AddError(
		"Provider not configured",
		"The reseller provider has no API client because its configuration contains values that are "+
			"not known until apply (for example an endpoint or api_key taken from a resource that does "+
			"not exist yet), so this cannot be read during the plan. Use values known at plan time in "+
			"the provider block, or apply the resources it depends on first (terraform apply -target=...).",
	)
}
