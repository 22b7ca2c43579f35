package snapshot

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// RestoreTypeName is the type name of the restore resource.
const RestoreTypeName = "reseller_snapshot_restore"

// defaultRestoreTimeout bounds the wait for a restore to settle: the datacenter writes the
// image back onto the disk and delivers the snapshot's credentials.
const defaultRestoreTimeout = 20 * time.Minute

var _ resource.ResourceWithConfigure = (*Restore)(nil)

// Restore is reseller_snapshot_restore: one restore of a snapshot onto its source server, run
// when the resource is created (or replaced, when a trigger changes). It stands for an action,
// not an object: destroying it only forgets it.
type Restore struct {
	tfutil.ResourceBase
}

// NewRestore returns reseller_snapshot_restore.
func NewRestore() resource.Resource { return &Restore{} }

// Metadata sets the type name.
func (r *Restore) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = RestoreTypeName
}

// Schema describes reseller_snapshot_restore.
func (r *Restore) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = RestoreSchema(ctx)
}

// Create restores the snapshot and waits until it is available again and its server has
// settled (off, with the snapshot's credentials delivered). A failure after the API accepted
// the restore keeps the resource in the state as an error, so Terraform marks it tainted and the
// next apply restores again, which yields the same disk.
func (r *Restore) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	c := r.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var plan RestoreModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := tfutil.WithTimeout(ctx, plan.Timeouts.Create, defaultRestoreTimeout, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	id := plan.SnapshotID.ValueInt64()
	ctx = tflog.SetField(ctx, "snapshot_id", id)

	restoredAt, snap, err := restore(ctx, c, id)
	if err != nil {
		if tfutil.IsNotFound(err) {
			resp.Diagnostics.AddAttributeError(path.Root("snapshot_id"), "Snapshot or its server not found",
				fmt.Sprintf("Snapshot %d does not exist, does not belong to this account, or the server it was taken "+
					"from is gone (a snapshot can only be restored onto its own server; build a new server from it with "+
					"reseller_instance and snapshot_id instead).\n\n%s", id, tfutil.APIErrorDetail(err)))
			return
		}
		if tfutil.AddSnapshotRefusal(&resp.Diagnostics, id, "so it cannot be restored; its server was not changed", err) {
			return
		}
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to restore snapshot %d", id), err)
		return
	}
	if snap.InstanceID == nil {
		resp.Diagnostics.AddError("Restore without a server",
			fmt.Sprintf("The API accepted the restore of snapshot %d but names no server for it. This is a bug in the "+
				"API or the provider; please report it.", id))
		return
	}
	instanceID := *snap.InstanceID
	tflog.Info(ctx, "restore accepted", map[string]any{"instance_id": instanceID, "status": snap.Status})
	plan.setRestore(id, instanceID, restoredAt)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}

	if _, err := tfutil.WaitSnapshot(ctx, c, id, "to be available again after the restore", available); err != nil {
		addRestoreWaitError(&resp.Diagnostics, id, instanceID, err)
		return
	}
	in, err := waitForInstanceSettled(ctx, c, instanceID)
	if err != nil {
		addRestoreWaitError(&resp.Diagnostics, id, instanceID, err)
		return
	}
	tflog.Info(ctx, "restore finished", map[string]any{"instance_id": instanceID, "instance_status": in.StatusValue()})
}

// addRestoreWaitError reports a failed wait after the API accepted the restore.
func addRestoreWaitError(diags *diag.Diagnostics, id, instanceID int64, err error) {
	diags.AddError("Restore not finished", fmt.Sprintf("The API accepted the restore of snapshot %d onto instance %d, "+
		"but %s.\n\nThe resource is kept in the state and Terraform marks it tainted: the next apply restores the "+
		"snapshot again (the disk ends up the same). Raise timeouts.create if the datacenter is slow.",
		id, instanceID, tfutil.APIErrorDetail(err)))
}

// Read keeps the state as it is: a restore is a past event. Only when the snapshot is gone
// (404, deleted, expired or failed) is the resource removed.
func (r *Restore) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	c := r.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var state RestoreModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.SnapshotID.ValueInt64()
	snap, err := c.GetSnapshot(ctx, id)
	switch {
	case tfutil.IsNotFound(err) || (err == nil && snap.Ended()):
		tflog.Warn(ctx, "the restored snapshot is gone; removing the restore from the state", map[string]any{"snapshot_id": id})
		resp.State.RemoveResource(ctx)
	case err != nil:
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to read snapshot %d", id), err)
	}
}

// Update only records new timeouts: every other argument replaces the resource.
func (r *Restore) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan RestoreModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete only forgets the restore: it cannot be undone.
func (r *Restore) Delete(ctx context.Context, _ resource.DeleteRequest, _ *resource.DeleteResponse) {
	tflog.Debug(ctx, "forgetting a snapshot restore; nothing changes at the API")
}
