package apitest

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// TestCloneFromSnapshot builds a server from a snapshot: its OS and credentials are the
// snapshot's, and it carries the snapshot's features its plan offers.
func TestCloneFromSnapshot(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	// 101 at Tehran with backups and extra IPv6; Debian.
	src := e.deployed(t, a.APIKey, `{"server_id": 101, "template_id": 3, "term": "hourly", "active_features": ["2", "3"]}`)
	s := e.available(t, a.APIKey, src)
	srcView := e.getInstance(t, a.APIKey, src)

	// 105 is at Tabriz, another location of datacenter 1, whose snapshots are cross_location; it
	// offers backups but not extra IPv6, and no Debian... the snapshot's OS is used regardless.
	c := e.placed(t, a.APIKey, fmt.Sprintf(`{"server_id": 105, "snapshot_id": %d, "template_id": 1, "term": "hourly"}`, s.ID))
	if dollars(c.Price) != 0.0045 { // 0.0035 + backups 0.001
		t.Fatalf("clone price = %v, want 0.0045 (plan and the carried backups)", dollars(c.Price))
	}
	e.runDue(t)
	o := e.getOrder(t, a.APIKey, c.OrderID)
	if o.Server == nil {
		t.Fatalf("clone order is %s", o.Status)
	}
	e.clock.Advance(time.Minute)
	clone := e.getInstance(t, a.APIKey, o.Server.ID)
	if clone.Template.ID != 3 || !slices.Equal(clone.ActiveFeatures, []string{"2"}) || *clone.LocationID != 12 ||
		*clone.Credentials.Password != *srcView.Credentials.Password || *clone.Credentials.Username != "root" {
		t.Fatalf("clone: template %d features %v location %d credentials %+v; want Debian, backups, Tabriz, the snapshot's password",
			clone.Template.ID, clone.ActiveFeatures, *clone.LocationID, clone.Credentials)
	}
	if *clone.IPv4 == *srcView.IPv4 {
		t.Fatal("the clone has the source's address")
	}

	// Features named in the request replace the carried ones.
	own := e.deployed(t, a.APIKey, fmt.Sprintf(`{"server_id": 102, "snapshot_id": %d, "term": "hourly", "active_features": ["4"]}`, s.ID))
	if got := e.getInstance(t, a.APIKey, own).ActiveFeatures; !slices.Equal(got, []string{"4"}) {
		t.Fatalf("clone with its own features: %v, want [4]", got)
	}
	none := e.deployed(t, a.APIKey, fmt.Sprintf(`{"server_id": 102, "snapshot_id": %d, "term": "hourly", "active_features": []}`, s.ID))
	if got := e.getInstance(t, a.APIKey, none).ActiveFeatures; len(got) != 0 {
		t.Fatalf("clone with active_features []: %v, want none", got)
	}
	// A Windows snapshot forces IPv4 on its clone.
	win := e.deployed(t, a.APIKey, `{"server_id": 102, "template_id": 5, "term": "hourly"}`)
	ws := e.available(t, a.APIKey, win)
	wc := e.deployed(t, a.APIKey, fmt.Sprintf(`{"server_id": 103, "snapshot_id": %d, "term": "hourly", "active_features": ["2"]}`, ws.ID))
	if got := e.getInstance(t, a.APIKey, wc); !slices.Equal(got.ActiveFeatures, []string{"2", "1"}) || got.Template.ID != 5 ||
		*got.Credentials.Username != "Administrator" {
		t.Fatalf("Windows clone: features %v template %d user %v", got.ActiveFeatures, got.Template.ID, *got.Credentials.Username)
	}
}

