package apitest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

func TestInstanceList(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	var ids []int64
	for range 3 {
		ids = append(ids, e.deployed(t, a.APIKey, ubuntuOn101))
		e.clock.Advance(time.Minute)
	}
	e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/instances/%d", ids[1]), Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
	tests := []struct {
		query     string
		want      []int64
		wantTotal int64 // -1: no meta.page
	}{
		{"", []int64{ids[2], ids[0]}, -1},
		{"?only_active=true", []int64{ids[2], ids[0]}, -1},
		{"?only_active=false", []int64{ids[2], ids[1], ids[0]}, -1},
		{"?only_active=false&limit=2&offset=1", []int64{ids[1], ids[0]}, 3},
		{"?limit=1", []int64{ids[2]}, 2},
		{"?limit=5&offset=5", []int64{}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := e.do(t, request{Path: "/instances" + tt.query, Key: a.APIKey})
			r.WantStatus(t, http.StatusOK, "")
			var list []api.InstanceDetailView
			r.Data(t, &list)
			got := []int64{}
			for _, in := range list {
				got = append(got, in.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v (newest first)", got, tt.want)
			}
			hasPage := r.Body.Meta != nil && r.Body.Meta.Page != nil
			if (tt.wantTotal >= 0) != hasPage || (hasPage && int64(r.Body.Meta.Page.Total) != tt.wantTotal) {
				t.Fatalf("meta = %s, want total %d", r.Raw, tt.wantTotal)
			}
		})
	}
	for _, bad := range []string{"?only_active=maybe", "?only_active=", "?limit=0", "?offset=-1"} {
		t.Run(bad, func(t *testing.T) {
			r := e.do(t, request{Path: "/instances" + bad, Key: a.APIKey})
			r.WantStatus(t, http.StatusBadRequest, "validation_error")
			r.WantMessage(t, strings.Split(strings.TrimPrefix(bad, "?"), "=")[0])
		})
	}
	var other []api.InstanceDetailView
	e.do(t, request{Path: "/instances?only_active=false", Key: e.funded(t, 0).APIKey}).Data(t, &other)
	if len(other) != 0 {
		t.Fatalf("another account lists %d instances, want none", len(other))
	}
}

func TestInstanceDetail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, `{"server_id": 102, "template_id": 5, "term": "hourly", "active_features": ["2"], "hostname": "win.example.com"}`)
	r := e.do(t, request{Path: fmt.Sprintf("/instances/%d?lang=en", id), Key: a.APIKey})
	r.WantStatus(t, http.StatusOK, "")
	var in api.InstanceDetailView
	r.Data(t, &in)
	if in.Name != "win.example.com" || *in.Hostname != "win.example.com" || *in.Status != "online" || !in.Active ||
		*in.Term != "hourly" || !in.Renew || in.Locked || in.LockReason != nil || in.ExpiredAt != nil ||
		*in.CreatedAt != "2025-06-01T10:00:00Z" || *in.RenewalDue != "2025-06-01T11:00:00Z" ||
		*in.DatacenterID != 1 || *in.LocationID != 11 || *in.TemplateID != 5 || !in.Snapshots || in.Note != nil {
		t.Fatalf("summary fields: %s", r.Raw)
	}
	if dollars(*in.Costs) != 0.0024 || dollars(in.Recurring) != 0.0104 || dollars(*in.PaidAmount) != 0.0104 || dollars(in.IPChangeCost) != 0 ||
		!slices.Equal(in.ActiveFeatures, []string{"2", "1"}) || len(in.Actions) != 9 {
		t.Fatalf("money fields: costs %v recurring %v paid %v ip %v features %v actions %v",
			dollars(*in.Costs), dollars(in.Recurring), dollars(*in.PaidAmount), dollars(in.IPChangeCost), in.ActiveFeatures, in.Actions)
	}
	sp := in.ServerProduct
	if sp == nil || sp.ID != 102 || sp.Name != "Standard 2 - Tehran" || sp.CPU != 2 || sp.Memory != 2 || sp.Disk != 50 ||
		in.Template.ID != 5 || in.Template.OSType != "windows" || in.Location.ID != 11 || in.Datacenter.ID != 1 {
		t.Fatalf("detail objects: %s", r.Raw)
	}
	c := in.Credentials
	if c == nil || *c.Username != "Administrator" || *c.Port != 3389 || c.Pending || c.Password == nil || *c.IPv4 != *in.IPv4 || c.IPv6 == nil {
		t.Fatalf("credentials = %+v", c)
	}
	tr := in.Traffic
	if tr == nil || !tr.Enabled || tr.Included != 2000 || tr.Used != 0 || !tr.AllowOverage || *tr.CycleStartDate != "2025-06-01T10:00:00Z" {
		t.Fatalf("traffic = %+v", tr)
	}

	t.Run("refresh asks the datacenter", func(t *testing.T) {
		e.clock.Advance(5*time.Hour + 30*time.Minute)
		if got := e.getInstance(t, a.APIKey, id); got.Traffic.Used != 0 {
			t.Fatalf("without refresh used = %d, want the stored 0", got.Traffic.Used)
		}
		var got api.InstanceDetailView
		e.do(t, request{Path: fmt.Sprintf("/instances/%d?refresh=true", id), Key: a.APIKey}).Data(t, &got)
		if got.Traffic.Used != 5 {
			t.Fatalf("refreshed used = %d, want 5 GB after 5.5 hours", got.Traffic.Used)
		}
		var traffic api.TrafficView
		e.do(t, request{Path: fmt.Sprintf("/instances/%d/traffic", id), Key: a.APIKey}).Data(t, &traffic)
		if traffic.Used != 5 || traffic.Included != 2000 {
			t.Fatalf("traffic = %+v, want the stored 5 of 2000", traffic)
		}
		e.do(t, request{Path: fmt.Sprintf("/instances/%d?refresh=yes", id), Key: a.APIKey}).WantStatus(t, http.StatusBadRequest, "validation_error")
		e.do(t, request{Path: fmt.Sprintf("/instances/%d/traffic?refresh=1", id), Key: a.APIKey}).WantStatus(t, http.StatusBadRequest, "validation_error")
	})
	t.Run("unknown and malformed ids", func(t *testing.T) {
		e.do(t, request{Path: "/instances/99999", Key: a.APIKey}).WantStatus(t, http.StatusNotFound, "not_found")
		r := e.do(t, request{Path: "/instances/abc", Key: a.APIKey})
		r.WantStatus(t, http.StatusBadRequest, "validation_error")
		r.WantMessage(t, "instance_id")
	})
}

