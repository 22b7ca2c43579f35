package instance

// The create of reseller_instance, all of it: Create places the order and waits for the server
// (finishCreate), and an interrupted create is adopted by the next apply (the pending marker,
// planResume, resumeCreate) or by Read and Delete (readOrder, orderedInstance).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// Create orders the server and waits until it is ready (see finishCreate).
func (r *Resource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer setIdentity(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	c := r.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var plan Model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("app_inputs_wo"), &plan.AppInputsWO)...) // write-only: config only
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(diags...)
	body, diags := plan.createRequest(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	order, err := placeOrder(ctx, c, body)
	if err != nil {
		addOrderError(&resp.Diagnostics, plan, err)
		return
	}
	ctx = tflog.SetField(ctx, "order_id", order.OrderID)
	tflog.Info(ctx, "order accepted", map[string]any{"price": order.Price, "apps": order.Apps, "replayed": order.Replayed})

	// The order exists from here on: every return below leaves it in the state, so an
	// interrupted apply has something to adopt rather than an orphaned server.
	plan.acceptOrder(order)
	resp.Diagnostics.Append(savePartialState(ctx, &resp.State, plan, nil)...)
	resp.Diagnostics.Append(setPending(ctx, resp.Private, order.OrderID)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.finishCreate(ctx, c, &plan, len(order.Apps), &resp.State, resp.Private, &resp.Diagnostics)
}

// placeOrder sends POST /instances with one Idempotency-Key, generated here and sent on every
// attempt, so a repeated request returns the first order instead of building a second server.
// While the account has api_order_limit orders provisioning (409 order_limit_reached, common
// when a configuration creates more servers at once than the limit), it waits for a free slot
// within the create timeout: a refused order is not recorded, so the same key is used again.
// Likewise it waits while the snapshot to build from is being created or restored (409
// snapshot_unavailable), which happens when a restore of it runs in the same apply.
func placeOrder(ctx context.Context, c *client.Client, body client.CreateInstanceRequest) (*client.CreatedOrder, error) {
	key := client.NewIdempotencyKey()
	var order *client.CreatedOrder
	err := tfutil.Poll(ctx, tfutil.PollOptions{What: "the order to be accepted"}, func(ctx context.Context) (bool, string, error) {
		var err error
		order, err = c.CreateInstance(ctx, body, key)
		if tfutil.HasCode(err, client.CodeOrderLimitReached) {
			return false, "order limit reached (api_order_limit): waiting for a free slot", nil
		}
		if status, busy := snapshotBusy(ctx, c, body.SnapshotID, err); busy {
			return false, "snapshot " + status, nil
		}
		return err == nil, "accepted", err
	})
	return order, err
}

// snapshotBusy reports whether err refused an order only because the snapshot to build from
// (snapshotID, nil when none) is creating or restoring right now, which passes by itself, and
// then its status. A snapshot that ended is not busy: that refusal is final.
func snapshotBusy(ctx context.Context, c *client.Client, snapshotID *int64, err error) (string, bool) {
	if snapshotID == nil || !tfutil.HasCode(err, client.CodeSnapshotUnavailable) {
		return "", false
	}
	s, getErr := c.GetSnapshot(ctx, *snapshotID)
	if getErr != nil {
		return "", false
	}
	// Available by now: the create or restore the refusal saw has ended since, so ask again.
	return s.Status, s.Busy() || s.Status == client.SnapshotAvailable
}

// finishCreate waits for the order of m to be deployed, for the credentials and (with
// wait_for_apps) for the apps, applies what a create cannot send (name, note, renew, power) and
// saves the finished state. Create runs it, and so does the Update that resumes an interrupted
// create. A wait cut short keeps the order in the state with a warning (see the pending marker below); a
// timed-out order removes the resource with an error quoting the support reference; any other
// failure is an error, after which Terraform taints the resource.
//
// m is the plan: its known values are what Terraform expects in the state, so only its unknown
// values are filled from the API, in every state saved here.
func (r *Resource) finishCreate(ctx context.Context, c *client.Client, m *Model, expectApps int,
	state *tfsdk.State, private privateWriter, diags *diag.Diagnostics,
) {
	var last *client.Instance
	if m.ID.IsNull() || m.ID.IsUnknown() {
		built, err := waitForOrder(ctx, c, m.OrderID.ValueInt64())
		var timedOut *orderTimedOutError
		switch {
		case errors.As(err, &timedOut):
			state.RemoveResource(ctx)
			diags.AddError("Order timed out", fmt.Sprintf("%s.\n\nQuote the support reference %s if it "+
				"happens again. Nothing is left in the state; the next apply places a new order.", timedOut, timedOut.Reference))
			return
		case err != nil:
			r.createNotFinished(ctx, state, *m, nil, err, diags)
			return
		}
		m.ID = types.Int64Value(built.ID)
		last = built
		tflog.Info(ctx, "order deployed", map[string]any{"instance_id": built.ID})
		diags.Append(savePartialState(ctx, state, *m, last)...)
	}
	id := m.ID.ValueInt64()
	in, err := waitForCredentials(ctx, c, m.OrderID, id)
	if in != nil {
		last = in
	}
	if err == nil {
		in, err = r.configureNew(ctx, c, *m, in)
	}
	if err == nil && m.WaitForApps.ValueBool() {
		configured, d := m.appIDs(ctx)
		diags.Append(d...)
		if expect := max(expectApps, len(configured)); expect > 0 {
			err = waitForApps(ctx, c, id, expect)
			in = nil // read it again
		}
	}
	if err == nil {
		err = r.complete(ctx, c, m, in)
	}
	if err != nil {
		r.createNotFinished(ctx, state, *m, last, err, diags)
		return
	}
	diags.Append(state.Set(ctx, m)...)
	diags.Append(clearPending(ctx, private)...)
}

// configureNew applies to a new server (in, as last read) what POST /instances cannot carry:
// name, note and renew (PATCH) and power "off". It returns the latest reading of the server (the
// PATCH answers with the full detail, so a named server needs no further read), or nil when the
// server changed since and must be read again.
func (r *Resource) configureNew(ctx context.Context, c *client.Client, m Model, in *client.Instance) (*client.Instance, error) {
	id := m.ID.ValueInt64()
	if patch, changed := m.patchRequest(m.afterCreate()); changed {
		patched, err := c.UpdateInstance(ctx, id, patch)
		if err != nil {
			return nil, fmt.Errorf("setting name, note or renew: %w", err)
		}
		in = patched
	}
	if want := m.powerWanted(); in.StatusValue() != want {
		return nil, setPower(ctx, c, id, want, in)
	}
	return in, nil
}

// createNotFinished saves what is known after a failed or cut-short create (last is the latest
// reading of the instance, or nil). A wait cut short by the create timeout or an interrupt is a
// warning: the state keeps the order, and the next apply resumes waiting for it. Anything else
// is an error.
func (r *Resource) createNotFinished(ctx context.Context, state *tfsdk.State, m Model, last *client.Instance, err error, diags *diag.Diagnostics) {
	diags.Append(savePartialState(ctx, state, m, last)...)
	if tfutil.IsWaitError(err) {
		diags.AddWarning("Server not ready yet: the next apply resumes",
			fmt.Sprintf("%s.\n\nOrder %d is kept in the state (instance id: %s). Run terraform apply again to "+
				"resume waiting for the same order: the plan shows an in-place update and no second server is "+
				"ordered. Raise timeouts.create if the datacenter is slow. terraform destroy cancels the server "+
				"once it is built.", err, m.OrderID.ValueInt64(), valueOrNone(m.ID)))
		tflog.Warn(ctx, "create cut short; the order stays in the state for the next apply", map[string]any{"error": err.Error()})
		return
	}
	var appErr *appFailedError
	if errors.As(err, &appErr) {
		diags.AddError("App install failed", appErr.Error()+"\n\nThe server exists and is kept in the state; "+
			"Terraform marks it tainted, so the next apply replaces it.")
		return
	}
	tfutil.AddAPIError(diags, "Unable to finish creating the server", err)
}

// savePartialState writes the plan m to state with its unknown values filled from last (the latest
// reading of the instance, or nil) and otherwise null; the status is "pending" until known.
func savePartialState(ctx context.Context, state *tfsdk.State, m Model, last *client.Instance) diag.Diagnostics {
	var diags diag.Diagnostics
	if last != nil {
		fresh := m
		diags.Append(fresh.setInstance(ctx, last)...)
		m.fillUnknownsFrom(fresh)
	}
	m.nullUnknowns()
	if m.Status.IsNull() {
		m.Status = types.StringValue(statusPending)
	}
	diags.Append(state.Set(ctx, &m)...)
	return diags
}

func valueOrNone(v types.Int64) string {
	if v.IsNull() || v.IsUnknown() {
		return "not known yet"
	}
	return fmt.Sprint(v.ValueInt64())
}

// orderTimedOutError is an order the datacenter did not build within its window: nothing was
// created or charged, and Reference is what support asks for.
type orderTimedOutError struct {
	OrderID   int64
	Reference string
}

func (e *orderTimedOutError) Error() string {
	return fmt.Sprintf("order %d timed out: the datacenter did not build the server in time; nothing was "+
		"created or charged (support reference %s)", e.OrderID, e.Reference)
}

// waitForOrder polls the order (through the shared GET /orders list, so every create waiting at
// once shares one poll) until it is deployed and returns the instance it built. A timed_out order is an *orderTimedOutError; a cut-short wait a *tfutil.WaitError.
func waitForOrder(ctx context.Context, c *client.Client, orderID int64) (*client.Instance, error) {
	var built *client.Instance
	err := tfutil.Poll(ctx, tfutil.PollOptions{What: fmt.Sprintf("order %d to be deployed", orderID)},
		func(ctx context.Context) (bool, string, error) {
			o, err := c.OrderShared(ctx, orderID)
			if err != nil {
				return false, "", fmt.Errorf("reading order %d: %w", orderID, err)
			}
			switch o.Status {
			case client.OrderDeployed:
				if o.Server == nil {
					return false, o.Status, fmt.Errorf("order %d is deployed but names no server", orderID)
				}
				built = o.Server
				return true, o.Status, nil
			case client.OrderTimedOut:
				ref := ""
				if o.Reference != nil {
					ref = *o.Reference
				}
				return false, o.Status, &orderTimedOutError{OrderID: orderID, Reference: ref}
			}
			return false, o.Status, nil
		})
	return built, err
}

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

// getPending returns the marker, or nil when the create finished (or the resource was imported).
func getPending(ctx context.Context, p privateReader) (*pendingCreate, diag.Diagnostics) {
	if p == nil {
		return nil, nil
	}
	raw, diags := p.GetKey(ctx, privatePendingKey)
	if diags.HasError() || len(raw) == 0 {
		return nil, diags
	}
	var pc pendingCreate
	if err := json.Unmarshal(raw, &pc); err != nil || pc.OrderID == 0 {
		diags.AddError("Corrupt private state",
			fmt.Sprintf("The private state of this instance holds an unreadable %q marker (%s). This is a bug "+
				"in the provider; please report it.", privatePendingKey, raw))
		return nil, diags
	}
	return &pc, diags
}

// setPending records that the create of orderID is unfinished.
func setPending(ctx context.Context, p privateWriter, orderID int64) diag.Diagnostics {
	raw, err := json.Marshal(pendingCreate{OrderID: orderID})
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Unable to record the order in the private state", err.Error())
		return diags
	}
	return p.SetKey(ctx, privatePendingKey, raw)
}

// clearPending records that the create finished.
func clearPending(ctx context.Context, p privateWriter) diag.Diagnostics {
	return p.SetKey(ctx, privatePendingKey, nil)
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

// resumeCreate finishes a create that an earlier apply left unfinished, within the create
// timeout: the same order is waited for, nothing new is ordered.
func (r *Resource) resumeCreate(ctx context.Context, c *client.Client, plan *Model, resp *resource.UpdateResponse) {
	timeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ctx = tflog.SetField(ctx, "order_id", plan.OrderID.ValueInt64())
	tflog.Info(ctx, "resuming an unfinished create")
	r.finishCreate(ctx, c, plan, 0, &resp.State, resp.Private, &resp.Diagnostics)
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
	built, err := waitForOrder(ctx, c, orderID.ValueInt64())
	var timedOut *orderTimedOutError
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
