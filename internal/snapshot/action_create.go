package snapshot

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// CreateActionTypeName is the type name of the snapshot action.
const CreateActionTypeName = "reseller_snapshot_create"

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
	resp.TypeName = CreateActionTypeName
}

// Schema describes reseller_snapshot_create.
func (a *CreateAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Takes a snapshot of a server and waits until it is available. Needs Terraform 1.14 " +
			"or later. The snapshot is not managed by Terraform: it is billed like any snapshot until it is " +
			"deleted (or, when local, until its server ends). Typical use: a backup before every change " +
			"of a server, from its `lifecycle { action_trigger { events = [before_update] ... } }`, or, " +
			"from Terraform 1.16, a last snapshot before Terraform destroys or replaces the server " +
			"(`events = [before_destroy]` with `instance_id = caller.id`). A snapshot that is `local` (kept " +
			"on the server's own disk) is deleted with its server: the action then ends with a warning.",
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
	done, err := tfutil.WaitSnapshot(ctx, c, snap.ID, "to be available", available)
	if err != nil {
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Snapshot %d of instance %d is not available", snap.ID, instanceID), err)
		return
	}
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("snapshot %d is available", snap.ID)})
	if done.Local {
		addLocalWarning(&resp.Diagnostics, done)
	}
}

// addLocalWarning warns that the snapshot just taken lives on its server's disk. Taken before a
// destroy (the reason to snapshot then), it is `expired` the moment the server is gone, so a user
// who believes they kept a copy must hear, in the action's result, that they have none.
func addLocalWarning(diags *diag.Diagnostics, s *client.Snapshot) {
	diags.AddWarning(fmt.Sprintf("Snapshot %d is local: deleted with its server", s.ID),
		fmt.Sprintf("Snapshot %d (%q, of server %q) is a restore point on the server's own disk: it is "+
			"deleted with its server; it does not survive a destroy. It can restore the server while the "+
			"server exists. For a copy that outlives the server, use a plan whose snapshots are kept apart "+
			"from it (local_snapshots = false in the reseller_plan and reseller_plans data sources) and "+
			"move the data there before destroying this one.", s.ID, s.Name, sourceName(s)))
}

// sourceName is the name of the server a snapshot was taken of, "" when the API leaves it out.
func sourceName(s *client.Snapshot) string {
	if s.SourceName == nil {
		return ""
	}
	return *s.SourceName
}
