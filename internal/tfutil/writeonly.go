package tfutil

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// NullWriteOnly sets every write-only attribute of state to null, wherever the schema nests it.
//
// Terraform refuses a new state that holds a write-only value ("Provider produced invalid
// object"): Terraform throws that state away whole, so a server saved with an error is lost from
// the state while it runs and bills, and OpenTofu stores the secret and then fails the next
// apply. The framework nulls write-only attributes itself only after a Create or Update that
// ended without an error, while a state saved together with an error keeps whatever the model
// held (the plan, which carries the write-only values read from the configuration). So Create
// and Update of every resource with write-only attributes defer this, and no path that returns
// early can forget a field.
func NullWriteOnly(ctx context.Context, state *tfsdk.State, diags *diag.Diagnostics) {
	if state == nil || state.Schema == nil || state.Raw.IsNull() || !state.Raw.IsKnown() {
		return
	}
	raw, err := tftypes.Transform(state.Raw, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if len(p.Steps()) == 0 || v.IsNull() {
			return v, nil
		}
		// A path the schema has no attribute for is a block, or an element inside a map, list
		// or dynamic attribute: nothing there can be write-only by itself.
		a, err := state.Schema.AttributeAtTerraformPath(ctx, p)
		if writeOnly := err == nil && a.IsWriteOnly(); !writeOnly {
			return v, nil
		}
		return tftypes.NewValue(v.Type(), nil), nil
	})
	if err != nil {
		diags.AddError("Unable to clear write-only values from the state",
			"Saving the state without its write-only values failed; this is a bug in the provider, please report it: "+err.Error())
		return
	}
	state.Raw = raw
}
