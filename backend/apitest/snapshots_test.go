package apitest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// TestSnapshotLifecycle follows one snapshot from creating to available: the server stays
// online, the size and price come from the image, and the first hour is accrued.
func TestSnapshotLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.SnapshotDelay = 10 * time.Minute })
	a := e.funded(t, 1_000_000)
	id := e.deployed(t, a.APIKey, `{"server_id": 101, "template_id": 3, "term": "hourly", "active_features": ["2", "3"]}`)

	r := e.snap(t, a.APIKey, id, `{"name": "before upgrade"}`)
	r.WantStatus(t, http.StatusAccepted, "")
	var created api.SnapshotView
	r.Data(t, &created)
	if created.Name != "before upgrade" || created.Status != "creating" || created.SizeGB != nil || created.Price != nil ||
		created.Accrued != nil || created.RenewalDue != nil || *created.InstanceID != id || created.Term != "hourly" {
		t.Fatalf("new snapshot = %s", r.Raw)
	}
	if evs := e.events(t, a.ID); evs[len(evs)-1].Name != "snapshot.created" ||
		string(evs[len(evs)-1].Data) != fmt.Sprintf(`{"snapshot_id":%d,"instance_id":%d}`, created.ID, id) {
		t.Fatalf("last event %s %s, want snapshot.created", evs[len(evs)-1].Name, evs[len(evs)-1].Data)
	}
	if in := e.getInstance(t, a.APIKey, id); *in.Status != "online" {
		t.Fatalf("instance is %s while the snapshot is taken, want online", *in.Status)
	}

	e.runDue(t) // starts the image
	e.clock.Advance(9 * time.Minute)
	e.runDue(t)
	if v := e.getSnapshot(t, a.APIKey, created.ID); v.Status != "creating" {
		t.Fatalf("snapshot is %s before the image is ready, want creating", v.Status)
	}
	e.clock.Advance(time.Minute)
	v := e.getSnapshot(t, a.APIKey, created.ID) // polling moves it on (spec: the trigger of available)
	// 101 has 25 GB; the image holds 40 % of it, rounded up: 10 GB. 0.02 USD/GB-month × 10 GB /
	// 730 h = 273.97 micro-USD, rounded half up: 0.000274 per hour; × 730 = 0.20002 a month.
	if v.Status != "available" || *v.SizeGB != 10 || dollars(*v.Price) != 0.000274 || dollars(*v.PriceMonthly) != 0.20002 ||
		dollars(*v.Accrued) != 0.000274 || dollars(*v.PaidAmount) != 0 || *v.AvailableAt != "2025-06-01T10:10:00Z" ||
		*v.RenewalDue != "2025-06-01T11:10:00Z" {
		t.Fatalf("available snapshot = %+v", v)
	}
	if *v.DatacenterID != 1 || *v.LocationID != 11 || *v.TemplateID != 3 || *v.ServerProductID != 101 || *v.OSType != "linux" ||
		v.Architecture == nil || *v.Architecture != "x86_64" || v.Local || !v.Restore || v.Locked || v.LockReason != nil || *v.CreatedAt != "2025-06-01T10:00:00Z" {
		t.Fatalf("snapshot source fields = %+v", v)
	}
	var en api.SnapshotView
	e.do(t, request{Path: fmt.Sprintf("/snapshots/%d?lang=en", v.ID), Key: a.APIKey}).Data(t, &en)
	if !slices.Equal(en.Features, []string{"Automatic backups", "Extra IPv6 addresses"}) || *en.SourceName != *e.getInstance(t, a.APIKey, id).Hostname {
		t.Fatalf("features %v source %v, want the instance's feature names and name", en.Features, *en.SourceName)
	}
	e.wantReconciled(t, a.ID)
}

func TestSnapshotDefaultName(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 1_000_000)
	id := e.deployed(t, a.APIKey, `{"server_id": 101, "template_id": 1, "term": "hourly", "hostname": "web-1"}`)
	if v := e.snapped(t, a.APIKey, id); v.Name != "web-1 2025-06-01 10:00:00" {
		t.Fatalf("default name = %q, want the instance's name and the time", v.Name)
	}
	long := strings.Repeat("ن", 64)
	e.do(t, request{Method: http.MethodPatch, Path: fmt.Sprintf("/instances/%d", id), Key: a.APIKey,
		Body: `{"name": "` + long + `"}`}).WantStatus(t, http.StatusOK, "")
	v := e.snapped(t, a.APIKey, id)
	if want := strings.Repeat("ن", 44) + " 2025-06-01 10:00:00"; v.Name != want {
		t.Fatalf("default name of a long instance name = %q, want %q (64 characters)", v.Name, want)
	}
}

func TestSnapshotRequestErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 1_000_000)
	other := e.funded(t, 1_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	s := e.available(t, a.APIKey, id)
	theirs := e.deployed(t, other.APIKey, ubuntuOn101)
	tests := []struct {
		name   string
		req    request
		status int
		code   string
		field  string
	}{
		{"empty name", request{Method: http.MethodPost, Path: fmt.Sprintf("/instances/%d/snapshots", id), Body: `{"name": ""}`}, 400, "validation_error", "name"},
		{"long name", request{Method: http.MethodPost, Path: fmt.Sprintf("/instances/%d/snapshots", id), Body: `{"name": "` + strings.Repeat("x", 65) + `"}`}, 400, "validation_error", "name"},
		{"name not a string", request{Method: http.MethodPost, Path: fmt.Sprintf("/instances/%d/snapshots", id), Body: `{"name": 5}`}, 400, "validation_error", "name"},
		{"unknown field", request{Method: http.MethodPost, Path: fmt.Sprintf("/instances/%d/snapshots", id), Body: `{"label": "x"}`}, 400, "validation_error", "label"},
		{"bad instance id", request{Method: http.MethodPost, Path: "/instances/abc/snapshots"}, 400, "validation_error", "instance_id"},
		{"unknown instance", request{Method: http.MethodPost, Path: "/instances/999/snapshots"}, 404, "not_found", ""},
		{"another account's instance", request{Method: http.MethodPost, Path: fmt.Sprintf("/instances/%d/snapshots", theirs)}, 404, "not_found", ""},
		{"list of another account's instance", request{Path: fmt.Sprintf("/instances/%d/snapshots", theirs)}, 404, "not_found", ""},
		{"bad snapshot id", request{Path: "/snapshots/abc"}, 400, "validation_error", "snapshot_id"},
		{"unknown snapshot", request{Path: "/snapshots/999"}, 404, "not_found", ""},
		{"bad include_inactive", request{Path: "/snapshots?include_inactive=maybe"}, 400, "validation_error", "include_inactive"},
		{"patch long note", request{Method: http.MethodPatch, Path: fmt.Sprintf("/snapshots/%d", s.ID), Body: `{"note": "` + strings.Repeat("x", 513) + `"}`}, 400, "validation_error", "note"},
		{"patch empty name", request{Method: http.MethodPatch, Path: fmt.Sprintf("/snapshots/%d", s.ID), Body: `{"name": " "}`}, 400, "validation_error", "name"},
		{"patch unknown field", request{Method: http.MethodPatch, Path: fmt.Sprintf("/snapshots/%d", s.ID), Body: `{"status": "deleted"}`}, 400, "validation_error", "status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Key = a.APIKey
			r := e.do(t, tt.req)
			r.WantStatus(t, tt.status, tt.code)
			if tt.field != "" {
				r.WantMessage(t, tt.field)
			}
		})
	}
	// Every route on another account's snapshot is 404, never 403.
	for _, req := range []request{
		{Path: fmt.Sprintf("/snapshots/%d", s.ID)},
		{Method: http.MethodPatch, Path: fmt.Sprintf("/snapshots/%d", s.ID), Body: `{"note": "x"}`},
		{Method: http.MethodDelete, Path: fmt.Sprintf("/snapshots/%d", s.ID)},
		{Method: http.MethodPost, Path: fmt.Sprintf("/snapshots/%d/restore", s.ID)},
	} {
		req.Key = other.APIKey
		e.do(t, req).WantStatus(t, http.StatusNotFound, "not_found")
	}
	if list := e.listSnapshots(t, other.APIKey, "?include_inactive=true"); len(list) != 0 {
		t.Fatalf("another account lists %d snapshots, want none", len(list))
	}
	if got := e.getSnapshot(t, a.APIKey, s.ID); got.Status != "available" || got.Note != nil {
		t.Fatalf("the other account changed the snapshot: %+v", got)
	}
}

