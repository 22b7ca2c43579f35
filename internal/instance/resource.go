// Package instance implements the reseller_instance resource (an hourly-billed server), the
// reseller_instances data source and the reseller_console ephemeral resource.
package instance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// TypeName is the type name of the resource.
const TypeName = "reseller_instance"

// Default timeouts. A build takes minutes at most; the order window of the API (after which an
// order times out on its own) is ten minutes by default.
const (
	defaultCreateTimeout = 20 * time.Minute
	defaultUpdateTimeout = 20 * time.Minute
	defaultDeleteTimeout = 10 * time.Minute
)

var (
	_ resource.ResourceWithConfigure   = (*Resource)(nil)
	_ resource.ResourceWithImportState = (*Resource)(nil)
	_ resource.ResourceWithModifyPlan  = (*Resource)(nil)
)

// Resource is reseller_instance.
type Resource struct {
	tfutil.ResourceBase
}

// NewResource returns reseller_instance.
func NewResource() resource.Resource { return &Resource{} }

// Metadata sets the type name.
func (r *Resource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = TypeName
}

// Schema describes reseller_instance.
func (r *Resource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = Schema(ctx)
}

// Create orders the server and waits until it is ready (see finishCreate).
func (r *Resource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	c := r.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var plan Model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
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
	resp.Diagnostics.Append(saveSnapshot(ctx, &resp.State, plan, nil)...)
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

// finishCreate waits for the order of m to be deployed, for the credentials and (with
// wait_for_apps) for the apps, applies what a create cannot send (name, note, renew, power) and
// saves the finished state. Create runs it, and so does the Update that resumes an interrupted
// create. A wait cut short keeps the order in the state with a warning (see pending.go); a
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
		diags.Append(saveSnapshot(ctx, state, *m, last)...)
	}
	id := m.ID.ValueInt64()
	in, err := waitForInstance(ctx, c, id, "to deliver its credentials", (*client.Instance).Settled)
	if in != nil {
		last = in
	}
	changed := false
	if err == nil {
		changed, err = r.configureNew(ctx, c, *m, in)
	}
	if err == nil && m.WaitForApps.ValueBool() {
		configured, d := m.appIDs(ctx)
		diags.Append(d...)
		if expect := max(expectApps, len(configured)); expect > 0 {
			err = waitForApps(ctx, c, id, expect)
			changed = true
		}
	}
	if err == nil {
		if changed {
			in = nil // read it again
		}
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
// name, note and renew (PATCH) and power "off". It reports whether it changed anything.
func (r *Resource) configureNew(ctx context.Context, c *client.Client, m Model, in *client.Instance) (bool, error) {
	id := m.ID.ValueInt64()
	patch, changed := m.patchRequest(m.afterCreate())
	if changed {
		if _, err := c.UpdateInstance(ctx, id, patch); err != nil {
			return true, fmt.Errorf("setting name, note or renew: %w", err)
		}
	}
	if want := m.powerWanted(); in.StatusValue() != want {
		return true, setPower(ctx, c, id, want, in)
	}
	return changed, nil
}

// complete fills what the plan m left unknown from the finished instance (in, or read again
// when nil): the computed attributes, the features (those the OS forces, when not configured),
// apps and app inputs.
func (r *Resource) complete(ctx context.Context, c *client.Client, m *Model, in *client.Instance) error {
	if in == nil {
		var err error
		if in, err = c.GetInstance(ctx, m.ID.ValueInt64(), false); err != nil {
			return fmt.Errorf("reading the instance: %w", err)
		}
	}
	fresh := *m
	if diags := fresh.setInstance(ctx, in); diags.HasError() {
		return fmt.Errorf("converting the instance: %v", diags)
	}
	if m.Features.IsUnknown() {
		// Not configured: the features the OS forces, which is all a new server has then.
		forced := in.ActiveFeatures
		if forced == nil {
			var err error
			if forced, err = forcedFeaturesOf(ctx, c, in); err != nil {
				return err
			}
		}
		if diags := fresh.setFeatures(ctx, forced); diags.HasError() {
			return fmt.Errorf("converting the features: %v", diags)
		}
	}
	m.fillUnknownsFrom(fresh)
	m.fillEmptyArguments()
	m.nullUnknowns()
	return nil
}

// forcedFeaturesOf returns the features the plan forces for the instance's OS, from the
// catalogue; used when the API does not report an instance's active_features.
func forcedFeaturesOf(ctx context.Context, c *client.Client, in *client.Instance) ([]string, error) {
	p, err := c.GetPlan(ctx, in.ServerProductID)
	if err != nil {
		return nil, fmt.Errorf("reading plan %d for its forced features: %w", in.ServerProductID, err)
	}
	osType := ""
	if in.Template != nil {
		osType = in.Template.OSType
	}
	if osType == "" && in.TemplateID != nil {
		for _, t := range p.Templates {
			if t.ID == *in.TemplateID {
				osType = t.OSType
			}
		}
	}
	return forcedFeatures(p, osType), nil
}

// createNotFinished saves what is known after a failed or cut-short create (last is the latest
// reading of the instance, or nil). A wait cut short by the create timeout or an interrupt is a
// warning: the state keeps the order, and the next apply resumes waiting for it. Anything else
// is an error.
func (r *Resource) createNotFinished(ctx context.Context, state *tfsdk.State, m Model, last *client.Instance, err error, diags *diag.Diagnostics) {
	diags.Append(saveSnapshot(ctx, state, m, last)...)
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

// saveSnapshot writes the plan m to state with its unknown values filled from last (the latest
// reading of the instance, or nil) and otherwise null; the status is "pending" until known.
func saveSnapshot(ctx context.Context, state *tfsdk.State, m Model, last *client.Instance) diag.Diagnostics {
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

// Read refreshes the state. An instance that is gone (404, canceled or expired) is removed, so
// the next plan creates it again. An unfinished create is refreshed from its order.
func (r *Resource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	c := r.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var state Model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if state.ID.IsNull() {
		r.readOrder(ctx, c, &state, resp)
		return
	}
	id := state.ID.ValueInt64()
	in, err := c.GetInstance(ctx, id, false)
	switch {
	case tfutil.IsNotFound(err):
		tflog.Warn(ctx, "instance not found; removing it from the state", map[string]any{"instance_id": id})
		resp.State.RemoveResource(ctx)
		return
	case err != nil:
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to read instance %d", id), err)
		return
	case in.Gone():
		tflog.Warn(ctx, "instance canceled or expired; removing it from the state",
			map[string]any{"instance_id": id, "status": in.StatusValue()})
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(state.setInstance(ctx, in)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
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

// Delete cancels the instance and waits until the API reports it canceled. An unfinished create
// first waits for its order, so a server still being built is not left behind.
func (r *Resource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	c := r.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var state Model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	timeout, diags := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	if state.ID.IsNull() {
		id, ok := r.orderedInstance(ctx, c, state.OrderID, &resp.Diagnostics)
		if !ok {
			return
		}
		state.ID = types.Int64Value(id)
	}
	id := state.ID.ValueInt64()
	if _, err := c.CancelInstance(ctx, id); err != nil {
		if tfutil.IsNotFound(err) {
			return
		}
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to cancel instance %d", id), err)
		return
	}
	err := tfutil.Poll(ctx, tfutil.PollOptions{What: fmt.Sprintf("instance %d to be canceled", id)},
		func(ctx context.Context) (bool, string, error) {
			in, err := c.GetInstance(ctx, id, false)
			if tfutil.IsNotFound(err) {
				return true, "gone", nil
			}
			if err != nil {
				return false, "", err
			}
			return in.Gone(), in.StatusValue(), nil
		})
	if err != nil {
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to confirm that instance %d is canceled", id), err)
	}
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

// ImportState takes the numeric instance id; Read fills in the rest. Arguments the API cannot
// read back (features, apps, app_inputs, triggers) stay null and are taken from the
// configuration by the next apply without replacing the server.
func (r *Resource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id, ok := tfutil.ParseImportID(req.ID, TypeName, &resp.Diagnostics)
	if !ok {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}
