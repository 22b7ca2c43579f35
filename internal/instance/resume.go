package instance

// The adoption of an interrupted create. Create (create.go) keeps the order in the state as soon
// as the API accepts it; when its timeout or an interrupt cuts the wait short, the next
// operation picks the same order up again: ModifyPlan plans an in-place update (planResume),
// that Update resumes waiting (resumeCreate), Read refreshes from the order while the server id
// is unknown (readOrder) and Delete waits for the order to cancel what it built
// (orderedInstance).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// A create that its timeout (or an interrupt) cut short is not an error: failing it would make
// Terraform taint the resource, and the next apply would then destroy it and order a second
// server. Instead the state keeps the order id, and this private marker records that the create
// is unfinished. ModifyPlan turns the marker into a planned in-place update, and that Update
// resumes waiting for the same order ("adoption").

// privatePendingKey is the private state key of the marker.
const privatePendingKey = "pending_create"

// pendingCreate is the marker's JSON value.
type pendingCreate struct {
	OrderID int64 `json:"order_id"`
}

// privateReader and privateWriter are the parts of the framework's private state data the
// marker needs (the framework's type lives in an internal package).
type privateReader interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateWriter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// getMarker reads the private marker under key, or nil when there is none. A value that does
// not decode, or that valid refuses, is an error: the provider wrote it, so it is a bug.
func getMarker[T any](ctx context.Context, p privateReader, key string, valid func(T) bool) (*T, diag.Diagnostics) {
	if p == nil {
		return nil, nil
	}
	raw, diags := p.GetKey(ctx, key)
	if diags.HasError() || len(raw) == 0 {
		return nil, diags
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil || !valid(v) {
		diags.AddError("Corrupt private state",
			fmt.Sprintf("The private state of this instance holds an unreadable %q marker (%s). This is a bug "+
				"in the provider; please report it.", key, raw))
		return nil, diags
	}
	return &v, diags
}

// setMarker writes v as the private marker under key.
func setMarker(ctx context.Context, p privateWriter, key string, v any) diag.Diagnostics {
	raw, err := json.Marshal(v)
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Unable to record "+key+" in the private state", err.Error())
		return diags
	}
	return p.SetKey(ctx, key, raw)
}

// getPending returns the marker, or nil when the create finished (or the resource was imported).
func getPending(ctx context.Context, p privateReader) (*pendingCreate, diag.Diagnostics) {
	return getMarker(ctx, p, privatePendingKey, func(pc pendingCreate) bool { return pc.OrderID != 0 })
}

// setPending records that the create of orderID is unfinished.
func setPending(ctx context.Context, p privateWriter, orderID int64) diag.Diagnostics {
	return setMarker(ctx, p, privatePendingKey, pendingCreate{OrderID: orderID})
}

// clearPending records that the create finished: neither marker is left.
func clearPending(ctx context.Context, p privateWriter) diag.Diagnostics {
	diags := p.SetKey(ctx, privatePendingKey, nil)
	diags.Append(p.SetKey(ctx, privateFailedKey, nil)...)
	return diags
}

// A resumed create (an Update) that fails for good, with an app whose install failed, cannot
// taint the server: only a failed Create does. Resuming it again would fail the same way, so the
// Update records this second marker instead, and ModifyPlan turns it into a planned replacement
// (planFailedReplace), as Terraform would for a tainted server.

// privateFailedKey is the private state key of the failed-create marker.
const privateFailedKey = "failed_create"

// failedCreate is that marker's JSON value: why the create failed, for the plan's warning.
type failedCreate struct {
	Reason string `json:"reason"`
}

// getFailed returns the failed-create marker, or nil when there is none.
func getFailed(ctx context.Context, p privateReader) (*failedCreate, diag.Diagnostics) {
	return getMarker(ctx, p, privateFailedKey, func(failedCreate) bool { return true })
}

// setFailed records that the resumed create failed for good (reason says why): the create is no
// longer pending, and the next plan replaces the server.
func setFailed(ctx context.Context, p privateWriter, reason string) diag.Diagnostics {
	diags := p.SetKey(ctx, privatePendingKey, nil)
	diags.Append(setMarker(ctx, p, privateFailedKey, failedCreate{Reason: reason})...)
	return diags
}

// planResume plans the update that finishes an unfinished create: everything the API has not
// told yet is unknown. A plan_id or template_id change cannot be applied to a server that
// does not exist yet, so it replaces it.
func (r *Resource) planResume(plan *Model, state, config Model, resp *resource.ModifyPlanResponse) {
	resp.Diagnostics.AddWarning("Unfinished create will be resumed",
		fmt.Sprintf("The create of this server was cut short by its timeout or an interrupt while order %d was "+
			"still being processed. This apply resumes waiting for the same order; nothing new is ordered.",
			state.OrderID.ValueInt64()))
	plan.markVolatileUnknown()
	plan.markOutputsUnknown()
	if state.ID.IsNull() {
		plan.ID = types.Int64Unknown()
	}
	if config.Features.IsNull() {
		plan.Features = types.SetUnknown(types.StringType)
	}
	if config.Apps.IsNull() {
		plan.Apps = types.ListUnknown(types.StringType)
	}
	if config.AppInputs.IsNull() {
		plan.AppInputs = types.MapUnknown(appInputsType)
	}
	for _, p := range []struct {
		name          string
		planned, have types.Int64
	}{{"plan_id", plan.PlanID, state.PlanID}, {"template_id", plan.TemplateID, state.TemplateID}} {
		if tfutil.IsSet(p.have) && !p.planned.Equal(p.have) {
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root(p.name))
		}
	}
}

