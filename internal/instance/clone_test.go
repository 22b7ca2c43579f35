package instance

import (
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

func TestCloneProblem(t *testing.T) {
	snap := func(mod func(*client.Snapshot)) *client.Snapshot {
		s := &client.Snapshot{ID: 5, Status: client.SnapshotAvailable, DatacenterID: new(int64(1)), SizeGB: new(10.0),
			Architecture: new("x86_64")}
		if mod != nil {
			mod(s)
		}
		return s
	}
	plan := func(dc, disk int64, arch string) *client.Plan {
		return &client.Plan{ID: 102, Disk: disk, Datacenter: &client.Datacenter{ID: dc}, Architecture: new(arch)}
	}
	tests := []struct {
		name string
		s    *client.Snapshot
		p    *client.Plan
		want string
	}{
		{"compatible", snap(nil), plan(1, 50, "x86_64"), ""},
		{"no architecture sent", snap(func(s *client.Snapshot) { s.Architecture = nil }), plan(1, 50, "arm64"), ""},
		{"other datacenter", snap(nil), plan(2, 50, "x86_64"), "datacenter 1 and the plan in datacenter 2"},
		{"disk too small", snap(func(s *client.Snapshot) { s.SizeGB = new(64.0) }), plan(1, 50, "x86_64"), "holds 64 GB"},
		{"other architecture", snap(nil), plan(1, 50, "arm64"), "x86_64 and the plan arm64"},
		{"deleted", snap(func(s *client.Snapshot) { s.Status = client.SnapshotDeleted }), plan(1, 50, "x86_64"), "is deleted"},
	}
	for _, tt := range tests {
		got := cloneProblem(tt.s, tt.p)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
