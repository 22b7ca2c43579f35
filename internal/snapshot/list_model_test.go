package snapshot

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

func TestListConfigMatches(t *testing.T) {
	avail := *sampleSnapshot()
	avail.InstanceID = new(int64(7))
	deleted := avail
	deleted.Status = client.SnapshotDeleted
	tests := []struct {
		name string
		set  func(c *ListConfigModel)
		s    client.Snapshot
		want bool
	}{
		{"no filter", func(*ListConfigModel) {}, avail, true},
		{"no filter leaves out a deleted snapshot", func(*ListConfigModel) {}, deleted, false},
		{"include_inactive keeps it", func(c *ListConfigModel) { c.IncludeInactive = types.BoolValue(true) }, deleted, true},
		{"instance matches", func(c *ListConfigModel) { c.InstanceID = types.Int64Value(7) }, avail, true},
		{"instance differs", func(c *ListConfigModel) { c.InstanceID = types.Int64Value(8) }, avail, false},
		{"status matches", func(c *ListConfigModel) { c.Status = types.StringValue(client.SnapshotAvailable) }, avail, true},
		{"status differs", func(c *ListConfigModel) { c.Status = types.StringValue(client.SnapshotCreating) }, avail, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := ListConfigModel{InstanceID: types.Int64Null(), Status: types.StringNull(), IncludeInactive: types.BoolNull()}
			tt.set(&config)
			if got := config.matches(tt.s); got != tt.want {
				t.Errorf("matches = %v, want %v", got, tt.want)
			}
		})
	}
}