func TestSnapshotCapLocksAndFunds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	a := e.funded(t, 1_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	var ids []int64
	for range 3 { // datacenter 1 keeps 3 per instance
		ids = append(ids, e.snapped(t, a.APIKey, id).ID)
	}
	r := e.snap(t, a.APIKey, id, "")
	r.WantStatus(t, http.StatusConflict, "snapshot_limit_reached")
	r.WantMessage(t, "3")
	e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/snapshots/%d", ids[0]), Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
	e.snapped(t, a.APIKey, id) // a deleted snapshot does not count

	if err := e.srv.LockInstance(ctx, id, "abuse"); err != nil {
		t.Fatal(err)
	}
	e.snap(t, a.APIKey, id, "").WantStatus(t, http.StatusConflict, "instance_locked")

	poor := e.funded(t, 4_500) // the 0.004 order leaves 0.0005; an hour of 25 GB costs 0.000685
	cheap := e.deployed(t, poor.APIKey, ubuntuOn101)
	e.snap(t, poor.APIKey, cheap, "").WantStatus(t, http.StatusPaymentRequired, "insufficient_balance")

	kyc := e.funded(t, 10_000_000)
	if err := e.srv.SetKYCVerified(ctx, kyc.ID, true); err != nil {
		t.Fatal(err)
	}
	dubai := e.deployed(t, kyc.APIKey, `{"server_id": 401, "template_id": 1, "term": "hourly"}`)
	if err := e.srv.SetKYCVerified(ctx, kyc.ID, false); err != nil {
		t.Fatal(err)
	}
	e.snap(t, kyc.APIKey, dubai, "").WantStatus(t, http.StatusForbidden, "forbidden")
}

func TestSnapshotPatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 1_000_000)
	s := e.available(t, a.APIKey, e.deployed(t, a.APIKey, ubuntuOn101))
	patch := func(body string) api.SnapshotView {
		t.Helper()
		r := e.do(t, request{Method: http.MethodPatch, Path: fmt.Sprintf("/snapshots/%d", s.ID), Key: a.APIKey, Body: body})
		r.WantStatus(t, http.StatusOK, "")
		var v api.SnapshotView
		r.Data(t, &v)
		return v
	}
	if v := patch(`{"name": "golden", "note": "base image"}`); v.Name != "golden" || *v.Note != "base image" {
		t.Fatalf("after rename: %+v", v)
	}
	if v := patch(`{"name": null, "note": null}`); v.Name != "golden" || *v.Note != "base image" {
		t.Fatalf("null changed something: %+v", v)
	}
	if v := patch(`{"note": ""}`); v.Name != "golden" || v.Note != nil {
		t.Fatalf("empty note did not clear: %+v", v)
	}
	if v := e.getSnapshot(t, a.APIKey, s.ID); v.Name != "golden" || v.Note != nil {
		t.Fatalf("stored: %+v", v)
	}
}

func TestSnapshotListAndDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 1_000_000)
	tehran := e.deployed(t, a.APIKey, ubuntuOn101)
	first := e.available(t, a.APIKey, tehran)
	e.clock.Advance(time.Minute)
	second := e.available(t, a.APIKey, tehran)
	if got := snapshotIDs(e.listSnapshots(t, a.APIKey, "")); !slices.Equal(got, []int64{second.ID, first.ID}) {
		t.Fatalf("list = %v, want newest first", got)
	}

	r := e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/snapshots/%d", first.ID), Key: a.APIKey})
	r.WantStatus(t, http.StatusOK, "")
	var deleted api.SnapshotView
	r.Data(t, &deleted)
	if deleted.Status != "deleted" || *deleted.ExpiredAt != "2025-06-01T10:01:00Z" || deleted.RenewalDue != nil || dollars(*deleted.Accrued) != 0 {
		t.Fatalf("deleted snapshot = %s", r.Raw)
	}
	if evs := e.events(t, a.ID); evs[len(evs)-1].Name != "snapshot.deleted" ||
		string(evs[len(evs)-1].Data) != fmt.Sprintf(`{"snapshot_id":%d}`, first.ID) {
		t.Fatalf("last event %s %s, want snapshot.deleted", evs[len(evs)-1].Name, evs[len(evs)-1].Data)
	}
	again := e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/snapshots/%d", first.ID), Key: a.APIKey})
	again.WantStatus(t, http.StatusOK, "")
	if evs := e.events(t, a.ID); evs[len(evs)-2].Name == "snapshot.deleted" {
		t.Fatal("a repeated DELETE emitted snapshot.deleted again")
	}
	if got := snapshotIDs(e.listSnapshots(t, a.APIKey, "")); !slices.Equal(got, []int64{second.ID}) {
		t.Fatalf("list = %v, want the deleted one left out", got)
	}
	if got := snapshotIDs(e.listSnapshots(t, a.APIKey, "?include_inactive=true")); !slices.Equal(got, []int64{second.ID, first.ID}) {
		t.Fatalf("list with include_inactive = %v, want both", got)
	}

	// Billing stops at once: a day later only the second one has been charged more.
	e.clock.Advance(24 * time.Hour)
	e.runDue(t)
	if v := e.getSnapshot(t, a.APIKey, first.ID); dollars(*v.PaidAmount) != 0 || dollars(*v.Accrued) != 0 {
		t.Fatalf("deleted snapshot kept accruing: %+v", v)
	}
	if v := e.getSnapshot(t, a.APIKey, second.ID); dollars(*v.PaidAmount) == 0 {
		t.Fatalf("the remaining snapshot was not charged: %+v", v)
	}
	if st := e.storedSnapshot(t, first.ID); !st.ImageGone {
		t.Fatal("the deleted snapshot's image was not deleted at the datacenter")
	}

	// A snapshot whose instance is gone keeps appearing (and billing), with instance_id null.
	e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/instances/%d", tehran), Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
	list := e.listSnapshots(t, a.APIKey, "")
	if len(list) != 1 || list[0].ID != second.ID || list[0].InstanceID != nil || list[0].Status != "available" || list[0].Local {
		t.Fatalf("after the instance was canceled: %+v, want the snapshot with instance_id null", list)
	}
	e.wantReconciled(t, a.ID)
}

