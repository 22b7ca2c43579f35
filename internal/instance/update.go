package instance

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// Update changes the server in place, one step per kind of change, in an order that keeps each
// step meaningful: resize, rebuild (which resets the password and the apps), PATCH (name, note,
// renew), power, then the two triggers. An unfinished create is resumed first. When a step
// fails, the state records the steps that succeeded, so the next plan shows what is left.
func (r *Resource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer setIdentity(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	defer tfutil.NullWriteOnly(ctx, &resp.State, &resp.Diagnostics) // on error paths too: the framework does it only on success
	c := r.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var plan, prior Model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("app_inputs_wo"), &plan.AppInputsWO)...) // write-only: for a rebuild
	pending, diags := getPending(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if pending != nil {
		r.resumeCreate(ctx, c, &plan, resp)
		return
	}

	ctx, cancel := tfutil.WithTimeout(ctx, plan.Timeouts.Update, defaultUpdateTimeout, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	id := prior.ID.ValueInt64()
	ctx = tflog.SetField(ctx, "instance_id", id)

	done := prior // what is true so far
	for _, step := range []updateStep{resize, rebuild, patch, power, resetPassword, changeIP} {
		if err := step(ctx, c, id, plan, &done); err != nil {
			addOperationError(ctx, c, &resp.Diagnostics, id, fmt.Sprintf("Unable to update instance %d", id), err)
			resp.Diagnostics.Append(resp.State.Set(ctx, &done)...)
			return
		}
	}
	if plan.Price.IsUnknown() {
		plan.Price = done.Price
	}
	if err := r.complete(ctx, c, &plan, nil); err != nil {
		addOperationError(ctx, c, &resp.Diagnostics, id, fmt.Sprintf("Unable to read instance %d after the update", id), err)
		resp.Diagnostics.Append(resp.State.Set(ctx, &done)...)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// updateStep carries out one kind of in-place change from done towards plan, recording in done
// what it changed.
type updateStep func(ctx context.Context, c *client.Client, id int64, plan Model, done *Model) error

// resize moves the instance to the planned plan when it changed. ModifyPlan already checked
// that the plan is a resize option; it is checked again here because the options may have
// changed since (or the plan was unknown then).
func resize(ctx context.Context, c *client.Client, id int64, plan Model, done *Model) error {
	if plan.PlanID.Equal(done.PlanID) {
		return nil
	}
	target := plan.PlanID.ValueInt64()
	opts, err := c.GetResizeOptions(ctx, id)
	if err != nil {
		return fmt.Errorf("reading the resize options: %w", err)
	}
	if !opts.Has(target) {
		return fmt.Errorf("plan %d is not a resize option of instance %d (options: %v); plan the change again "+
			"to have the server replaced", target, id, optionIDs(opts))
	}
	res, err := c.RunAction(ctx, id, client.ActionRequest{Action: client.ActionResize, ServerID: &target})
	if err != nil {
		return fmt.Errorf("resizing to plan %d: %w", target, err)
	}
	tflog.Info(ctx, "resize accepted", map[string]any{"plan_id": target, "charged": res.Charged})
	if _, err := tfutil.WaitServer(ctx, c, tfutil.ServerWait{ID: id, What: fmt.Sprintf("to finish resizing to plan %d", target), Done: func(in *client.Instance) bool {
		return in.ServerProductID == target && in.Settled()
	}}); err != nil {
		return err
	}
	done.PlanID = plan.PlanID
	if price, ok := resizePrice(opts, target); ok {
		done.Price = types.Float64Value(price) // the new hourly cost, for a plan that could not know it
	}
	return nil
}

func optionIDs(o *client.ResizeOptions) []int64 {
	ids := make([]int64, 0, len(o.Options))
	for _, opt := range o.Options {
		ids = append(ids, opt.ID)
	}
	return ids
}

// rebuild installs the planned template when it changed, with the configured apps, and waits
// until the new credentials (and, with wait_for_apps, the apps) are ready.
func rebuild(ctx context.Context, c *client.Client, id int64, plan Model, done *Model) error {
	if !tfutil.IsSet(plan.TemplateID) || plan.TemplateID.Equal(done.TemplateID) {
		return nil
	}
	req, diags := plan.rebuildRequest(ctx)
	if diags.HasError() {
		return fmt.Errorf("building the rebuild request: %v", diags)
	}
	res, err := c.RunAction(ctx, id, req)
	if err != nil {
		return fmt.Errorf("rebuilding with template %d: %w", plan.TemplateID.ValueInt64(), err)
	}
	tflog.Info(ctx, "rebuild accepted", map[string]any{"template_id": plan.TemplateID.ValueInt64(), "queued_apps": res.QueuedApps})
	if _, err := tfutil.WaitServer(ctx, c, tfutil.ServerWait{ID: id, What: "to finish rebuilding", Done: (*client.Instance).Settled}); err != nil {
		return err
	}
	done.TemplateID = plan.TemplateID
	if plan.WaitForApps.ValueBool() && len(res.QueuedApps) > 0 {
		return waitForApps(ctx, c, id, len(res.QueuedApps))
	}
	return nil
}

// patch sends name, note and renew when they changed.
func patch(ctx context.Context, c *client.Client, id int64, plan Model, done *Model) error {
	req, ok := plan.patchRequest(*done)
	if !ok {
		return nil
	}
	if _, err := c.UpdateInstance(ctx, id, req); err != nil {
		return fmt.Errorf("updating name, note or renew: %w", err)
	}
	if req.Name != nil {
		done.Name = plan.Name
	}
	if req.Note != nil {
		done.Note = plan.Note
	}
	if req.Renew != nil {
		done.Renew = plan.Renew
	}
	return nil
}

// power switches the instance on or off when its status differs from the planned power. The
// status is read from the API rather than the state, so a server switched off behind
// Terraform's back is switched on again.
func power(ctx context.Context, c *client.Client, id int64, plan Model, done *Model) error {
	if err := setPower(ctx, c, id, plan.powerWanted(), nil); err != nil {
		return err
	}
	done.Power = plan.Power
	return nil
}

// setPower brings the instance to want (online or offline), waiting for a running transition
// to settle first. in is the instance as last read, or nil to read it.
func setPower(ctx context.Context, c *client.Client, id int64, want string, in *client.Instance) error {
	if in == nil || !in.Settled() {
		var err error
		if in, err = tfutil.WaitServer(ctx, c, tfutil.ServerWait{ID: id, What: "to settle", Done: (*client.Instance).Settled}); err != nil {
			return err
		}
	}
	if in.StatusValue() == want {
		return nil
	}
	action := client.ActionPowerOn
	if want == client.StatusOffline {
		action = client.ActionPowerOff
	}
	if _, err := c.RunAction(ctx, id, client.ActionRequest{Action: action}); err != nil {
		return fmt.Errorf("%s: %w", action, err)
	}
	_, err := tfutil.WaitServer(ctx, c, tfutil.ServerWait{ID: id, What: "to be " + want,
		Done: func(in *client.Instance) bool { return in.StatusValue() == want }})
	return err
}

// resetPassword runs reset_password when password_reset_trigger changed to a new value.
func resetPassword(ctx context.Context, c *client.Client, id int64, plan Model, done *Model) error {
	if !triggerFired(plan.PasswordResetTrigger, done.PasswordResetTrigger) {
		done.PasswordResetTrigger = plan.PasswordResetTrigger
		return nil
	}
	res, err := c.RunAction(ctx, id, client.ActionRequest{Action: client.ActionResetPassword})
	if err != nil {
		return fmt.Errorf("resetting the password: %w", err)
	}
	tflog.Info(ctx, "password reset")
	done.PasswordResetTrigger = plan.PasswordResetTrigger
	if res.Password != nil && plan.keepsPassword() {
		done.Password = types.StringValue(*res.Password)
	}
	return nil
}

// changeIP runs change_ip when ip_change_trigger changed to a new value, agreeing to pay up to
// max_ip_change_cost.
func changeIP(ctx context.Context, c *client.Client, id int64, plan Model, done *Model) error {
	if !triggerFired(plan.IPChangeTrigger, done.IPChangeTrigger) {
		done.IPChangeTrigger = plan.IPChangeTrigger
		return nil
	}
	req := client.ActionRequest{Action: client.ActionChangeIP}
	if tfutil.IsSet(plan.MaxIPChangeCost) {
		req.AcceptCost = plan.MaxIPChangeCost.ValueFloat64Pointer()
	}
	res, err := c.RunAction(ctx, id, req)
	if err != nil {
		return fmt.Errorf("changing the IP address: %w", err)
	}
	tflog.Info(ctx, "IP address changed", map[string]any{"ipv4": res.IPv4, "charged": res.Charged, "clean": res.Clean})
	done.IPChangeTrigger = plan.IPChangeTrigger
	if res.IPv4 != nil {
		done.IPv4 = types.StringValue(*res.IPv4)
	}
	return nil
}
