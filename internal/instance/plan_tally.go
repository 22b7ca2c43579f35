package instance

// The run-wide checks at plan time: every create of the run is tallied by the provider process
// (planbudget.Run) against the account's server_limit and available balance.

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/reseller/terraform-provider-reseller/internal/planbudget"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// privateReplacesKey marks the plan of an existing server with its id. When the plan replaces
// the server, Terraform plans the replacement with the marked private data as its prior private
// data, so the create knows it replaces that server (the protocol names no resource address).
//
// Terraform 1.16 does not change what the provider must do here. Its "planned private data kept
// from plan to apply" (plugin protocol 6.11: PlanResourceChange.Request.planned_private and the
// client capability store_planned_private) hands the plan's private data to the re-plan that
// precedes each apply; the plan-time path used here (the replacement's create planned with the
// first plan's private data as its prior private data) is the same code in 1.15.9 and
// 1.16.0-rc2. terraform-plugin-go v0.31.0 (the newest the module proxy serves, under
// terraform-plugin-framework v1.19.0) does not decode field 9, so the provider cannot see it
// anyway; nor does it need to: the apply's re-plan of a destroy-then-create runs after the old
// server is deleted, so the tally, counted from the live account, has the room.
// TestAccInstance_planChecksReplacementAtLimit runs on every CLI of the matrix and
// TestAccInstance_planChecksReplacementAtLimit_terraform116 holds the case on 1.16.
const privateReplacesKey = "plan_replaces"

type replacesMarker struct {
	InstanceID int64 `json:"instance_id"`
}

// markReplaceable records the existing server's id in the planned private data.
func markReplaceable(ctx context.Context, resp *resource.ModifyPlanResponse, state Model) {
	if resp.Private == nil || !tfutil.IsSet(state.ID) {
		return
	}
	raw, err := json.Marshal(replacesMarker{InstanceID: state.ID.ValueInt64()})
	if err == nil {
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateReplacesKey, raw)...)
	}
}

// replacedID returns the id of the server a create replaces, or 0 for a new server.
func replacedID(ctx context.Context, req resource.ModifyPlanRequest) int64 {
	if req.Private == nil {
		return 0
	}
	raw, diags := req.Private.GetKey(ctx, privateReplacesKey)
	var m replacesMarker
	if diags.HasError() || len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return 0
	}
	return m.InstanceID
}

// tallyCreate adds the planned create to the run's tally, which warns (or errs) when the run
// passes the account's server_limit or available balance with it.
func (r *Resource) tallyCreate(ctx context.Context, req resource.ModifyPlanRequest, plan Model, resp *resource.ModifyPlanResponse) {
	if r.checks == nil {
		return
	}
	r.checks.Add(ctx, planbudget.Create{
		Charge:      plan.Price.ValueFloat64(),
		ChargeKnown: tfutil.IsSet(plan.Price),
		Replaces:    replacedID(ctx, req),
	}, &resp.Diagnostics)
}
