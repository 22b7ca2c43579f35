package instance

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// addOperationError reports a failed operation on instance id. It recognises the errors a user
// can act on by their stable error code (never the message text): a locked instance (explained
// with its lock reason, read from the API), an unconfirmed IP change cost, and a wait cut short.
func addOperationError(ctx context.Context, c *client.Client, diags *diag.Diagnostics, id int64, summary string, err error) {
	switch {
	case tfutil.HasCode(err, client.CodeInstanceLocked):
		diags.AddError("Instance is locked", lockedDetail(ctx, c, id, err))
	case tfutil.HasCode(err, client.CodeCostUnconfirmed):
		diags.AddAttributeError(path.Root("max_ip_change_cost"), "IP change cost not accepted", costDetail(ctx, c, id, err))
	case tfutil.IsWaitError(err):
		diags.AddError(summary, fmt.Sprintf("%s.\n\nThe API accepted the change; raise the update timeout "+
			"(timeouts { update = \"...\" }) if the datacenter is slow. The next plan shows what is left to do.", err))
	default:
		var appErr *appFailedError
		if errors.As(err, &appErr) {
			diags.AddError("App install failed", appErr.Error())
			return
		}
		tfutil.AddAPIError(diags, summary, err)
	}
}

// lockedDetail explains an instance_locked answer with the instance's lock reason.
func lockedDetail(ctx context.Context, c *client.Client, id int64, err error) string {
	reason := "unknown"
	if in, getErr := c.GetInstance(ctx, id, false); getErr == nil && in.LockReason != nil {
		reason = *in.LockReason
	}
	return fmt.Sprintf("Instance %d is locked (reason: %s), so the API refuses every change to it until the "+
		"lock is lifted.\n\n%s\n\n%s", id, reason, tfutil.LockAdvice(reason), tfutil.APIErrorDetail(err))
}

// costDetail explains a cost_unconfirmed answer with the instance's ip_change_cost.
func costDetail(ctx context.Context, c *client.Client, id int64, err error) string {
	cost := "the instance's ip_change_cost"
	if in, getErr := c.GetInstance(ctx, id, false); getErr == nil {
		cost = fmt.Sprintf("%g", in.IPChangeCost)
	}
	return fmt.Sprintf("Changing the IPv4 address of instance %d costs %s USD (ip_change_cost), more than "+
		"max_ip_change_cost allows, so nothing was changed or charged. Set max_ip_change_cost to at least %s "+
		"to agree to the charge, then apply again.\n\n%s", id, cost, cost, tfutil.APIErrorDetail(err))
}

// addActionError is addOperationError for an action: a wait cut short says the action's own
// time limit ran out (actions have no timeouts block) instead of pointing at timeouts.update.
func addActionError(ctx context.Context, c *client.Client, diags *diag.Diagnostics, id int64, summary string, err error) {
	if tfutil.IsWaitError(err) {
		diags.AddError(summary, fmt.Sprintf("%s.\n\nThe API accepted the action, but instance %d did not settle "+
			"within %s. Check the server, then invoke the action again if it is still needed.", err, id, defaultActionTimeout))
		return
	}
	addOperationError(ctx, c, diags, id, summary, err)
}
