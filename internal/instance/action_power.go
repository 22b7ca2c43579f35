package instance

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// PowerActionTypeName is the type name of the power action.
const PowerActionTypeName = "reseller_instance_power"

// defaultActionTimeout bounds an action's wait for the server to settle; actions have no
// timeouts block.
const defaultActionTimeout = defaultUpdateTimeout

// powerTarget is the API action for the state argument and the status the server settles in.
type powerTarget struct{ action, status string }

// powerTargetOf returns the powerTarget of a state the schema accepted (on, off or reboot).
func powerTargetOf(state string) powerTarget {
	switch state {
	case "off":
		return powerTarget{client.ActionPowerOff, client.StatusOffline}
	case "reboot":
		return powerTarget{client.ActionReboot, client.StatusOnline}
	default:
		return powerTarget{client.ActionPowerOn, client.StatusOnline}
	}
}

var _ action.ActionWithConfigure = (*PowerAction)(nil)

// PowerAction is reseller_instance_power: switches a server on or off, or reboots it, and waits
// until it has settled.
type PowerAction struct {
	tfutil.ActionBase
}

// NewPowerAction returns reseller_instance_power.
func NewPowerAction() action.Action { return &PowerAction{} }

type powerModel struct {
	InstanceID types.Int64  `tfsdk:"instance_id"`
	State      types.String `tfsdk:"state"`
}

// Metadata sets the type name.
func (a *PowerAction) Metadata(_ context.Context, _ action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = PowerActionTypeName
}

// Schema describes reseller_instance_power.
func (a *PowerAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Switches a server on or off, or reboots it, and waits until it has settled " +
			"(online, or offline for `off`). Needs Terraform 1.14 or later. The `power` of a " +
			"`reseller_instance` managed by Terraform shows the change at the next plan; prefer setting " +
			"`power` there, and use this action for one-off reboots (`terraform apply " +
			"-invoke=action.reseller_instance_power.NAME`) or from `action_trigger`.",
		Attributes: map[string]schema.Attribute{
			"instance_id": instanceIDAttribute("The server to switch."),
			"state": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "`on`, `off` or `reboot`.",
				Validators:          []validator.String{stringvalidator.OneOf("on", "off", "reboot")},
			},
		},
	}
}

// instanceIDAttribute is the instance_id argument every instance action takes.
func instanceIDAttribute(description string) schema.Int64Attribute {
	return schema.Int64Attribute{
		Required:            true,
		MarkdownDescription: description,
		Validators:          []validator.Int64{int64validator.AtLeast(1)},
	}
}

// Invoke runs the power action and waits for the server to settle in the status asked for.
func (a *PowerAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	c := a.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var m powerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id, want := m.InstanceID.ValueInt64(), powerTargetOf(m.State.ValueString())
	ctx, cancel := context.WithTimeout(ctx, defaultActionTimeout)
	defer cancel()
	summary := fmt.Sprintf("Unable to %s instance %d", want.action, id)
	if _, err := c.RunAction(ctx, id, client.ActionRequest{Action: want.action}); err != nil {
		addActionError(ctx, c, &resp.Diagnostics, id, summary, err)
		return
	}
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("instance %d: %s accepted, waiting for it to be %s", id, want.action, want.status)})
	_, err := tfutil.WaitServer(ctx, c, tfutil.ServerWait{ID: id, What: "to be " + want.status, Done: func(in *client.Instance) bool {
		return in.Settled() && in.StatusValue() == want.status
	}})
	if err != nil {
		addActionError(ctx, c, &resp.Diagnostics, id, summary, err)
	}
}
