package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

var _ provider.ProviderWithValidateConfig = (*Provider)(nil)

// ValidateConfig checks the provider block's settings wherever their values are known, so that
// `terraform validate` (which never configures the provider or sends a request) already names the
// attribute at fault. Values from the environment are checked by Configure, which reads them.
// Unknown values (taken from resources not yet created) are left for Configure too.
func (p *Provider) ValidateConfig(ctx context.Context, req provider.ValidateConfigRequest, resp *provider.ValidateConfigResponse) {
	var cfg Model
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	checkEndpointSetting(cfg.Endpoint, "endpoint", &resp.Diagnostics)
	checkEndpointSetting(cfg.AltEndpoint, "alt_endpoint", &resp.Diagnostics)
	checkOneOfSetting(cfg.Language, "language", Languages, &resp.Diagnostics)
	checkOneOfSetting(cfg.PlanChecks, "plan_checks", PlanChecksModes, &resp.Diagnostics)
	if v := cfg.MaxRetries; known(v.IsNull(), v.IsUnknown()) && v.ValueInt64() < 0 {
		resp.Diagnostics.AddAttributeError(path.Root("max_retries"), "Invalid max_retries",
			fmt.Sprintf("Attribute max_retries must be at least 0 (0 turns retries off), got %d.", v.ValueInt64()))
	}
	if v := cfg.RateLimitScale; known(v.IsNull(), v.IsUnknown()) && v.ValueFloat64() < 0 {
		resp.Diagnostics.AddAttributeError(path.Root("rate_limit_scale"), "Invalid rate_limit_scale",
			fmt.Sprintf("Attribute rate_limit_scale must be at least 0 (0 turns pacing off), got %g.", v.ValueFloat64()))
	}
}

// known reports whether a configured value can be checked now.
func known(isNull, isUnknown bool) bool { return !isNull && !isUnknown }

// checkEndpointSetting reports a set endpoint that client.CheckEndpoint refuses (not an absolute
// http or https URL). An empty string means "take the environment variable", which Configure
// checks.
func checkEndpointSetting(v types.String, attr string, diags *diag.Diagnostics) {
	if !known(v.IsNull(), v.IsUnknown()) || strings.TrimSpace(v.ValueString()) == "" {
		return
	}
	if err := client.CheckEndpoint(strings.TrimSpace(v.ValueString())); err != nil {
		diags.AddAttributeError(path.Root(attr), "Invalid URL",
			fmt.Sprintf("Attribute %s value %q is not a usable URL: %s. Use the API's base URL, for example "+
				"http://127.0.0.1:8080/api/v1.", attr, v.ValueString(), err))
	}
}

// checkOneOfSetting reports a set value outside allowed.
func checkOneOfSetting(v types.String, attr string, allowed []string, diags *diag.Diagnostics) {
	if !known(v.IsNull(), v.IsUnknown()) || slices.Contains(allowed, v.ValueString()) {
		return
	}
	diags.AddAttributeError(path.Root(attr), "Invalid "+attr,
		fmt.Sprintf("Attribute %s value %q is not supported; use one of %q.", attr, v.ValueString(), allowed))
}

// planChecksMode returns the plan_checks setting from the attribute, else RESELLER_PLAN_CHECKS,
// else the default, and reports a value from the environment that is not a mode (ValidateConfig
// has already checked the attribute).
func planChecksMode(v types.String, diags *diag.Diagnostics) string {
	mode, source := fromConfigOrEnv(v, "plan_checks", EnvPlanChecks)
	switch {
	case mode == "":
		return DefaultPlanChecks
	case !slices.Contains(PlanChecksModes, mode):
		diags.AddAttributeError(path.Root("plan_checks"), "Invalid plan_checks",
			fmt.Sprintf("The plan_checks value %q (from %s) is not supported; use one of %q.", mode, source, PlanChecksModes))
	}
	return mode
}