func TestTrafficCapLocks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	// Plan 105 includes 500 GB without overage; the simulator counts 1 GB an hour.
	id := e.deployed(t, a.APIKey, `{"server_id": 105, "template_id": 1, "term": "hourly"}`)
	e.clock.Advance(501 * time.Hour)
	e.runDue(t)
	var in api.InstanceDetailView
	e.do(t, request{Path: fmt.Sprintf("/instances/%d?refresh=true", id), Key: a.APIKey}).Data(t, &in)
	if !in.Locked || in.LockReason == nil || *in.LockReason != "traffic" || in.Traffic.Overage != 1 {
		t.Fatalf("over the allowance: locked %v (%v), overage %d; want locked for traffic, 1 GB over", in.Locked, in.LockReason, in.Traffic.Overage)
	}
	e.action(t, a.APIKey, id, `{"action": "reboot"}`).WantStatus(t, http.StatusConflict, "instance_locked")
	e.clock.Advance(720*time.Hour - 501*time.Hour) // a new 30-day cycle
	e.runDue(t)
	e.do(t, request{Path: fmt.Sprintf("/instances/%d?refresh=true", id), Key: a.APIKey}).Data(t, &in)
	if in.Locked || in.Traffic.Used != 0 {
		t.Fatalf("new cycle: locked %v used %d, want unlocked at 0", in.Locked, in.Traffic.Used)
	}
}