// planFailedReplace plans the replacement of a server whose resumed create failed for good (the
// failed-create marker), with a warning saying why. An Update cannot taint, so the plan asks for
// the replacement itself: Terraform honours RequiresReplace only on a value that changes or is
// unknown, and status is unknown in this plan.
func planFailedReplace(plan *Model, state Model, failed failedCreate, resp *resource.ModifyPlanResponse) {
	resp.Diagnostics.AddWarning("Failed create will be replaced",
		fmt.Sprintf("An earlier apply resumed the interrupted create of server %s (order %d), and it failed: %s\n\n"+
			"An update cannot taint the server, so this plan replaces it, as Terraform replaces a tainted one: "+
			"the server is cancelled and a new one is ordered.",
			valueOrNone(state.ID), state.OrderID.ValueInt64(), failed.Reason))
	plan.markVolatileUnknown()
	resp.RequiresReplace = append(resp.RequiresReplace, path.Root("status"))
}

// resumeCreate finishes a create that an earlier apply left unfinished, within the create
// timeout: the same order is waited for, nothing new is ordered.
func (r *Resource) resumeCreate(ctx context.Context, c *client.Client, plan *Model, resp *resource.UpdateResponse) {
	ctx, cancel := tfutil.WithTimeout(ctx, plan.Timeouts.Create, defaultCreateTimeout, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	ctx = tflog.SetField(ctx, "order_id", plan.OrderID.ValueInt64())
	tflog.Info(ctx, "resuming an unfinished create")
	r.finishCreate(ctx, c, plan, 0, true, &resp.State, resp.Private, &resp.Diagnostics)
	if resp.State.Raw.IsNull() {
		// The order timed out. An update cannot remove the resource, so the state keeps it
		// (with the error already reported) and the next refresh removes it: Read sees the
		// timed-out order.
		plan.Status = types.StringValue(client.OrderTimedOut)
		resp.Diagnostics.Append(savePartialState(ctx, &resp.State, *plan, nil)...)
	}
}

// readOrder refreshes an unfinished create whose instance id is not known yet from its order.
func (r *Resource) readOrder(ctx context.Context, c *client.Client, state *Model, resp *resource.ReadResponse) {
	if state.OrderID.IsNull() {
		resp.State.RemoveResource(ctx)
		return
	}
	orderID := state.OrderID.ValueInt64()
	o, err := c.GetOrder(ctx, orderID)
	switch {
	case tfutil.IsNotFound(err):
		resp.Diagnostics.AddWarning("Order no longer readable",
			fmt.Sprintf("Order %d of an unfinished create is no longer readable (orders are kept 24 hours), so it "+
				"is removed from the state. If it built a server, find it with the reseller_instances data source "+
				"and import it (terraform import <address> <id>).", orderID))
		resp.State.RemoveResource(ctx)
		return
	case err != nil:
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to read order %d", orderID), err)
		return
	}
	switch o.Status {
	case client.OrderTimedOut:
		ref := ""
		if o.Reference != nil {
			ref = *o.Reference
		}
		resp.Diagnostics.AddWarning("Order timed out",
			fmt.Sprintf("Order %d timed out: nothing was created or charged (support reference %s). It is removed "+
				"from the state, so the next apply places a new order.", orderID, ref))
		resp.State.RemoveResource(ctx)
		return
	case client.OrderDeployed:
		if o.Server != nil {
			resp.Diagnostics.Append(state.setInstance(ctx, o.Server)...)
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

// orderedInstance waits for the order of an unfinished create and returns the instance it built;
// false when there is nothing to delete (the order timed out or is gone) or on error.
func (r *Resource) orderedInstance(ctx context.Context, c *client.Client, orderID types.Int64, diags *diag.Diagnostics) (int64, bool) {
	if orderID.IsNull() {
		return 0, false
	}
	built, err := tfutil.WaitOrder(ctx, c, orderID.ValueInt64())
	var timedOut *tfutil.OrderTimedOutError
	switch {
	case errors.As(err, &timedOut), tfutil.IsNotFound(err):
		tflog.Info(ctx, "the order built nothing; nothing to delete", map[string]any{"order_id": orderID.ValueInt64()})
		return 0, false
	case err != nil:
		tfutil.AddAPIError(diags, fmt.Sprintf("Unable to wait for order %d before deleting its server", orderID.ValueInt64()), err)
		return 0, false
	}
	return built.ID, true
}
