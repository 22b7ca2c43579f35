package instance

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The arguments features, apps and app_inputs only matter when the server is built, and the API
// cannot read them back: a change replaces the server. An imported instance has them null in the
// state (nothing is known about how it was ordered), so a null prior value is not a change to
// act on: the plan then takes the configuration's value (or null) in place, without replacing a
// running server because its import could not recover how it was ordered.

func replaceSetIfKnown() planmodifier.Set   { return replaceIfKnown{} }
func replaceListIfKnown() planmodifier.List { return replaceIfKnown{} }
func replaceMapIfKnown() planmodifier.Map   { return replaceIfKnown{} }

type replaceIfKnown struct{}

func (replaceIfKnown) Description(context.Context) string {
	return "Changing the value replaces the server, except on an imported server whose value is not known yet."
}

func (m replaceIfKnown) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

// decide returns whether to replace and, for an unknown prior value, the value to plan instead of
// unknown (the configuration's, possibly null).
func (replaceIfKnown) decide(stateRaw, planRaw bool, state, plan, config attr.Value) (replace bool, adopt attr.Value) {
	if stateRaw || planRaw {
		return false, nil // create or destroy
	}
	if state.IsNull() {
		if plan.IsUnknown() {
			return false, config
		}
		return false, nil
	}
	return !plan.Equal(state), nil
}

func (m replaceIfKnown) PlanModifySet(_ context.Context, req planmodifier.SetRequest, resp *planmodifier.SetResponse) {
	replace, adopt := m.decide(req.State.Raw.IsNull(), req.Plan.Raw.IsNull(), req.StateValue, req.PlanValue, req.ConfigValue)
	resp.RequiresReplace = replace
	if adopt != nil {
		resp.PlanValue = adopt.(types.Set)
	}
}

func (m replaceIfKnown) PlanModifyList(_ context.Context, req planmodifier.ListRequest, resp *planmodifier.ListResponse) {
	replace, adopt := m.decide(req.State.Raw.IsNull(), req.Plan.Raw.IsNull(), req.StateValue, req.PlanValue, req.ConfigValue)
	resp.RequiresReplace = replace
	if adopt != nil {
		resp.PlanValue = adopt.(types.List)
	}
}

func (m replaceIfKnown) PlanModifyMap(_ context.Context, req planmodifier.MapRequest, resp *planmodifier.MapResponse) {
	replace, adopt := m.decide(req.State.Raw.IsNull(), req.Plan.Raw.IsNull(), req.StateValue, req.PlanValue, req.ConfigValue)
	resp.RequiresReplace = replace
	if adopt != nil {
		resp.PlanValue = adopt.(types.Map)
	}
}