func TestPatchInstance(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	path := fmt.Sprintf("/instances/%d", id)
	persian := strings.Repeat("س", 64)
	tests := []struct {
		name      string
		body      string
		status    int
		field     string
		wantName  string
		wantNote  *string
		wantRenew bool
	}{
		{"rename", `{"name": "web-1"}`, 200, "", "web-1", nil, true},
		{"note", `{"note": "primary"}`, 200, "", "web-1", new("primary"), true},
		{"renew off", `{"renew": false}`, 200, "", "web-1", new("primary"), false},
		{"nulls change nothing", `{"name": null, "note": null, "renew": null}`, 200, "", "web-1", new("primary"), false},
		{"empty body changes nothing", `{}`, 200, "", "web-1", new("primary"), false},
		{"empty note clears it", `{"note": "", "renew": true}`, 200, "", "web-1", nil, true},
		{"64 Persian characters", `{"name": "` + persian + `"}`, 200, "", persian, nil, true},
		{"empty name", `{"name": ""}`, 400, "name", "", nil, false},
		{"blank name", `{"name": "   "}`, 400, "name", "", nil, false},
		{"name of 65", `{"name": "` + strings.Repeat("n", 65) + `"}`, 400, "name", "", nil, false},
		{"note of 513", `{"note": "` + strings.Repeat("n", 513) + `"}`, 400, "note", "", nil, false},
		{"renew not a boolean", `{"renew": "yes"}`, 400, "renew", "", nil, false},
		{"unknown field", `{"hostname": "x"}`, 400, "hostname", "", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, request{Method: http.MethodPatch, Path: path, Key: a.APIKey, Body: tt.body})
			if tt.status != 200 {
				r.WantStatus(t, tt.status, "validation_error")
				r.WantMessage(t, tt.field)
				return
			}
			r.WantStatus(t, http.StatusOK, "")
			var got api.InstanceDetailView
			r.Data(t, &got)
			if got.Name != tt.wantName || got.Renew != tt.wantRenew || (got.Note == nil) != (tt.wantNote == nil) ||
				(got.Note != nil && *got.Note != *tt.wantNote) {
				t.Fatalf("got name %q note %v renew %v", got.Name, got.Note, got.Renew)
			}
		})
	}
	t.Run("locked", func(t *testing.T) {
		if err := e.srv.LockInstance(context.Background(), id, "abuse"); err != nil {
			t.Fatal(err)
		}
		r := e.do(t, request{Method: http.MethodPatch, Path: path, Key: a.APIKey, Body: `{"name": "x"}`})
		r.WantStatus(t, http.StatusConflict, "instance_locked")
		r.WantMessage(t, "abuse")
		if got := e.getInstance(t, a.APIKey, id); !got.Locked || *got.LockReason != "abuse" {
			t.Fatalf("reads of a locked instance: locked %v %v", got.Locked, got.LockReason)
		}
		if err := e.srv.UnlockInstance(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		e.do(t, request{Method: http.MethodPatch, Path: path, Key: a.APIKey, Body: `{"name": "x"}`}).WantStatus(t, http.StatusOK, "")
	})
	t.Run("canceled", func(t *testing.T) {
		e.do(t, request{Method: http.MethodDelete, Path: path, Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
		e.do(t, request{Method: http.MethodPatch, Path: path, Key: a.APIKey, Body: `{"name": "x"}`}).WantStatus(t, http.StatusConflict, "instance_locked")
	})
}

func TestCancelInstance(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	path := fmt.Sprintf("/instances/%d", id)
	e.clock.Advance(10 * time.Minute)
	for i := range 2 {
		r := e.do(t, request{Method: http.MethodDelete, Path: path, Key: a.APIKey})
		r.WantStatus(t, http.StatusOK, "")
		var got api.CanceledInstanceView
		r.Data(t, &got)
		if got.ID != id || got.Status != "canceled" || got.Active {
			t.Fatalf("DELETE %d: %+v, want canceled and inactive", i+1, got)
		}
	}
	evs := e.events(t, a.ID)
	if names := eventNames(evs); !slices.Equal(names, []string{"order.deployed", "instance.canceled"}) {
		t.Fatalf("events = %v, want one instance.canceled", names)
	}
	var data map[string]any
	if err := json.Unmarshal(evs[1].Data, &data); err != nil {
		t.Fatal(err)
	}
	if data["instance_id"] != float64(id) || data["status"] != "canceled" || data["reason"] != "api" {
		t.Fatalf("instance.canceled data = %v", data)
	}
	in := e.getInstance(t, a.APIKey, id)
	if in.Active || *in.Status != "canceled" || !in.Locked || *in.LockReason != "deletion" ||
		*in.ExpiredAt != "2025-06-01T10:10:00Z" || in.RenewalDue != nil || in.Credentials != nil {
		t.Fatalf("canceled instance = %+v", in)
	}
	// Billing stops, and the machine is deleted at the datacenter.
	before, _ := e.ledger(t, a.ID)
	e.clock.Advance(5 * time.Hour)
	e.runDue(t)
	after, _ := e.ledger(t, a.ID)
	if dollars(after.Balance) != dollars(before.Balance) {
		t.Fatalf("balance moved from %v to %v after the cancel", dollars(before.Balance), dollars(after.Balance))
	}
	stored, err := e.database(t).InstanceByID(ctx, id)
	if err != nil || !stored.MachineGone {
		t.Fatalf("machine deleted = %v (%v), want true after the housekeeping worker ran", stored.MachineGone, err)
	}

	t.Run("a locked instance can be canceled", func(t *testing.T) {
		locked := e.deployed(t, a.APIKey, ubuntuOn101)
		if err := e.srv.LockInstance(ctx, locked, store.LockDebt); err != nil {
			t.Fatal(err)
		}
		e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/instances/%d", locked), Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
	})
}

func TestResizeOptions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, `{"server_id": 101, "template_id": 1, "term": "hourly", "active_features": ["3"]}`) // renews 11:00
	e.clock.Advance(15 * time.Minute)                                                                                 // 45 minutes of the hour left
	var got api.ResizeOptionsView
	e.do(t, request{Path: fmt.Sprintf("/instances/%d/resize-options", id), Key: a.APIKey}).Data(t, &got)
	want := []struct {
		id                 int64
		price, now, newCst float64
	}{
		{102, 0.008, 0.003, 0.0082}, // (0.008-0.004) × 0.75; IPv6 kept
		{103, 0.028, 0.018, 0.0282}, // (0.028-0.004) × 0.75
		{104, 0.022, 0.0135, 0.022}, // 104 does not offer IPv6: dropped
	}
	if got.InstanceID != id || got.CurrentServerProductID != 101 || got.Term != "hourly" || len(got.Options) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, w := range want {
		o := got.Options[i]
		if o.ID != w.id || dollars(*o.Price) != w.price || dollars(o.ChargeNow) != w.now || dollars(o.NewCost) != w.newCst || o.Term != "hourly" {
			t.Fatalf("option %d = %+v, want id %d price %v charge_now %v new_cost %v", i, o, w.id, w.price, w.now, w.newCst)
		}
	}

	t.Run("rounded to the micro-USD", func(t *testing.T) {
		e.clock.Advance(25*time.Minute + 7*time.Second) // 1193 s left: 4000 µ × 1193/3600 = 1325.56 → 1326
		e.do(t, request{Path: fmt.Sprintf("/instances/%d/resize-options", id), Key: a.APIKey}).Data(t, &got)
		if dollars(got.Options[0].ChargeNow) != 0.001326 {
			t.Fatalf("charge_now = %v, want 0.001326", dollars(got.Options[0].ChargeNow))
		}
	})
	t.Run("no options without resize or once canceled", func(t *testing.T) {
		top := e.deployed(t, a.APIKey, `{"server_id": 212, "template_id": 1, "term": "hourly"}`)
		e.do(t, request{Path: fmt.Sprintf("/instances/%d/resize-options", top), Key: a.APIKey}).Data(t, &got)
		if len(got.Options) != 0 {
			t.Fatalf("the biggest plan has options %+v", got.Options)
		}
		e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/instances/%d", id), Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
		e.do(t, request{Path: fmt.Sprintf("/instances/%d/resize-options", id), Key: a.APIKey}).Data(t, &got)
		if len(got.Options) != 0 {
			t.Fatalf("a canceled instance has options %+v", got.Options)
		}
	})
}

