package instance

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// ModifyPlan decides at plan time what the attribute plan modifiers cannot:
//
//   - a new plan_id is a resize (in place) only when the API lists it among the instance's
//     resize options, otherwise the server is replaced, and the plan shows which;
//   - a new template_id rebuilds in place, with a warning that the disk is erased;
//   - an unfinished create (see create.go) becomes an in-place update that resumes it, and one
//     whose resume failed for good (an app install) is replaced (see resume.go);
//   - on any update, the computed values the update can change are unknown, so the applied
//     values never contradict the plan;
//   - a new server built from a snapshot is checked against its plan (see planClone).
func (r *Resource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}
	if req.State.Raw.IsNull() {
		r.planCreate(ctx, req, resp)
		return
	}
	var plan, state, config Model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	pending, diags := getPending(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	failed, diags := getFailed(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	markReplaceable(ctx, resp, state)
	switch {
	case failed != nil:
		planFailedReplace(&plan, state, *failed, resp)
	case pending != nil:
		r.planResume(&plan, state, config, resp)
	case req.Plan.Raw.Equal(req.State.Raw):
		return // nothing changes
	default:
		r.planUpdate(ctx, &plan, state, config, resp)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	plan.planPassword(&state)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// planCreate plans a new server: a build from a snapshot is checked against its plan, the
// price is known where the order can be priced (plan_price.go), the create joins the run's
// tally (plan_tally.go), and the password is planned as store_password asks.
func (r *Resource) planCreate(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var plan, config Model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if tfutil.IsSet(plan.SnapshotID) {
		snap, p := r.planClone(ctx, plan, resp)
		features, known := configuredFeatures(ctx, config)
		if snap != nil && p != nil && known {
			if price, ok := clonePrice(p, snap, features, !config.Features.IsNull()); ok {
				plan.Price = types.Float64Value(price)
			}
		}
	} else {
		r.planNewPrice(ctx, &plan, config)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	r.tallyCreate(ctx, req, plan, resp)
	plan.planPassword(nil)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// planUpdate plans an in-place update of an existing server.
func (r *Resource) planUpdate(ctx context.Context, plan *Model, state, config Model, resp *resource.ModifyPlanResponse) {
	plan.markVolatileUnknown()
	if !plan.PlanID.Equal(state.PlanID) {
		r.planResize(ctx, plan, state, resp)
	}
	if tfutil.IsSet(plan.TemplateID) && !plan.TemplateID.Equal(state.TemplateID) {
		resp.Diagnostics.AddAttributeWarning(path.Root("template_id"), "Rebuild erases the disk",
			fmt.Sprintf("Changing template_id from %s to %d rebuilds instance %d in place: its disk is erased "+
				"and the new OS is installed. The IP addresses are kept; a new password is set and the apps are "+
				"installed again.", valueOrNone(state.TemplateID), plan.TemplateID.ValueInt64(), state.ID.ValueInt64()))
		plan.Password = types.StringUnknown()
		plan.Username = types.StringUnknown()
		plan.Port = types.Int64Unknown()
		plan.ActiveFeatures = types.SetUnknown(types.StringType)
		if config.Features.IsNull() {
			plan.Features = types.SetUnknown(types.StringType) // the new OS may force others
		}
	}
	if triggerFired(plan.PasswordResetTrigger, state.PasswordResetTrigger) {
		plan.Password = types.StringUnknown()
	}
	if triggerFired(plan.IPChangeTrigger, state.IPChangeTrigger) {
		plan.IPv4 = types.StringUnknown()
	}
}

// planResize decides between an in-place resize and a replacement by asking the API for the
// instance's resize options. When that cannot be known now (unknown plan_id, or no client yet),
// the plan stays an update and the apply checks again.
func (r *Resource) planResize(ctx context.Context, plan *Model, state Model, resp *resource.ModifyPlanResponse) {
	plan.Actions = types.ListUnknown(types.StringType)
	plan.ActiveFeatures = types.SetUnknown(types.StringType) // a resize drops what the new plan lacks
	plan.Price = types.Float64Unknown()                      // the new plan's, when known below
	if plan.PlanID.IsUnknown() || state.ID.IsNull() {
		return
	}
	// No client means the provider's own settings are unknown until apply: plan the update,
	// which checks the resize options again, rather than fail the plan.
	var unconfigured diag.Diagnostics
	c := r.Client(&unconfigured)
	if c == nil {
		return
	}
	id, target := state.ID.ValueInt64(), plan.PlanID.ValueInt64()
	opts, err := c.GetResizeOptions(ctx, id)
	if err != nil {
		tfutil.AddAttributeAPIError(&resp.Diagnostics, path.Root("plan_id"),
			fmt.Sprintf("Unable to read the resize options of instance %d", id), err)
		return
	}
	if !opts.Has(target) {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("plan_id"))
		return
	}
	if price, ok := resizePrice(opts, target); ok {
		plan.Price = types.Float64Value(price)
	}
}

// markVolatileUnknown marks unknown the values that change on their own (status, billing,
// locks, traffic) and so may differ once an update has run.
func (m *Model) markVolatileUnknown() {
	m.Status = types.StringUnknown()
	m.RenewalDue = types.StringUnknown()
	m.Locked = types.BoolUnknown()
	m.LockReason = types.StringUnknown()
	m.Traffic = types.ObjectUnknown(trafficAttrTypes)
}

// markOutputsUnknown marks unknown every value a new server reports.
func (m *Model) markOutputsUnknown() {
	for _, v := range []*types.String{&m.IPv4, &m.IPv6, &m.Username, &m.Password, &m.CreatedAt} {
		*v = types.StringUnknown()
	}
	for _, v := range []*types.Int64{&m.Port, &m.DatacenterID, &m.LocationID} {
		*v = types.Int64Unknown()
	}
	m.IPChangeCost = types.Float64Unknown()
	m.Actions = types.ListUnknown(types.StringType)
	m.ActiveFeatures = types.SetUnknown(types.StringType)
}