func TestLocalSnapshotsGoWithTheirInstance(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	frankfurt := e.deployed(t, a.APIKey, `{"server_id": 201, "template_id": 1, "term": "hourly"}`)
	local := e.available(t, a.APIKey, frankfurt)
	pending := e.snapped(t, a.APIKey, frankfurt)
	if !local.Local || local.Restore != true {
		t.Fatalf("a Frankfurt snapshot: local %v restore %v, want both", local.Local, local.Restore)
	}
	e.clock.Advance(30 * time.Minute)
	e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/instances/%d", frankfurt), Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
	if list := e.listSnapshots(t, a.APIKey, ""); len(list) != 0 {
		t.Fatalf("local snapshots listed after their instance was canceled: %+v", list)
	}
	for _, id := range []int64{local.ID, pending.ID} {
		v := e.getSnapshot(t, a.APIKey, id)
		if v.Status != "expired" || *v.ExpiredAt != "2025-06-01T10:30:00Z" || v.RenewalDue != nil {
			t.Fatalf("local snapshot after its instance went: %+v, want expired", v)
		}
	}
	paid := dollars(*e.getSnapshot(t, a.APIKey, local.ID).PaidAmount)
	e.clock.Advance(10 * time.Hour)
	e.runDue(t)
	if v := e.getSnapshot(t, a.APIKey, local.ID); dollars(*v.PaidAmount) != paid {
		t.Fatalf("an expired snapshot was charged: %v, was %v", dollars(*v.PaidAmount), paid)
	}
	if st := e.storedSnapshot(t, local.ID); !st.ImageGone {
		t.Fatal("the expired snapshot's image was not deleted")
	}
}

func TestInstanceSnapshotsSettings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	tehran := e.deployed(t, a.APIKey, ubuntuOn101)
	other := e.deployed(t, a.APIKey, ubuntuOn101)
	s := e.snapped(t, a.APIKey, tehran)
	e.snapped(t, a.APIKey, other)
	r := e.do(t, request{Path: fmt.Sprintf("/instances/%d/snapshots", tehran), Key: a.APIKey})
	r.WantStatus(t, http.StatusOK, "")
	var list []api.SnapshotView
	r.Data(t, &list)
	if len(list) != 1 || list[0].ID != s.ID {
		t.Fatalf("instance snapshots = %+v, want only this instance's", list)
	}
	want := `"meta":{"settings":{"price_per_gb_month":0.02,"term":"hourly","term_hours":1,"max_per_instance":3,` +
		`"cross_location":true,"restore":true,"local":false,"hours_per_month":730}}`
	if !strings.Contains(string(r.Raw), want) {
		t.Fatalf("meta = %s, want %s", r.Raw, want)
	}
	frankfurt := e.deployed(t, a.APIKey, `{"server_id": 201, "template_id": 1, "term": "hourly"}`)
	r = e.do(t, request{Path: fmt.Sprintf("/instances/%d/snapshots", frankfurt), Key: a.APIKey})
	if !strings.Contains(string(r.Raw), `"max_per_instance":5,"cross_location":false,"restore":true,"local":true`) {
		t.Fatalf("Frankfurt settings = %s", r.Raw)
	}
}

