package webhookendpoint

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

var _ resource.ResourceWithIdentity = (*Resource)(nil)

// IdentitySchema is the identity of reseller_webhook. An account has one webhook, so its id is
// always "webhook": import blocks name it with identity = { id = "webhook" }.
func (r *Resource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"id": identityschema.StringAttribute{RequiredForImport: true, Description: `Always "webhook".`},
		},
	}
}

// setIdentity copies id from state into the identity (see tfutil.SetIdentity).
func setIdentity(ctx context.Context, state *tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	tfutil.SetIdentity[types.String](ctx, state, identity, diags, "id")
}

// importID is the id of a webhook import: the string id, or the id of the import block's identity.
func importID(ctx context.Context, req resource.ImportStateRequest, diags *diag.Diagnostics) string {
	if req.ID != "" || req.Identity == nil {
		return req.ID
	}
	var id types.String
	diags.Append(req.Identity.GetAttribute(ctx, path.Root("id"), &id)...)
	return id.ValueString()
}
