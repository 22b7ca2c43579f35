package webhookendpoint

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// ID is the only id of reseller_webhook: an account has one webhook.
const ID = "webhook"

// Model is the state of reseller_webhook. Conversions to and from the API live in this file
// only; resource.go decides what to call and when.
type Model struct {
	// Arguments.
	URL             types.String `tfsdk:"url"`
	Secret          types.String `tfsdk:"secret"`
	SecretWO        types.String `tfsdk:"secret_wo"`
	SecretWOVersion types.Int64  `tfsdk:"secret_wo_version"`
	Verify          types.Bool   `tfsdk:"verify"`

	// Computed.
	ID         types.String `tfsdk:"id"`
	Configured types.Bool   `tfsdk:"configured"`
	Events     types.List   `tfsdk:"events"`
}

// putRequest builds the PUT /account/webhook body from the plan m and the configuration
// config: a write-only value is only in the configuration (the plan holds null for it).
func putRequest(m, config Model) client.WebhookRequest {
	secret := config.Secret.ValueString()
	if tfutil.IsSet(config.SecretWO) {
		secret = config.SecretWO.ValueString()
	}
	return client.WebhookRequest{URL: m.URL.ValueString(), Secret: secret}
}

// needsPut reports whether an update must register the webhook again: the URL, the secret or
// the write-only secret's version changed (switching between secret and secret_wo changes both).
func needsPut(plan, prior Model) bool {
	return !plan.URL.Equal(prior.URL) || !plan.Secret.Equal(prior.Secret) || !plan.SecretWOVersion.Equal(prior.SecretWOVersion)
}

// setSettings copies what the API says about the webhook into m. The secret is never returned,
// so the secret arguments keep their values; the write-only one is always null in the state.
func (m *Model) setSettings(ctx context.Context, s *client.WebhookSettings) diag.Diagnostics {
	m.ID = types.StringValue(ID)
	if s.URL != nil {
		m.URL = types.StringValue(*s.URL)
	}
	m.Configured = types.BoolValue(s.Configured)
	m.SecretWO = types.StringNull()
	if m.Verify.IsNull() || m.Verify.IsUnknown() {
		m.Verify = types.BoolValue(false) // imported: the default
	}
	var diags diag.Diagnostics
	m.Events, diags = tfutil.StringList(ctx, s.Events)
	return diags
}
