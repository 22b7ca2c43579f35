package snapshot

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// CreateActionType is the type name of the snapshot action.
const CreateActionType = "reseller_snapshot_create"

var _ action.ActionWithConfigure = (*CreateAction)(nil)

// CreateAction is reseller_snapshot_create: takes a snapshot Terraform does not manage (a backup
// before a risky change) and waits until it is available.
type CreateAction struct {
	tfutil.ActionBase
}

// NewCreateAction returns reseller_snapshot_create.
func NewCreateAction() action.Action { return &CreateAction{} }

type createActionModel struct {
	InstanceID types.Int64  `tfsdk:"instance_id"`
	Name       types.String `tfsdk:"name"`
}

// Metadata sets the type name.
func (a *CreateAction) Metadata(_ context.Context, _ action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = CreateActionType
}

// Schema describes reseller_snapshot_create.
func (a *CreateAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Takes a snapshot of a server and waits until it is available. Needs Terraform 1.14 " +
			"or later. The snapshot is not managed by Terraform: it is billed like any snapshot until it is " +
			"deleted (or, when local, until its server ends). Typical use: a backup before every change " +
			"of a server, from its `lifecycle { action_trigger { events = [before_update] ... } }`.",
		Attributes: map[string]schema.Attribute{
			"instance_id": schema.Int64Attribute{
				Required:            true,
				MarkdownDescription: "The server to take a snapshot of.",
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"name": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "The snapshot's name. The API names it after the server and the time when unset.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
		},
	}
}

// Invoke takes the snapshot and waits until it is available.
func (a *CreateAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	c := a.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var m createActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	instanceID := m.InstanceID.ValueInt64()
	ctx, cancel := context.WithTimeout(ctx, defaultCreateTimeout)
	defer cancel()
	snap, err := c.CreateSnapshot(ctx, instanceID, client.CreateSnapshotRequest{Name: m.Name.ValueStringPointer()})
	if err != nil {
		if tfutil.IsNotFound(err) {
			resp.Diagnostics.AddAttributeError(path.Root("instance_id"), "Instance not found",
				fmt.Sprintf("Instance %d does not exist or does not belong to this account.\n\n%s", instanceID,
					tfutil.APIErrorDetail(err)))
			return
		}
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to take a snapshot of instance %d", instanceID), err)
		return
	}
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("snapshot %d of instance %d accepted, waiting for it to be available", snap.ID, instanceID)})
	if _, err := tfutil.WaitSnapshot(ctx, c, snap.ID, "to be available", available); err != nil {
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Snapshot %d of instance %d is not available", snap.ID, instanceID), err)
		return
	}
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("snapshot %d is available", snap.ID)})
}
