// Package snapshot implements the reseller_snapshot resource (a disk image of a server, billed
// hourly by size), the reseller_snapshot_restore resource (a one-shot restore onto the source
// server) and the reseller_snapshots data source.
package snapshot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// TypeName is the type name of the resource.
const TypeName = "reseller_snapshot"

// Default timeouts. A real image of a large disk takes minutes; deleting is immediate at the
// API (the image is removed in the background), but waits out a running restore first.
const (
	defaultCreateTimeout = 30 * time.Minute
	defaultDeleteTimeout = 10 * time.Minute
)

var (
	_ resource.ResourceWithConfigure   = (*Resource)(nil)
	_ resource.ResourceWithImportState = (*Resource)(nil)
	_ resource.ResourceWithModifyPlan  = (*Resource)(nil)
)

// Resource is reseller_snapshot.
type Resource struct {
	tfutil.ResourceBase
}

// NewResource returns reseller_snapshot.
func NewResource() resource.Resource { return &Resource{} }

// Metadata sets the type name.
func (r *Resource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = TypeName
}

// Schema describes reseller_snapshot.
func (r *Resource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = Schema(ctx)
}

// Create takes the snapshot (finding it instead of taking another when the answer is lost; see
// takeSnapshot), saves its id at once (so an interrupted apply leaves something to
// delete rather than an orphan), waits until the image is available and sets the note.
//
// A failed image is an error and removes the resource: a failed snapshot is final, not billed,
// and its remains are deleted by the API, so there is nothing to keep or delete. A wait cut
// short by the create timeout is an error that keeps the snapshot in the state; Terraform then
// marks it tainted, and the next apply deletes it and takes a new one (creating is free).
func (r *Resource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer setIdentity(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	c := r.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var plan Model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := tfutil.WithTimeout(ctx, plan.Timeouts.Create, defaultCreateTimeout, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}

	instanceID := plan.InstanceID.ValueInt64()
	snap, err := takeSnapshot(ctx, c, instanceID, plan.createRequest())
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
	ctx = tflog.SetField(ctx, "snapshot_id", snap.ID)
	tflog.Info(ctx, "snapshot accepted", map[string]any{"instance_id": instanceID, "status": snap.Status})
	resp.Diagnostics.Append(saveProgress(ctx, &resp.State, plan, snap)...)
	if resp.Diagnostics.HasError() {
		return
	}

	last, err := tfutil.WaitSnapshot(ctx, c, snap.ID, "to be available", available)
	var failed *tfutil.SnapshotFailedError
	switch {
	case errors.As(err, &failed):
		resp.State.RemoveResource(ctx)
		resp.Diagnostics.AddError("Snapshot failed", failed.Error()+", and its remains are deleted by the API. "+
			"Nothing is left in the state: apply again to take a new snapshot. If it fails again, the datacenter may "+
			"be having trouble; check the server and try later.")
		return
	case tfutil.IsWaitError(err):
		if last != nil {
			resp.Diagnostics.Append(saveProgress(ctx, &resp.State, plan, last)...)
		}
		resp.Diagnostics.AddError("Snapshot not available yet", fmt.Sprintf("%s.\n\nSnapshot %d is kept in the "+
			"state, and Terraform marks it tainted: the next apply deletes it and takes a new one (creating a "+
			"snapshot is free; billing starts once it is available). Raise timeouts.create if images of this "+
			"server take longer.", err, snap.ID))
		return
	case err != nil:
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to wait for snapshot %d", snap.ID), err)
		return
	}
	tflog.Info(ctx, "snapshot available", map[string]any{"size_gb": last.SizeGB, "price": last.Price})

	if patch, changed := plan.patchRequest(plan.afterCreate()); changed {
		if last, err = c.UpdateSnapshot(ctx, snap.ID, patch); err != nil {
			tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to set the note of snapshot %d", snap.ID), err)
			return
		}
	}
	resp.Diagnostics.Append(plan.setSnapshot(ctx, last)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// saveProgress writes the plan m to state with what the API said so far (s), the rest null.
// The note is not set yet, so the state says so.
func saveProgress(ctx context.Context, state *tfsdk.State, m Model, s *client.Snapshot) diag.Diagnostics {
	diags := m.setSnapshot(ctx, s)
	m.nullUnknowns()
	diags.Append(state.Set(ctx, &m)...)
	return diags
}

// Read refreshes the state from the shared GET /snapshots list (inactive ones included), which
// carries every attribute, so a refresh of many snapshots costs one request. A snapshot that is
// gone (not listed, deleted, expired or failed) is removed,
// so the next plan takes a new one.
func (r *Resource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer func() { setIdentity(ctx, tfutil.ReadIdentityState(req, resp), resp.Identity, &resp.Diagnostics) }()
	c := r.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var state Model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueInt64()
	snap, found, err := c.SnapshotFromList(ctx, id)
	switch {
	case err != nil:
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to read snapshot %d", id), err)
		return
	case !found:
		tflog.Warn(ctx, "snapshot not found; removing it from the state", map[string]any{"snapshot_id": id})
		resp.State.RemoveResource(ctx)
		return
	case snap.Ended():
		tflog.Warn(ctx, "snapshot ended; removing it from the state", map[string]any{"snapshot_id": id, "status": snap.Status})
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(state.setSnapshot(ctx, snap)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// ModifyPlan marks unknown, on any update, the values that change on their own, so the applied
// values never contradict the plan.
func (r *Resource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || req.State.Raw.IsNull() || req.Plan.Raw.Equal(req.State.Raw) {
		return // destroy, create, or nothing changes
	}
	var plan Model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.markVolatileUnknown()
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// Update changes the name and the note in place with one PATCH; it does not wait.
func (r *Resource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer setIdentity(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	c := r.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var plan, prior Model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := prior.ID.ValueInt64()
	var snap *client.Snapshot
	var err error
	if patch, changed := plan.patchRequest(prior); changed {
		snap, err = c.UpdateSnapshot(ctx, id, patch)
	} else {
		snap, err = c.GetSnapshot(ctx, id) // only the timeouts changed
	}
	if err != nil {
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to update snapshot %d", id), err)
		return
	}
	resp.Diagnostics.Append(plan.setSnapshot(ctx, snap)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete deletes the snapshot (billing stops; nothing is refunded) and waits until the API
// reports it gone. A snapshot being restored cannot be deleted, so a running restore is waited
// out first.
func (r *Resource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	c := r.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var state Model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	ctx, cancel := tfutil.WithTimeout(ctx, state.Timeouts.Delete, defaultDeleteTimeout, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueInt64()
	ctx = tflog.SetField(ctx, "snapshot_id", id)

	err := tfutil.Poll(ctx, tfutil.PollOptions{What: fmt.Sprintf("snapshot %d to be deleted", id)},
		func(ctx context.Context) (bool, string, error) {
			s, err := c.DeleteSnapshot(ctx, id)
			switch {
			case tfutil.IsNotFound(err):
				return true, "gone", nil
			case tfutil.HasCode(err, client.CodeSnapshotUnavailable):
				return false, "waiting for a running restore to finish", nil
			case err != nil:
				return false, "", err
			}
			return s.Ended(), s.Status, nil
		})
	if err != nil && !isGone(err) {
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to delete snapshot %d", id), err)
	}
}

// ImportState takes the numeric snapshot id; Read fills in the rest, instance_id included
// while the source server exists.
func (r *Resource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id, ok := tfutil.ImportNumericID(ctx, req, TypeName, &resp.Diagnostics)
	if !ok {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}
