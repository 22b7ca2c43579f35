package client_test

import (
	"testing"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

func TestInstanceSettled(t *testing.T) {
	status := func(s string) *string { return &s }
	cases := []struct {
		name string
		in   client.Instance
		want bool
	}{
		{"online", client.Instance{InstanceSummary: client.InstanceSummary{Status: status(client.StatusOnline)}}, true},
		{"offline", client.Instance{InstanceSummary: client.InstanceSummary{Status: status(client.StatusOffline)}}, true},
		{"credentials delivered", client.Instance{InstanceSummary: client.InstanceSummary{Status: status(client.StatusOnline)},
			Credentials: &client.Credentials{Pending: false}}, true},
		{"credentials pending", client.Instance{InstanceSummary: client.InstanceSummary{Status: status(client.StatusOnline)},
			Credentials: &client.Credentials{Pending: true}}, false},
		{"building", client.Instance{InstanceSummary: client.InstanceSummary{Status: status("building")}}, false},
		{"restoring", client.Instance{InstanceSummary: client.InstanceSummary{Status: status("restoring")}}, false},
		{"no status yet", client.Instance{}, false},
		{"canceled", client.Instance{InstanceSummary: client.InstanceSummary{Status: status(client.StatusCanceled)}}, false},
	}
	for _, tc := range cases {
		if got := tc.in.Settled(); got != tc.want {
			t.Errorf("%s: Settled() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSnapshotBusy(t *testing.T) {
	busy := map[string]bool{
		client.SnapshotCreating:  true,
		client.SnapshotRestoring: true,
		client.SnapshotAvailable: false,
		client.SnapshotFailed:    false,
		client.SnapshotExpired:   false,
		client.SnapshotDeleted:   false,
	}
	for status, want := range busy {
		if got := (client.Snapshot{Status: status}).Busy(); got != want {
			t.Errorf("status %s: Busy() = %v, want %v", status, got, want)
		}
	}
}

// TestCanceledInstanceGone shows that only an answer that says so counts as a cancellation: an
// empty one (no status, so active false by default) leaves the caller to confirm with a read.
func TestCanceledInstanceGone(t *testing.T) {
	cases := []struct {
		name string
		in   client.CanceledInstance
		want bool
	}{
		{"canceled", client.CanceledInstance{ID: 1, Status: client.StatusCanceled}, true},
		{"still active", client.CanceledInstance{ID: 1, Status: client.StatusOnline, Active: true}, false},
		{"inactive with a status", client.CanceledInstance{ID: 1, Status: client.StatusOffline}, true},
		{"empty answer", client.CanceledInstance{}, false},
	}
	for _, c := range cases {
		if got := c.in.Gone(); got != c.want {
			t.Errorf("%s: Gone() = %v, want %v", c.name, got, c.want)
		}
	}
}
