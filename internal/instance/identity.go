package instance

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

// IdentitySchema is the identity of reseller_instance: its id, which import blocks name with
// identity = { id = 123 }. order_id is there for a create cut short before the server existed:
// such a resource has only its order until a later apply or refresh adopts the server, so its
// identity changes once, from the order to the server (hence MutableIdentity in Metadata).
func (r *Resource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"id": identityschema.Int64Attribute{
				RequiredForImport: true,
				Description:       "The instance id.",
			},
			"order_id": identityschema.Int64Attribute{
				OptionalForImport: true,
				Description:       "The order that built the instance; not needed to import it.",
			},
		},
	}
}

// setIdentity copies id and order_id from state into the identity (see tfutil.SetIdentity).
func setIdentity(ctx context.Context, state *tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	tfutil.SetIdentity[types.Int64](ctx, state, identity, diags, "id", "order_id")
}
