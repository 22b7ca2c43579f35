package snapshot

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// ListConfigModel is the configuration of the reseller_snapshot list resource: filters over the
// account's snapshots, every one optional.
type ListConfigModel struct {
	InstanceID      types.Int64  `tfsdk:"instance_id"`
	Status          types.String `tfsdk:"status"`
	IncludeInactive types.Bool   `tfsdk:"include_inactive"`
}

// matches reports whether s passes every filter that is set. Ended snapshots (deleted, expired,
// failed) are left out unless include_inactive is true.
func (m ListConfigModel) matches(s client.Snapshot) bool {
	switch {
	case !m.IncludeInactive.ValueBool() && s.Ended():
		return false
	case !m.Status.IsNull() && s.Status != m.Status.ValueString():
		return false
	case !m.InstanceID.IsNull() && (s.InstanceID == nil || *s.InstanceID != m.InstanceID.ValueInt64()):
		return false
	}
	return true
}

// listDisplayName is how a found snapshot is shown by terraform query: its name and status.
func listDisplayName(s client.Snapshot) string {
	return fmt.Sprintf("%s (%s)", s.Name, s.Status)
}

// fillFromList sets the model of a found snapshot from the list, as Read does (setSnapshot).
func fillFromList(ctx context.Context, s client.Snapshot, m *Model) diag.Diagnostics {
	return m.setSnapshot(ctx, &s)
}
