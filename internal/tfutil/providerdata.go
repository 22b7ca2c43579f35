package tfutil

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/planbudget"
)

// ResourceData is what the provider's Configure hands its resources: the API client, and the
// plan-time view of the run (prices, the tally of creates) that reseller_instance's ModifyPlan
// shares across the whole run.
type ResourceData struct {
	Client *client.Client
	Checks *planbudget.Run
}

// ChecksFromProviderData returns the run's plan checks handed to a resource, or nil (no client
// yet, or provider data without them).
func ChecksFromProviderData(providerData any) *planbudget.Run {
	if d, ok := providerData.(*ResourceData); ok && d != nil {
		return d.Checks
	}
	return nil
}

// ClientFromProviderData returns the API client the provider's Configure handed to a data source
// or resource (directly, or in a *ResourceData). It returns nil without a diagnostic when providerData is nil, which happens when
// Terraform validates a configuration before the provider is configured; callers then do
// nothing. Any other type is a bug in the provider and is reported as such.
func ClientFromProviderData(providerData any, diags *diag.Diagnostics) *client.Client {
	if providerData == nil {
		return nil
	}
	if d, ok := providerData.(*ResourceData); ok && d != nil {
		providerData = d.Client
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