// TestRestore puts a snapshot back: the instance is powered off, keeps its addresses, and gets
// the snapshot's disk and credentials; the snapshot is restoring and then available again.
func TestRestore(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.CredentialsDelay = time.Minute })
	a := e.funded(t, 1_000_000)
	id := e.deployed(t, a.APIKey, `{"server_id": 101, "template_id": 1, "term": "hourly", "apps": ["docker"]}`)
	e.clock.Advance(time.Minute) // credentials delivered
	before := e.getInstance(t, a.APIKey, id)
	s := e.available(t, a.APIKey, id)

	e.act(t, a.APIKey, id, `{"action": "rebuild", "template_id": 3}`)
	e.clock.Advance(time.Minute)
	e.act(t, a.APIKey, id, `{"action": "reset_password"}`)
	changed := e.getInstance(t, a.APIKey, id)
	if *changed.Credentials.Password == *before.Credentials.Password || changed.Template.ID != 3 {
		t.Fatal("the instance did not change after the snapshot")
	}

	r := e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/snapshots/%d/restore", s.ID), Key: a.APIKey})
	r.WantStatus(t, http.StatusOK, "")
	var restoring api.SnapshotView
	r.Data(t, &restoring)
	if restoring.Status != "restoring" {
		t.Fatalf("restored snapshot = %s, want restoring", r.Raw)
	}
	in := e.getInstance(t, a.APIKey, id)
	if *in.Status != "restoring" || !in.Credentials.Pending || in.Credentials.Password != nil {
		t.Fatalf("instance during the restore: status %s, credentials %+v", *in.Status, in.Credentials)
	}
	if evs := e.events(t, a.ID); evs[len(evs)-1].Name != "snapshot.restored" ||
		string(evs[len(evs)-1].Data) != fmt.Sprintf(`{"snapshot_id":%d,"instance_id":%d}`, s.ID, id) {
		t.Fatalf("last event %s %s, want snapshot.restored", evs[len(evs)-1].Name, evs[len(evs)-1].Data)
	}
	e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/snapshots/%d", s.ID), Key: a.APIKey}).
		WantStatus(t, http.StatusConflict, "snapshot_unavailable")
	e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/snapshots/%d/restore", s.ID), Key: a.APIKey}).
		WantStatus(t, http.StatusConflict, "snapshot_unavailable")

	e.clock.Advance(time.Minute)
	e.runDue(t)
	in = e.getInstance(t, a.APIKey, id)
	if *in.Status != "offline" || *in.IPv4 != *before.IPv4 || *in.IPv6 != *before.IPv6 || in.Credentials.Pending ||
		*in.Credentials.Password != *before.Credentials.Password || in.Template.ID != 1 || len(in.Apps) != 0 {
		t.Fatalf("instance after the restore: status %s ipv4 %s template %d apps %v credentials %+v; want offline, same address, the snapshot's password and OS",
			*in.Status, *in.IPv4, in.Template.ID, in.Apps, in.Credentials)
	}
	if v := e.getSnapshot(t, a.APIKey, s.ID); v.Status != "available" {
		t.Fatalf("snapshot after the restore is %s, want available", v.Status)
	}
	e.act(t, a.APIKey, id, `{"action": "power_on"}`)
}

func TestRestoreRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.SnapshotDelay = time.Hour })
	ctx := context.Background()
	a := e.funded(t, 10_000_000)
	if err := e.srv.SetKYCVerified(ctx, a.ID, true); err != nil {
		t.Fatal(err)
	}
	restore := func(id int64) response {
		return e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/snapshots/%d/restore", id), Key: a.APIKey})
	}
	tehran := e.deployed(t, a.APIKey, ubuntuOn101)
	creating := e.snapped(t, a.APIKey, tehran)
	e.runDue(t) // starts the image, ready in an hour
	restore(creating.ID).WantStatus(t, http.StatusConflict, "snapshot_unavailable")

	e.clock.Advance(time.Hour)
	e.runDue(t)
	if err := e.srv.LockInstance(ctx, tehran, "abuse"); err != nil {
		t.Fatal(err)
	}
	restore(creating.ID).WantStatus(t, http.StatusConflict, "instance_locked")
	if err := e.srv.UnlockInstance(ctx, tehran); err != nil {
		t.Fatal(err)
	}
	e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/instances/%d", tehran), Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
	restore(creating.ID).WantStatus(t, http.StatusNotFound, "not_found") // the source instance is gone

	dubai := e.deployed(t, a.APIKey, `{"server_id": 401, "template_id": 1, "term": "hourly"}`)
	cloneOnly := e.snapped(t, a.APIKey, dubai)
	e.runDue(t)
	e.clock.Advance(time.Hour)
	e.runDue(t)
	if v := e.getSnapshot(t, a.APIKey, cloneOnly.ID); v.Restore || v.Status != "available" {
		t.Fatalf("Dubai snapshot: %+v, want available with restore false", v)
	}
	restore(cloneOnly.ID).WantStatus(t, http.StatusConflict, "restore_unsupported")
}