// TestCrossAccountInstanceRoutes checks that every instance route answers 404 for an instance
// of another account, and changes nothing.
func TestCrossAccountInstanceRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.funded(t, 10_000_000)
	intruder := e.funded(t, 10_000_000)
	id := e.deployed(t, owner.APIKey, ubuntuOn101)
	base := fmt.Sprintf("/instances/%d", id)
	routes := []request{
		{Method: http.MethodGet, Path: base},
		{Method: http.MethodGet, Path: base + "?refresh=true"},
		{Method: http.MethodPatch, Path: base, Body: `{"name": "mine"}`},
		{Method: http.MethodDelete, Path: base},
		{Method: http.MethodPost, Path: base + "/actions", Body: `{"action": "power_off"}`},
		{Method: http.MethodPost, Path: base + "/actions", Body: `{"action": "reset_password"}`},
		{Method: http.MethodGet, Path: base + "/resize-options"},
		{Method: http.MethodGet, Path: base + "/traffic"},
		{Method: http.MethodGet, Path: base + "/apps"},
		{Method: http.MethodPost, Path: base + "/apps", Body: `{"apps": ["docker"]}`},
	}
	for _, r := range routes {
		t.Run(r.Method+" "+r.Path, func(t *testing.T) {
			r.Key = intruder.APIKey
			e.do(t, r).WantStatus(t, http.StatusNotFound, "not_found")
		})
	}
	in := e.getInstance(t, owner.APIKey, id)
	if !in.Active || in.Name != *in.Hostname || *in.Status != "online" || len(in.Apps) != 0 {
		t.Fatalf("the owner's instance changed: %+v", in)
	}
	if evs := e.events(t, intruder.ID); len(evs) != 0 {
		t.Fatalf("the intruder's account got events %v", eventNames(evs))
	}
}