// TestCloneCompatibility gives every rule of a build from a snapshot its own failing case.
func TestCloneCompatibility(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.SnapshotDelay = time.Hour })
	a := e.funded(t, 10_000_000)
	other := e.funded(t, 10_000_000)
	ready := func(instance int64) api.SnapshotView {
		t.Helper()
		s := e.snapped(t, a.APIKey, instance)
		e.runDue(t)
		e.clock.Advance(time.Hour)
		e.runDue(t)
		return s
	}
	small := ready(e.deployed(t, a.APIKey, ubuntuOn101))                                                  // 10 GB, Tehran
	big := ready(e.deployed(t, a.APIKey, `{"server_id": 103, "template_id": 1, "term": "hourly"}`))       // 64 GB, Tehran
	frankfurt := ready(e.deployed(t, a.APIKey, `{"server_id": 201, "template_id": 1, "term": "hourly"}`)) // 16 GB, location 21
	creating := e.snapped(t, a.APIKey, e.deployed(t, a.APIKey, ubuntuOn101))
	theirs := e.snapped(t, other.APIKey, e.deployed(t, other.APIKey, ubuntuOn101))

	tests := []struct {
		name   string
		body   string
		status int
		code   string
		words  []string
	}{
		{"another datacenter", fmt.Sprintf(`{"server_id": 201, "snapshot_id": %d, "term": "hourly"}`, small.ID), 400, "validation_error", []string{"snapshot_id", "datacenter"}},
		{"disk smaller than the snapshot", fmt.Sprintf(`{"server_id": 102, "snapshot_id": %d, "term": "hourly"}`, big.ID), 400, "validation_error", []string{"snapshot_id", "64 GB"}},
		{"another architecture", fmt.Sprintf(`{"server_id": 107, "snapshot_id": %d, "term": "hourly"}`, small.ID), 400, "validation_error", []string{"snapshot_id", "arm64"}},
		{"another location without cross_location", fmt.Sprintf(`{"server_id": 211, "snapshot_id": %d, "term": "hourly"}`, frankfurt.ID), 400, "validation_error", []string{"snapshot_id", "location"}},
		{"with apps", fmt.Sprintf(`{"server_id": 102, "snapshot_id": %d, "term": "hourly", "apps": ["docker"]}`, small.ID), 400, "validation_error", []string{"apps"}},
		{"feature the plan lacks", fmt.Sprintf(`{"server_id": 105, "snapshot_id": %d, "term": "hourly", "active_features": ["4"]}`, small.ID), 400, "validation_error", []string{"active_features"}},
		{"not available", fmt.Sprintf(`{"server_id": 102, "snapshot_id": %d, "term": "hourly"}`, creating.ID), 409, "snapshot_unavailable", nil},
		{"another account's snapshot", fmt.Sprintf(`{"server_id": 102, "snapshot_id": %d, "term": "hourly"}`, theirs.ID), 404, "not_found", nil},
		{"unknown snapshot", `{"server_id": 102, "snapshot_id": 999, "term": "hourly"}`, 404, "not_found", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.order(t, a.APIKey, "", tt.body)
			r.WantStatus(t, tt.status, tt.code)
			r.WantMessage(t, tt.words...)
		})
	}
	// The same snapshots do build compatible plans.
	for _, body := range []string{
		fmt.Sprintf(`{"server_id": 104, "snapshot_id": %d, "term": "hourly"}`, big.ID),       // 80 GB holds 64
		fmt.Sprintf(`{"server_id": 202, "snapshot_id": %d, "term": "hourly"}`, frankfurt.ID), // same location
		fmt.Sprintf(`{"server_id": 106, "snapshot_id": %d, "term": "hourly"}`, small.ID),     // cross_location
	} {
		e.order(t, a.APIKey, "", body).WantStatus(t, http.StatusCreated, "")
	}
	// A deleted snapshot builds nothing.
	e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/snapshots/%d", small.ID), Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
	e.order(t, a.APIKey, "", fmt.Sprintf(`{"server_id": 102, "snapshot_id": %d, "term": "hourly"}`, small.ID)).
		WantStatus(t, http.StatusConflict, "snapshot_unavailable")
}
