package instance

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// planClone checks at plan time that a server built from a snapshot (snapshot_id) can be built
// with the planned plan, with the rules the API applies (spec: POST /instances snapshot_id): the
// snapshot must be usable, in the plan's datacenter, no bigger than its disk and of its
// architecture. What cannot be known yet (unknown ids, no client) is left to the API at apply
// time; so is the location rule, which depends on datacenter settings the plan does not show.
//
// It returns the snapshot and the plan it read (nil when it read none), from which the clone is
// priced.
func (r *Resource) planClone(ctx context.Context, plan Model, resp *resource.ModifyPlanResponse) (*client.Snapshot, *client.Plan) {
	if !tfutil.IsSet(plan.SnapshotID) || !tfutil.IsSet(plan.PlanID) {
		return nil, nil
	}
	var unconfigured diag.Diagnostics
	c := r.Client(&unconfigured)
	if c == nil {
		return nil, nil
	}
	snapshotID, planID := plan.SnapshotID.ValueInt64(), plan.PlanID.ValueInt64()
	snap, err := c.GetSnapshot(ctx, snapshotID)
	if tfutil.IsNotFound(err) {
		resp.Diagnostics.AddAttributeError(path.Root("snapshot_id"), "Snapshot not found",
			fmt.Sprintf("Snapshot %d does not exist or does not belong to this account (see the reseller_snapshots "+
				"data source).\n\n%s", snapshotID, tfutil.APIErrorDetail(err)))
		return nil, nil
	}
	if err != nil {
		return nil, nil // the apply reports it
	}
	p, err := c.GetPlan(ctx, planID)
	if err != nil {
		return nil, nil // the apply reports it
	}
	if problem := cloneProblem(snap, p); problem != "" {
		resp.Diagnostics.AddAttributeError(path.Root("snapshot_id"), "Snapshot incompatible with the plan",
			fmt.Sprintf("A server of plan %d cannot be built from snapshot %d: %s.", planID, snapshotID, problem))
	}
	return snap, p
}

// cloneProblem says why the plan p cannot be built from the snapshot s, or "" when nothing
// known at plan time stands in the way.
func cloneProblem(s *client.Snapshot, p *client.Plan) string {
	switch {
	case s.Ended():
		return fmt.Sprintf("the snapshot is %s; only an available snapshot can be used", s.Status)
	case s.DatacenterID != nil && p.Datacenter != nil && *s.DatacenterID != p.Datacenter.ID:
		return fmt.Sprintf("the snapshot is in datacenter %d and the plan in datacenter %d; a server can be built "+
			"from a snapshot only in the snapshot's datacenter, so choose a plan there (for example a reseller_plan "+
			"with datacenter_id = %d)", *s.DatacenterID, p.Datacenter.ID, *s.DatacenterID)
	case s.SizeGB != nil && float64(p.Disk) < *s.SizeGB:
		return fmt.Sprintf("the snapshot holds %g GB and the plan's disk has %d GB; choose a plan with a disk of "+
			"at least %g GB", *s.SizeGB, p.Disk, *s.SizeGB)
	case s.Architecture != nil && p.Architecture != nil && *s.Architecture != *p.Architecture:
		return fmt.Sprintf("the snapshot is %s and the plan %s; choose a plan of the snapshot's architecture",
			*s.Architecture, *p.Architecture)
	}
	return ""
}

// addOrderError reports a refused order. The refusals of a build from a locked or unavailable
// snapshot, which clear with time or a top-up, are attached to snapshot_id; the rest are
// reported as they are (a snapshot incompatible with the plan is a validation_error naming
// snapshot_id).
func addOrderError(diags *diag.Diagnostics, plan Model, err error) {
	if tfutil.IsSet(plan.SnapshotID) && tfutil.AddSnapshotRefusal(diags, plan.SnapshotID.ValueInt64(),
		"so no server can be built from it; nothing was ordered", err) {
		return
	}
	tfutil.AddAPIError(diags, "Unable to order the server", err)
}