// TestRestoreProviderError: a datacenter failure is 502 with a reference and changes nothing.
func TestRestoreProviderError(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 1_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	s := e.available(t, a.APIKey, id)
	if err := e.srv.SetFailRate(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	r := e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/snapshots/%d/restore", s.ID), Key: a.APIKey})
	r.WantStatus(t, http.StatusBadGateway, "provider_error")
	if r.Body.Error.Reference == nil || *r.Body.Error.Reference == "" {
		t.Fatalf("502 without a reference: %s", r.Raw)
	}
	if v := e.getSnapshot(t, a.APIKey, s.ID); v.Status != "available" {
		t.Fatalf("snapshot is %s after a failed restore, want available", v.Status)
	}
	if in := e.getInstance(t, a.APIKey, id); *in.Status != "online" {
		t.Fatalf("instance is %s after a failed restore, want online", *in.Status)
	}
}

// TestSnapshotFails: with the fail rate the image fails; the snapshot is failed, never billed,
// and listed only with include_inactive.
func TestSnapshotFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 1_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	if err := e.srv.SetFailRate(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	s := e.snapped(t, a.APIKey, id)
	e.runDue(t)
	v := e.getSnapshot(t, a.APIKey, s.ID)
	if v.Status != "failed" || v.SizeGB != nil || v.Price != nil || v.ExpiredAt == nil || dollars(*v.PaidAmount) != 0 {
		t.Fatalf("failed snapshot = %+v", v)
	}
	if len(e.listSnapshots(t, a.APIKey, "")) != 0 || len(e.listSnapshots(t, a.APIKey, "?include_inactive=true")) != 1 {
		t.Fatal("a failed snapshot is listed without include_inactive, or not with it")
	}
	e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/snapshots/%d", s.ID), Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
	if v := e.getSnapshot(t, a.APIKey, s.ID); v.Status != "failed" {
		t.Fatalf("DELETE of a failed snapshot changed it to %s", v.Status)
	}
}

// TestSnapshotAccrual charges a tiny hourly price only once the accrued amount reaches 0.001
// USD, exactly, and carries what accrues below it.
func TestSnapshotAccrual(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 1_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	s := e.available(t, a.APIKey, id) // 0.000274 per hour, the first hour accrued at 10:00
	if b := e.balance(t, a.APIKey); *b.HoursUntilBalanceZero != 233.03 {
		t.Fatalf("hours until zero = %v, want 0.996 / (0.004 + 0.000274) = 233.03: snapshots renew too", *b.HoursUntilBalanceZero)
	}
	type state struct {
		accrued, paid float64
		due           string
	}
	want := []state{
		{0.000548, 0, "2025-06-01T12:00:00Z"},        // 11:00
		{0.000822, 0, "2025-06-01T13:00:00Z"},        // 12:00
		{0, 0.001096, "2025-06-01T14:00:00Z"},        // 13:00: 0.001096 reaches the threshold
		{0.000274, 0.001096, "2025-06-01T15:00:00Z"}, // 14:00
		{0.000548, 0.001096, "2025-06-01T16:00:00Z"},
		{0.000822, 0.001096, "2025-06-01T17:00:00Z"},
		{0, 0.002192, "2025-06-01T18:00:00Z"},
	}
	for i, w := range want {
		e.clock.Advance(time.Hour)
		e.runDue(t)
		v := e.getSnapshot(t, a.APIKey, s.ID)
		if dollars(*v.Accrued) != w.accrued || dollars(*v.PaidAmount) != w.paid || *v.RenewalDue != w.due {
			t.Fatalf("hour %d: accrued %v paid %v due %s, want %+v", i+1, dollars(*v.Accrued), dollars(*v.PaidAmount), *v.RenewalDue, w)
		}
	}
	charged, entries := e.ledgerOf(t, a.ID, store.LedgerSnapshot)
	if charged != 2_192 || len(entries) != 2 || entries[0].Amount != -1_096 ||
		entries[0].Reference != fmt.Sprintf("snapshot:%d:2025-06-01T13:00:00Z", s.ID) {
		t.Fatalf("snapshot ledger = %+v, want two charges of 0.001096", entries)
	}
	// A backend that was down catches up hour by hour: 18:00 to 23:00, one more charge at 21:00.
	e.clock.Advance(6 * time.Hour)
	e.runDue(t)
	if v := e.getSnapshot(t, a.APIKey, s.ID); dollars(*v.PaidAmount) != 0.003288 || dollars(*v.Accrued) != 0.000548 || *v.RenewalDue != "2025-06-02T00:00:00Z" {
		t.Fatalf("after catching up: %+v", v)
	}
	e.wantReconciled(t, a.ID)
}

// TestSnapshotUnpaid: a charge the balance cannot cover is booked as debt and locks the snapshot
// (unpaid), which then can be neither restored nor cloned; a top-up pays it and unlocks it.
func TestSnapshotUnpaid(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 6_000) // the 0.004 order, then 0.002 for the rest
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	s := e.available(t, a.APIKey, id)
	e.clock.Advance(3 * time.Hour) // 11:00 the instance's hour makes debt; 13:00 the snapshot's 0.001096 too
	e.runDue(t)
	v := e.getSnapshot(t, a.APIKey, s.ID)
	if !v.Locked || *v.LockReason != "unpaid" || dollars(*v.PaidAmount) != 0.001096 {
		t.Fatalf("snapshot after a short charge: %+v, want locked unpaid with the charge counted", v)
	}
	if b := e.balance(t, a.APIKey); dollars(b.Balance) != 0 || dollars(b.Debt) != 0.011096 {
		t.Fatalf("wallet = %+v, want balance 0, debt 0.002 + 0.004 × 2 + 0.001096", b)
	}
	e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/snapshots/%d/restore", s.ID), Key: a.APIKey}).
		WantStatus(t, http.StatusConflict, "snapshot_locked")
	e.order(t, a.APIKey, "", fmt.Sprintf(`{"server_id": 102, "snapshot_id": %d, "term": "hourly"}`, s.ID)).
		WantStatus(t, http.StatusConflict, "snapshot_locked")

	if err := e.srv.TopUp(context.Background(), a.ID, 1_000_000, "card"); err != nil {
		t.Fatal(err)
	}
	if v := e.getSnapshot(t, a.APIKey, s.ID); v.Locked || v.LockReason != nil {
		t.Fatalf("snapshot still locked after the debt was paid: %+v", v)
	}
	e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/snapshots/%d/restore", s.ID), Key: a.APIKey}).
		WantStatus(t, http.StatusOK, "")
	e.wantReconciled(t, a.ID)
}

