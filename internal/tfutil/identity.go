package tfutil

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// SetIdentity copies the root attributes names of state into the resource identity, so Terraform
// (1.12 and later) can import and list the resource by it. A resource removed from the state, or
// a Terraform that sends no identity, leaves it alone. CRUD methods defer it, which covers every
// return path, warnings included.
func SetIdentity[T attr.Value](ctx context.Context, state *tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics, names ...string) {
	if identity == nil || state.Raw.IsNull() {
		return
	}
	for _, name := range names {
		var v T
		diags.Append(state.GetAttribute(ctx, path.Root(name), &v)...)
		diags.Append(identity.SetAttribute(ctx, path.Root(name), v)...)
	}
}

// ImportNumericID returns the id of an import of the resource type typeName: the string id of
// `terraform import` and of an import block's `id`, or the `id` of an import block's identity.
func ImportNumericID(ctx context.Context, req resource.ImportStateRequest, typeName string, diags *diag.Diagnostics) (int64, bool) {
	if req.ID != "" || req.Identity == nil {
		return ParseImportID(req.ID, typeName, diags)
	}
	var id types.Int64
	diags.Append(req.Identity.GetAttribute(ctx, path.Root("id"), &id)...)
	if diags.HasError() {
		return 0, false
	}
	if id.IsNull() || id.IsUnknown() || id.ValueInt64() <= 0 {
		diags.AddAttributeError(path.Root("id"), "Invalid import identity",
			fmt.Sprintf("The identity of a %s import needs `id`, a positive integer, for example identity = { id = 123 }.", typeName))
		return 0, false
	}
	return id.ValueInt64(), true
}

// ReadIdentityState is the state a Read takes its identity from: the state it returns or, when
// it removed the resource (gone outside Terraform), the state it was asked to read. The framework
// refuses a Read that returns no identity, and a Terraform older than 1.12 sends none to keep.
func ReadIdentityState(req resource.ReadRequest, resp *resource.ReadResponse) *tfsdk.State {
	if resp.State.Raw.IsNull() {
		return &req.State
	}
	return &resp.State
}
