package client_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// snapshotJSON is a snapshot as the API sends it.
func snapshotJSON(id int64, status string) map[string]any {
	return map[string]any{
		"id": id, "name": "web 2025-06-01", "status": status, "note": nil, "locked": false, "lock_reason": nil,
		"size_gb": 10, "price": 0.000274, "price_monthly": 0.2, "term": "hourly", "accrued": 0.000274,
		"instance_id": 7, "datacenter_id": 1, "location_id": 11, "template_id": 1, "server_product_id": 101,
		"os_type": "linux", "features": []string{"Automatic backups"}, "local": false, "restore": true,
		"paid_amount": 0, "architecture": "x86_64", "created_at": "2025-06-01T10:00:00Z",
	}
}

func TestSnapshotEndpoints(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		call       func(c *client.Client) (*client.Snapshot, error)
		wantMethod string
		wantPath   string
		wantQuery  string
		wantBody   string
	}{
		{"get", func(c *client.Client) (*client.Snapshot, error) { return c.GetSnapshot(context.Background(), 5) },
			http.MethodGet, "/api/v1/snapshots/5", "", ""},
		{"create named", func(c *client.Client) (*client.Snapshot, error) {
			name := "before upgrade"
			return c.CreateSnapshot(context.Background(), 7, client.CreateSnapshotRequest{Name: &name})
		}, http.MethodPost, "/api/v1/instances/7/snapshots", "", `{"name":"before upgrade"}`},
		{"create default name", func(c *client.Client) (*client.Snapshot, error) {
			return c.CreateSnapshot(context.Background(), 7, client.CreateSnapshotRequest{})
		}, http.MethodPost, "/api/v1/instances/7/snapshots", "", `{}`},
		{"clear note", func(c *client.Client) (*client.Snapshot, error) {
			empty := ""
			return c.UpdateSnapshot(context.Background(), 5, client.UpdateSnapshotRequest{Note: &empty})
		}, http.MethodPatch, "/api/v1/snapshots/5", "", `{"note":""}`},
		{"restore", func(c *client.Client) (*client.Snapshot, error) { return c.RestoreSnapshot(context.Background(), 5) },
			http.MethodPost, "/api/v1/snapshots/5/restore", "", ""},
		{"delete", func(c *client.Client) (*client.Snapshot, error) { return c.DeleteSnapshot(context.Background(), 5) },
			http.MethodDelete, "/api/v1/snapshots/5", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStub(t, ok(snapshotJSON(5, client.SnapshotAvailable), nil))
			c := newClient(t, client.Config{Endpoint: s.endpoint()})
			snap, err := tt.call(c)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if snap.ID != 5 || snap.Status != client.SnapshotAvailable || snap.SizeGB == nil || *snap.SizeGB != 10 ||
				snap.InstanceID == nil || *snap.InstanceID != 7 || !snap.Restore || len(snap.Features) != 1 {
				t.Errorf("snapshot: got %+v, want snapshot 5, available, 10 GB, of instance 7, restorable, one feature", snap)
			}
			r := s.requests()[0]
			if r.method != tt.wantMethod || r.path != tt.wantPath || r.rawQuery != tt.wantQuery || r.body != tt.wantBody {
				t.Errorf("request: got %s %s?%s %q, want %s %s?%s %q", r.method, r.path, r.rawQuery, r.body,
					tt.wantMethod, tt.wantPath, tt.wantQuery, tt.wantBody)
			}
		})
	}
}

func TestListSnapshots(t *testing.T) {
	t.Parallel()
	s := newStub(t, ok([]any{snapshotJSON(6, client.SnapshotDeleted), snapshotJSON(5, client.SnapshotAvailable)}, nil))
	c := newClient(t, client.Config{Endpoint: s.endpoint()})
	list, err := c.ListSnapshots(context.Background(), true)
	if err != nil {
		t.Fatalf("ListSnapshots: %v", err)
	}
	if len(list) != 2 || list[0].ID != 6 || !list[0].Ended() || list[1].Ended() {
		t.Errorf("list: got %+v, want 6 (ended) then 5 (active)", list)
	}
	if q := s.requests()[0].rawQuery; q != "include_inactive=true" {
		t.Errorf("query: got %q, want include_inactive=true", q)
	}
}

func TestListInstanceSnapshotsReadsSettings(t *testing.T) {
	t.Parallel()
	settings := map[string]any{"price_per_gb_month": 0.02, "term": "hourly", "term_hours": 1, "max_per_instance": 3,
		"cross_location": true, "restore": true, "local": false, "hours_per_month": 730}
	s := newStub(t,
		ok([]any{snapshotJSON(5, client.SnapshotCreating)}, map[string]any{"settings": settings}),
		ok([]any{}, map[string]any{"settings": nil}),
	)
	c := newClient(t, client.Config{Endpoint: s.endpoint()})
	got, err := c.ListInstanceSnapshots(context.Background(), 7)
	if err != nil {
		t.Fatalf("ListInstanceSnapshots: %v", err)
	}
	if len(got.Snapshots) != 1 || got.Settings == nil || got.Settings.MaxPerInstance != 3 || !got.Settings.CrossLocation {
		t.Errorf("got %+v (settings %+v), want one snapshot and settings with cap 3, cross location", got, got.Settings)
	}
	if p := s.requests()[0].path; p != "/api/v1/instances/7/snapshots" {
		t.Errorf("path: got %q, want /api/v1/instances/7/snapshots", p)
	}
	got, err = c.ListInstanceSnapshots(context.Background(), 7)
	if err != nil || got.Settings != nil || len(got.Snapshots) != 0 {
		t.Errorf("no snapshots offered: got %+v, %v, want no snapshots and nil settings", got, err)
	}
}

// TestCreateSnapshotNotRetriedAfter502: POST /instances/{id}/snapshots carries no idempotency
// key, so a 502 (which the API may have processed) is not repeated: a second snapshot would be
// billed.
func TestCreateSnapshotNotRetriedAfter502(t *testing.T) {
	t.Parallel()
	s := newStub(t, apiError(http.StatusBadGateway, client.CodeProviderError, "datacenter down", nil, nil),
		ok(snapshotJSON(5, client.SnapshotCreating), nil))
	c := newClient(t, client.Config{Endpoint: s.endpoint(), MaxRetries: 3})
	recordWaits(c)
	if _, err := c.CreateSnapshot(context.Background(), 7, client.CreateSnapshotRequest{}); !client.IsCode(err, client.CodeProviderError) {
		t.Fatalf("error: got %v, want provider_error", err)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("attempts: got %d, want 1", n)
	}
}
