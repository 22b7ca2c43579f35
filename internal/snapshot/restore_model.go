package snapshot

import (
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// RestoreModel is the state of reseller_snapshot_restore.
type RestoreModel struct {
	SnapshotID types.Int64    `tfsdk:"snapshot_id"`
	Triggers   types.Map      `tfsdk:"triggers"`
	Timeouts   timeouts.Value `tfsdk:"timeouts"`
	ID         types.String   `tfsdk:"id"`
	InstanceID types.Int64    `tfsdk:"instance_id"`
	RestoredAt types.String   `tfsdk:"restored_at"`
}

// setRestore records a restore the API accepted.
func (m *RestoreModel) setRestore(snapshotID, instanceID int64, at time.Time) {
	m.InstanceID = types.Int64Value(instanceID)
	m.RestoredAt = types.StringValue(at.Format(time.RFC3339))
	m.ID = types.StringValue(strconv.FormatInt(snapshotID, 10) + "@" + m.RestoredAt.ValueString())
}
