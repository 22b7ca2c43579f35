package instance

// The create of reseller_instance: Create places the order (placeOrder) and waits for the server
// (finishCreate). A create cut short is adopted later from the order it leaves in the state; that
// adoption lives in resume.go, and it runs finishCreate again.

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

// Create orders the server and waits until it is ready (see finishCreate).
func (r *Resource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer setIdentity(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	defer tfutil.NullWriteOnly(ctx, &resp.State, &resp.Diagnostics) // on error paths too: the framework does it only on success
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
	body, diags := plan.createRequest(ctx)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := tfutil.WithTimeout(ctx, plan.Timeouts.Create, defaultCreateTimeout, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}

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
	r.finishCreate(ctx, c, &plan, len(order.Apps), false, &resp.State, resp.Private, &resp.Diagnostics)
}

// placeOrder sends POST /instances with one Idempotency-Key, generated here and sent on every
// attempt, so a repeated request returns the first order instead of building a second server.
// While the account has api_order_limit orders provisioning (409 order_limit_reached, common
// when a configuration creates more servers at once than the limit), it waits for a free slot
// within the create timeout: a refused order is not recorded, so the same key is used again.
// Likewise it waits while the snapshot to build from is being created or restored (409
// snapshot_unavailable), which happens when a restore of it runs in the same apply.
//
// A request cut short by the apply's interrupt or timeout may have been processed all the same:
// the server exists but its order id never reached the provider, so nothing would keep it in the
// state. Such a request is repeated once with the same key (replayOrder), which answers the first
// order and creates nothing; the caller keeps it in the state as it keeps any interrupted create.
func placeOrder(ctx context.Context, c *client.Client, body client.CreateInstanceRequest) (*client.CreatedOrder, error) {
	key := client.NewIdempotencyKey()
	var order *client.CreatedOrder
	cutShort := false
	err := tfutil.Poll(ctx, tfutil.PollOptions{What: "the order to be accepted"}, func(ctx context.Context) (bool, string, error) {
		var err error
		order, err = c.CreateInstance(ctx, body, key)
		cutShort = requestCutShort(ctx, err)
		if tfutil.HasCode(err, client.CodeOrderLimitReached) {
			return false, "order limit reached (api_order_limit): waiting for a free slot", nil
		}
		if status, busy := snapshotBusy(ctx, c, body.SnapshotID, err); busy {
			return false, "snapshot " + status, nil
		}
		return err == nil, "accepted", err
	})
	if err != nil && cutShort {
		if replayed, replayErr := replayOrder(ctx, c, body, key); replayErr == nil {
			return replayed, nil
		}
	}
	return order, err
}

// requestCutShort reports whether err is a request that ctx's end cut short before the server
// answered, so whether the server processed it is unknown. An answer of the API's is known.
func requestCutShort(ctx context.Context, err error) bool {
	_, answered := client.AsAPIError(err)
	return err != nil && ctx.Err() != nil && !answered
}

// orderReplayTimeout bounds replayOrder: Terraform waits for the provider after an interrupt, but
// a user who pressed Ctrl-C should not wait long.
const orderReplayTimeout = 15 * time.Second

// replayOrder repeats an order request that the interrupt or the timeout of ctx cut short, with
// the same Idempotency-Key, on a context free of that cancellation: a request the server had
// processed answers its order (a replay), so the order reaches the state instead of leaving an
// orphaned server. A request that never reached the server places the order now, which the state
// then holds in the same way.
func replayOrder(ctx context.Context, c *client.Client, body client.CreateInstanceRequest, key string) (*client.CreatedOrder, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), orderReplayTimeout)
	defer cancel()
	order, err := c.CreateInstance(ctx, body, key)
	if err != nil {
		tflog.Warn(ctx, "repeating the interrupted order request failed", map[string]any{"error": err.Error()})
		return nil, err
	}
	tflog.Info(ctx, "repeated the interrupted order request", map[string]any{"order_id": order.OrderID, "replayed": order.Replayed})
	return order, nil
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
// create. A wait cut short keeps the order in the state with a warning (the pending marker,
// resume.go); a timed-out order removes the resource with an error quoting the support
// reference; any other failure is an error, after which Terraform taints the resource (in a
// Create; resumed is true in the Update that resumes one, where an error taints nothing).
//
// m is the plan: its known values are what Terraform expects in the state, so only its unknown
// values are filled from the API, in every state saved here.
func (r *Resource) finishCreate(ctx context.Context, c *client.Client, m *Model, expectApps int, resumed bool,
	state *tfsdk.State, private privateWriter, diags *diag.Diagnostics,
) {
	var last *client.Instance
	if m.ID.IsNull() || m.ID.IsUnknown() {
		built, err := tfutil.WaitOrder(ctx, c, m.OrderID.ValueInt64())
		var timedOut *tfutil.OrderTimedOutError
		switch {
		case errors.As(err, &timedOut):
			state.RemoveResource(ctx)
			left := "Nothing is left in the state; the next apply places a new order."
			if resumed {
				left = "The next apply removes it from the state and places a new order."
			}
			diags.AddError("Order timed out", fmt.Sprintf("%s.\n\nQuote the support reference %s if it "+
				"happens again. %s", timedOut, timedOut.Reference, left))
			return
		case err != nil:
			r.createNotFinished(ctx, state, private, *m, nil, err, resumed, diags)
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
		r.createNotFinished(ctx, state, private, *m, last, err, resumed, diags)
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
// is an error: Terraform taints the server a Create saved with one. A resumed create (an Update,
// resumed true) cannot taint, so an app install that failed there records the failed-create
// marker in private, which makes the next plan replace the server all the same.
func (r *Resource) createNotFinished(ctx context.Context, state *tfsdk.State, private privateWriter, m Model,
	last *client.Instance, err error, resumed bool, diags *diag.Diagnostics,
) {
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
		diags.AddError("App install failed", appErr.Error()+"\n\n"+keptAfterFailure(resumed))
		if resumed {
			diags.Append(setFailed(ctx, private, appErr.Error())...)
		}
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

// keptAfterFailure says what a failed create leaves behind and what the next apply does: a
// Create's error taints the server, so it is replaced; an Update's does not, but the failure is
// recorded (the failed-create marker), so the next plan replaces it too.
func keptAfterFailure(resumed bool) string {
	if !resumed {
		return "The server exists and is kept in the state; Terraform marks it tainted, so the next apply " +
			"replaces it (cancels it and orders a new one)."
	}
	return "The server exists and is kept in the state, not tainted (this apply resumed an earlier, " +
		"interrupted create, and an update cannot taint); the failure is recorded, so the next apply " +
		"replaces it (cancels it and orders a new one), with a warning in its plan."
}

func valueOrNone(v types.Int64) string {
	if v.IsNull() || v.IsUnknown() {
		return "not known yet"
	}
	return fmt.Sprint(v.ValueInt64())
}