// TestSnapshotUnpaidExpires: a snapshot left unpaid for 72 hours expires and stops billing.
func TestSnapshotUnpaidExpires(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 4_700) // the order, and 0.0007: enough to take the snapshot
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	s := e.available(t, a.APIKey, id)
	e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/instances/%d", id), Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
	e.clock.Advance(3 * time.Hour) // 13:00: 0.001096, 0.000396 of it debt, locked as of 13:00
	e.runDue(t)
	if v := e.getSnapshot(t, a.APIKey, s.ID); !v.Locked || v.Status != "available" {
		t.Fatalf("snapshot = %+v, want available and locked", v)
	}
	e.clock.Advance(71 * time.Hour)
	e.runDue(t)
	if v := e.getSnapshot(t, a.APIKey, s.ID); v.Status != "available" {
		t.Fatalf("snapshot expired before 72 hours: %+v", v)
	}
	e.clock.Advance(time.Hour)
	e.runDue(t)
	v := e.getSnapshot(t, a.APIKey, s.ID)
	if v.Status != "expired" || *v.ExpiredAt != "2025-06-04T13:00:00Z" || v.RenewalDue != nil {
		t.Fatalf("after 72 hours unpaid: %+v, want expired at 13:00 three days later", v)
	}
	charged, _ := e.ledgerOf(t, a.ID, store.LedgerSnapshot)
	if dollars(*v.PaidAmount) != float64(charged)/1e6 {
		t.Fatalf("paid_amount %v, ledger %v", dollars(*v.PaidAmount), charged)
	}
	e.wantReconciled(t, a.ID)
}

