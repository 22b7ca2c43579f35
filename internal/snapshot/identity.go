package snapshot

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

var _ resource.ResourceWithIdentity = (*Resource)(nil)

// IdentitySchema is the identity of reseller_snapshot: its id, which import blocks name with
// identity = { id = 123 }.
func (r *Resource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"id": identityschema.Int64Attribute{RequiredForImport: true, Description: "The snapshot id."},
		},
	}
}

// setIdentity copies id from state into the identity (see tfutil.SetIdentity).
func setIdentity(ctx context.Context, state *tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	tfutil.SetIdentity[types.Int64](ctx, state, identity, diags, "id")
}
