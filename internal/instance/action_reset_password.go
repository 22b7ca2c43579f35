package instance

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// ResetPasswordActionTypeName is the type name of the password reset action.
const ResetPasswordActionTypeName = "reseller_instance_reset_password"

var _ action.ActionWithConfigure = (*ResetPasswordAction)(nil)

// ResetPasswordAction is reseller_instance_reset_password: gives a server a new root password
// and waits until the server has settled.
type ResetPasswordAction struct {
	tfutil.ActionBase
}

// NewResetPasswordAction returns reseller_instance_reset_password.
func NewResetPasswordAction() action.Action { return &ResetPasswordAction{} }

type resetPasswordModel struct {
	InstanceID types.Int64 `tfsdk:"instance_id"`
}

// Metadata sets the type name.
func (a *ResetPasswordAction) Metadata(_ context.Context, _ action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = ResetPasswordActionTypeName
}

// Schema describes reseller_instance_reset_password.
func (a *ResetPasswordAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Gives a server a new root password (the `reset_password` action) and waits until " +
			"the server has settled. Needs Terraform 1.14 or later. Actions return no values: the " +
			"`password` of a `reseller_instance` in the state is stale until the next refresh (`terraform " +
			"apply -refresh-only`, or any plan), which reads the new one from the API.",
		Attributes: map[string]schema.Attribute{
			"instance_id": instanceIDAttribute("The server whose password to reset."),
		},
	}
}

// Invoke resets the password and waits for the server to settle.
func (a *ResetPasswordAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	c := a.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var m resetPasswordModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := m.InstanceID.ValueInt64()
	ctx, cancel := context.WithTimeout(ctx, defaultActionTimeout)
	defer cancel()
	summary := fmt.Sprintf("Unable to reset the password of instance %d", id)
	if _, err := c.RunAction(ctx, id, client.ActionRequest{Action: client.ActionResetPassword}); err != nil {
		addActionError(ctx, c, &resp.Diagnostics, id, summary, err)
		return
	}
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("instance %d: password reset, waiting for it to settle", id)})
	if _, err := tfutil.WaitServer(ctx, c, tfutil.ServerWait{ID: id, What: "to settle", Done: (*client.Instance).Settled}); err != nil {
		addActionError(ctx, c, &resp.Diagnostics, id, summary, err)
	}
}