// TestLockSnapshotHook: the operator hook locks a snapshot as an unpaid charge would, without
// running billing into debt. Restoring it and building a server from it then answer 409
// snapshot_locked (reads and renames still work); a top-up lifts an unpaid lock, not one for
// another reason, and UnlockSnapshot lifts any.
func TestLockSnapshotHook(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	s := e.available(t, a.APIKey, id)
	restorePath := fmt.Sprintf("/snapshots/%d/restore", s.ID)
	clone := fmt.Sprintf(`{"server_id": 102, "snapshot_id": %d, "term": "hourly"}`, s.ID)
	refused := func(words ...string) {
		t.Helper()
		r := e.do(t, request{Method: http.MethodPost, Path: restorePath, Key: a.APIKey})
		r.WantStatus(t, http.StatusConflict, "snapshot_locked")
		r.WantMessage(t, words...)
		r = e.order(t, a.APIKey, "", clone)
		r.WantStatus(t, http.StatusConflict, "snapshot_locked")
		r.WantMessage(t, words...)
	}

	if err := e.srv.LockSnapshot(ctx, s.ID, store.LockUnpaid); err != nil {
		t.Fatal(err)
	}
	if v := e.getSnapshot(t, a.APIKey, s.ID); !v.Locked || v.LockReason == nil || *v.LockReason != "unpaid" || v.Status != "available" {
		t.Fatalf("snapshot after LockSnapshot: %+v, want available and locked unpaid", v)
	}
	refused("locked (unpaid)", "top up the wallet")
	e.do(t, request{Method: http.MethodPatch, Path: fmt.Sprintf("/snapshots/%d", s.ID), Key: a.APIKey, Body: `{"name": "held"}`}).
		WantStatus(t, http.StatusOK, "")
	var orders []api.OrderView
	e.do(t, request{Path: "/orders", Key: a.APIKey}).Data(t, &orders)
	if len(orders) != 1 {
		t.Fatalf("orders after a refused clone: %d, want only the source server's", len(orders))
	}
	// Like a real unpaid lock, it is lifted by a top-up once nothing is owed.
	if err := e.srv.TopUp(ctx, a.ID, 1_000, "card"); err != nil {
		t.Fatal(err)
	}
	if v := e.getSnapshot(t, a.APIKey, s.ID); v.Locked || v.LockReason != nil {
		t.Fatalf("unpaid lock after a top-up: %+v, want unlocked", v)
	}

	// A lock for another reason is not the wallet's to lift.
	if err := e.srv.LockSnapshot(ctx, s.ID, "abuse"); err != nil {
		t.Fatal(err)
	}
	refused("locked (abuse)", "contact support")
	if err := e.srv.TopUp(ctx, a.ID, 1_000, "card"); err != nil {
		t.Fatal(err)
	}
	if v := e.getSnapshot(t, a.APIKey, s.ID); !v.Locked || *v.LockReason != "abuse" {
		t.Fatalf("abuse lock after a top-up: %+v, want it kept", v)
	}
	if err := e.srv.UnlockSnapshot(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if v := e.getSnapshot(t, a.APIKey, s.ID); v.Locked || v.LockReason != nil {
		t.Fatalf("snapshot after UnlockSnapshot: %+v, want unlocked", v)
	}
	e.placed(t, a.APIKey, clone)
	e.do(t, request{Method: http.MethodPost, Path: restorePath, Key: a.APIKey}).WantStatus(t, http.StatusOK, "")

	if err := e.srv.LockSnapshot(ctx, s.ID, ""); err == nil {
		t.Fatal("locking without a reason: got nil error")
	}
	if err := e.srv.LockSnapshot(ctx, 99999, store.LockUnpaid); err == nil {
		t.Fatal("locking an unknown snapshot: got nil error")
	}
	gone := e.available(t, a.APIKey, e.deployed(t, a.APIKey, ubuntuOn101))
	e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/snapshots/%d", gone.ID), Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
	if err := e.srv.LockSnapshot(ctx, gone.ID, store.LockUnpaid); err == nil {
		t.Fatal("locking a deleted snapshot: got nil error")
	}
	e.wantReconciled(t, a.ID)
}
