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
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// act runs an action that must succeed and returns its result.
func (e *env) act(t *testing.T, key string, id int64, body string) api.ActionResultView {
	t.Helper()
	r := e.action(t, key, id, body)
	r.WantStatus(t, http.StatusOK, "")
	var v api.ActionResultView
	r.Data(t, &v)
	if !v.Success {
		t.Fatalf("success false: %s", r.Raw)
	}
	return v
}

func TestPowerActions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.CredentialsDelay = 30 * time.Second })
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	e.clock.Advance(30 * time.Second)
	tests := []struct {
		action, now, later string
	}{
		{"power_off", "offline", "offline"},
		{"power_on", "online", "online"},
		{"reboot", "rebooting", "online"},
	}
	for _, tt := range tests {
		t.Run(tt.action, func(t *testing.T) {
			v := e.act(t, a.APIKey, id, `{"action": "`+tt.action+`"}`)
			if v.Action != tt.action || v.Password != nil || v.IPv4 != nil || v.Charged != nil || v.QueuedApps != nil {
				t.Fatalf("result = %+v, want only action and success", v)
			}
			if got := *e.getInstance(t, a.APIKey, id).Status; got != tt.now {
				t.Fatalf("status = %s, want %s", got, tt.now)
			}
			e.clock.Advance(30 * time.Second)
			if got := *e.getInstance(t, a.APIKey, id).Status; got != tt.later {
				t.Fatalf("status after 30 s = %s, want %s", got, tt.later)
			}
		})
	}
}

func TestActionRequestErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	tabriz := e.deployed(t, a.APIKey, `{"server_id": 105, "template_id": 1, "term": "hourly"}`) // no change_ip, no console
	tests := []struct {
		name     string
		instance int64
		body     string
		field    string
	}{
		{"action missing", id, `{}`, "action"},
		{"unknown action", id, `{"action": "explode"}`, "action"},
		{"change_ip not offered by the plan", tabriz, `{"action": "change_ip"}`, "action"},
		{"console not offered by the plan", tabriz, `{"action": "console"}`, "action"},
		{"field of another action", id, `{"action": "reboot", "template_id": 1}`, "template_id"},
		{"apps outside rebuild", id, `{"action": "power_on", "apps": ["docker"]}`, "apps"},
		{"name outside update_metadata", id, `{"action": "reset_password", "name": "x"}`, "name"},
		{"accept_cost outside change_ip", id, `{"action": "resize", "server_id": 102, "accept_cost": 1}`, "accept_cost"},
		{"negative accept_cost", id, `{"action": "change_ip", "accept_cost": -1}`, "accept_cost"},
		{"accept_cost too precise", id, `{"action": "change_ip", "accept_cost": 0.0000001}`, "accept_cost"},
		{"accept_cost a string", id, `{"action": "change_ip", "accept_cost": "1"}`, "accept_cost"},
		{"rebuild without template", id, `{"action": "rebuild"}`, "template_id"},
		{"rebuild to a template of another plan", id, `{"action": "rebuild", "template_id": 5}`, "template_id"},
		{"rebuild with an app for another OS", id, `{"action": "rebuild", "template_id": 4, "apps": ["wordpress"]}`, "apps"},
		{"resize without a plan", id, `{"action": "resize"}`, "server_id"},
		{"resize to a plan not offered", id, `{"action": "resize", "server_id": 201}`, "server_id"},
		{"resize to a smaller plan", tabriz, `{"action": "resize", "server_id": 105}`, "server_id"},
		{"update_metadata with an empty name", id, `{"action": "update_metadata", "name": ""}`, "name"},
		{"unknown field", id, `{"action": "reboot", "force": true}`, "force"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.action(t, a.APIKey, tt.instance, tt.body)
			r.WantStatus(t, http.StatusBadRequest, "validation_error")
			r.WantMessage(t, tt.field)
		})
	}
	if evs := e.events(t, a.ID); len(evs) != 2 {
		t.Fatalf("refused actions emitted events: %v", eventNames(evs))
	}
}

func TestLockedInstanceRefusesOperations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	if err := e.srv.LockInstance(ctx, id, store.LockDebt); err != nil {
		t.Fatal(err)
	}
	bodies := []string{
		`{"action": "power_on"}`, `{"action": "power_off"}`, `{"action": "reboot"}`,
		`{"action": "rebuild", "template_id": 1}`, `{"action": "reset_password"}`, `{"action": "change_ip"}`,
		`{"action": "console"}`, `{"action": "resize", "server_id": 102}`, `{"action": "update_metadata", "name": "x"}`,
	}
	for _, body := range bodies {
		t.Run(body, func(t *testing.T) {
			r := e.action(t, a.APIKey, id, body)
			r.WantStatus(t, http.StatusConflict, "instance_locked")
			r.WantMessage(t, "debt")
		})
	}
	e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/instances/%d/apps", id), Key: a.APIKey, Body: `{"apps": ["docker"]}`}).
		WantStatus(t, http.StatusConflict, "instance_locked")
	for _, path := range []string{"", "/traffic", "/apps", "/resize-options"} {
		e.do(t, request{Path: fmt.Sprintf("/instances/%d%s", id, path), Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
	}
	if err := e.srv.LockInstance(ctx, 99999, "x"); err == nil {
		t.Fatal("locking an unknown instance: got nil error")
	}
}

func TestResetPassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	old := *e.getInstance(t, a.APIKey, id).Credentials.Password
	v := e.act(t, a.APIKey, id, `{"action": "reset_password"}`)
	if v.Password == nil || *v.Password == old || len(*v.Password) < 16 {
		t.Fatalf("password = %v, want a new one (old %q)", v.Password, old)
	}
	if got := *e.getInstance(t, a.APIKey, id).Credentials.Password; got != *v.Password {
		t.Fatalf("stored password %q, want the returned %q", got, *v.Password)
	}
	evs := e.events(t, a.ID)
	last := evs[len(evs)-1]
	if last.Name != "instance.password_reset" || string(last.Data) != fmt.Sprintf(`{"instance_id":%d}`, id) {
		t.Fatalf("event %s %s, want instance.password_reset without the password", last.Name, last.Data)
	}
}

func TestRebuild(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.CredentialsDelay = time.Minute })
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, `{"server_id": 102, "template_id": 1, "term": "hourly", "apps": ["docker"]}`)
	e.clock.Advance(time.Minute)
	before := e.getInstance(t, a.APIKey, id)
	v := e.act(t, a.APIKey, id, `{"action": "rebuild", "template_id": 5, "apps": ["iis"], "app_inputs": {"iis": {"SITE_NAME": "shop"}}}`)
	if !slices.Equal(v.QueuedApps, []string{"iis"}) {
		t.Fatalf("queued_apps = %v, want [iis]", v.QueuedApps)
	}
	in := e.getInstance(t, a.APIKey, id)
	if *in.Status != "rebuilding" || *in.TemplateID != 5 || *in.IPv4 != *before.IPv4 || *in.IPv6 != *before.IPv6 ||
		!in.Credentials.Pending || in.Credentials.Password != nil || *in.Credentials.Username != "Administrator" {
		t.Fatalf("after rebuild: %+v %+v", in, in.Credentials)
	}
	if !slices.Equal(in.ActiveFeatures, []string{"1"}) || dollars(in.Recurring) != 0.0094 {
		t.Fatalf("features %v recurring %v, want the forced IPv4 billed: 0.0094", in.ActiveFeatures, dollars(in.Recurring))
	}
	if len(in.Apps) != 1 || in.Apps[0].AppID != "iis" || in.Apps[0].Status != "queued" {
		t.Fatalf("apps = %+v, want only iis queued: the old disk's installs are gone", in.Apps)
	}
	e.clock.Advance(time.Minute)
	in = e.getInstance(t, a.APIKey, id)
	if *in.Status != "online" || in.Credentials.Pending || *in.Credentials.Password == *before.Credentials.Password {
		t.Fatalf("settled: status %s, credentials %+v; want online with a new password", *in.Status, in.Credentials)
	}
	empty := e.act(t, a.APIKey, id, `{"action": "rebuild", "template_id": 1}`)
	if empty.QueuedApps == nil || len(empty.QueuedApps) != 0 {
		t.Fatalf("queued_apps = %v, want an empty list for a rebuild without apps", empty.QueuedApps)
	}
}

func TestChangeIPFree(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101) // datacenter 1: free, once an hour
	old := *e.getInstance(t, a.APIKey, id).IPv4
	v := e.act(t, a.APIKey, id, `{"action": "change_ip"}`)
	if v.IPv4 == nil || *v.IPv4 == old || v.Clean != nil || v.Charged != nil || v.Debt != nil {
		t.Fatalf("result = %+v, want a new address and no price fields", v)
	}
	in := e.getInstance(t, a.APIKey, id)
	if *in.IPv4 != *v.IPv4 || *in.Credentials.IPv4 != *v.IPv4 || dollars(in.IPChangeCost) != 0 {
		t.Fatalf("instance ipv4 %v, credentials %v, cost %v", *in.IPv4, *in.Credentials.IPv4, dollars(in.IPChangeCost))
	}
	e.clock.Advance(time.Hour - time.Second)
	r := e.action(t, a.APIKey, id, `{"action": "change_ip", "accept_cost": 5}`)
	r.WantStatus(t, http.StatusConflict, "ip_change_too_soon")
	r.WantMessage(t, "2025-06-01T11:00:00Z")
	e.clock.Advance(time.Second)
	e.act(t, a.APIKey, id, `{"action": "change_ip"}`)
	evs := e.events(t, a.ID)
	if names := eventNames(evs); !slices.Equal(names, []string{"order.deployed", "instance.ip_changed", "instance.ip_changed"}) {
		t.Fatalf("events = %v", names)
	}
	if !strings.Contains(string(evs[1].Data), `"ipv4":"`+*v.IPv4+`"`) {
		t.Fatalf("instance.ip_changed data %s lacks the new address %s", evs[1].Data, *v.IPv4)
	}
	e.wantReconciled(t, a.ID)
	if acct, _ := e.ledger(t, a.ID); acct.Balance != 10_000_000-4_000 {
		t.Fatalf("balance %v: free changes must not be charged", acct.Balance)
	}
}

func TestChangeIPPaid(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, `{"server_id": 201, "template_id": 1, "term": "hourly"}`) // datacenter 2: 0.5
	in := e.getInstance(t, a.APIKey, id)
	if dollars(in.IPChangeCost) != 0.5 {
		t.Fatalf("ip_change_cost = %v, want 0.5", dollars(in.IPChangeCost))
	}
	for _, body := range []string{`{"action": "change_ip"}`, `{"action": "change_ip", "accept_cost": 0.499999}`, `{"action": "change_ip", "accept_cost": null}`} {
		r := e.action(t, a.APIKey, id, body)
		r.WantStatus(t, http.StatusConflict, "cost_unconfirmed")
		r.WantMessage(t, "0.5")
	}
	if got := e.getInstance(t, a.APIKey, id); *got.IPv4 != *in.IPv4 || dollars(*got.PaidAmount) != dollars(*in.PaidAmount) {
		t.Fatal("cost_unconfirmed changed the instance")
	}
	// The clean pool holds two addresses and gets one back every 30 minutes.
	tests := []struct {
		advance     time.Duration
		wantClean   bool
		wantCharged float64
	}{
		{0, true, 0.5},
		{0, true, 0.5},
		{0, false, 0},
		{30 * time.Minute, true, 0.5},
	}
	paid := dollars(*in.PaidAmount)
	for i, tt := range tests {
		e.clock.Advance(tt.advance)
		before := *e.getInstance(t, a.APIKey, id).IPv4
		v := e.act(t, a.APIKey, id, `{"action": "change_ip", "accept_cost": 0.5}`)
		if v.IPv4 == nil || *v.IPv4 == before || *v.Clean != tt.wantClean || dollars(*v.Charged) != tt.wantCharged || dollars(*v.Debt) != 0 {
			t.Fatalf("change %d = ipv4 %v clean %v charged %v debt %v; want clean %v charged %v", i+1, *v.IPv4, *v.Clean,
				dollars(*v.Charged), dollars(*v.Debt), tt.wantClean, tt.wantCharged)
		}
		paid += tt.wantCharged
	}
	got := e.getInstance(t, a.APIKey, id)
	if dollars(*got.PaidAmount) != paid {
		t.Fatalf("paid_amount = %v, want %v", dollars(*got.PaidAmount), paid)
	}
	acct, entries := e.ledger(t, a.ID)
	var ipCharges int
	for _, en := range entries {
		if en.Kind == store.LedgerIPChange {
			ipCharges++
		}
	}
	if ipCharges != 3 || acct.Balance != 10_000_000-6_000-1_500_000 {
		t.Fatalf("%d ip_change charges, balance %v; want 3 and 8.494", ipCharges, acct.Balance)
	}
	e.wantReconciled(t, a.ID)
}

func TestChangeIPBooksDebt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	a := e.funded(t, 206_000) // the 0.006 order, then 0.2 left
	id := e.deployed(t, a.APIKey, `{"server_id": 201, "template_id": 1, "term": "hourly"}`)
	v := e.act(t, a.APIKey, id, `{"action": "change_ip", "accept_cost": 1}`)
	if dollars(*v.Charged) != 0.5 || dollars(*v.Debt) != 0.3 || !*v.Clean {
		t.Fatalf("result = charged %v debt %v, want 0.5 charged of which 0.3 is debt", dollars(*v.Charged), dollars(*v.Debt))
	}
	var b api.BalanceView
	e.do(t, request{Path: "/account/balance", Key: a.APIKey}).Data(t, &b)
	if dollars(b.Balance) != 0 || dollars(b.Debt) != 0.3 {
		t.Fatalf("wallet = %+v, want balance 0 and debt 0.3", b)
	}
	in := e.getInstance(t, a.APIKey, id)
	if !in.Locked || *in.LockReason != "debt" {
		t.Fatalf("locked %v %v, want locked for debt", in.Locked, in.LockReason)
	}
	e.action(t, a.APIKey, id, `{"action": "change_ip", "accept_cost": 1}`).WantStatus(t, http.StatusConflict, "instance_locked")
	if err := e.srv.TopUp(ctx, a.ID, 1_000_000, "card"); err != nil {
		t.Fatal(err)
	}
	e.do(t, request{Path: "/account/balance", Key: a.APIKey}).Data(t, &b)
	if dollars(b.Balance) != 0.7 || dollars(b.Debt) != 0 {
		t.Fatalf("after a top-up of 1: %+v, want the debt paid first: balance 0.7, debt 0", b)
	}
	if in := e.getInstance(t, a.APIKey, id); in.Locked {
		t.Fatal("the instance is still locked after the debt was paid")
	}
	e.wantReconciled(t, a.ID)
}

func TestConsole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	v := e.act(t, a.APIKey, id, `{"action": "console"}`)
	if v.ConsoleURL == nil || !strings.HasPrefix(*v.ConsoleURL, "https://") || v.ConsolePassword == nil || *v.ConsolePassword == "" {
		t.Fatalf("console = %+v, want an https URL and a password", v)
	}
	if again := e.act(t, a.APIKey, id, `{"action": "console"}`); *again.ConsoleURL == *v.ConsoleURL {
		t.Fatal("two console sessions share a URL")
	}
}

func TestResize(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, `{"server_id": 101, "template_id": 1, "term": "hourly", "active_features": ["3"]}`) // 0.0042/h
	e.clock.Advance(15 * time.Minute)
	v := e.act(t, a.APIKey, id, `{"action": "resize", "server_id": 104}`)
	if dollars(*v.Charged) != 0.0135 || *v.ServerProductID != 104 {
		t.Fatalf("result = charged %v plan %v, want 0.0135 and 104", dollars(*v.Charged), *v.ServerProductID)
	}
	in := e.getInstance(t, a.APIKey, id)
	if in.ServerProductID != 104 || in.ServerProduct.ID != 104 || len(in.ActiveFeatures) != 0 || dollars(in.Recurring) != 0.022 ||
		dollars(*in.PaidAmount) != 0.0177 || *in.Status != "online" {
		t.Fatalf("after resize: plan %d features %v recurring %v paid %v status %s", in.ServerProductID, in.ActiveFeatures,
			dollars(in.Recurring), dollars(*in.PaidAmount), *in.Status)
	}
	evs := e.events(t, a.ID)
	last := evs[len(evs)-1]
	if last.Name != "instance.resized" || string(last.Data) != fmt.Sprintf(`{"instance_id":%d,"server_id":104,"charged":0.0135}`, id) {
		t.Fatalf("event %s %s", last.Name, last.Data)
	}
	e.clock.Advance(45 * time.Minute) // the renewal charges the new plan
	e.runDue(t)
	if in := e.getInstance(t, a.APIKey, id); dollars(*in.PaidAmount) != 0.0397 {
		t.Fatalf("paid_amount = %v after the renewal, want 0.0177 + 0.022", dollars(*in.PaidAmount))
	}
	e.wantReconciled(t, a.ID)

	t.Run("402 when the wallet cannot cover charge_now", func(t *testing.T) {
		poor := e.funded(t, 4_000)
		small := e.deployed(t, poor.APIKey, ubuntuOn101)
		e.clock.Advance(time.Minute)
		r := e.action(t, poor.APIKey, small, `{"action": "resize", "server_id": 103}`)
		r.WantStatus(t, http.StatusPaymentRequired, "insufficient_balance")
		if got := e.getInstance(t, poor.APIKey, small); got.ServerProductID != 101 {
			t.Fatalf("a refused resize moved the plan to %d", got.ServerProductID)
		}
	})
}

func TestUpdateMetadataAction(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	e.act(t, a.APIKey, id, `{"action": "update_metadata", "name": "db-1", "note": "replica"}`)
	if in := e.getInstance(t, a.APIKey, id); in.Name != "db-1" || *in.Note != "replica" {
		t.Fatalf("name %q note %v", in.Name, in.Note)
	}
}

// TestProviderErrors makes the datacenter fail every operation: each action that reaches it
// answers 502 provider_error with a reference and changes nothing.
func TestProviderErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, `{"server_id": 201, "template_id": 1, "term": "hourly"}`)
	before := e.getInstance(t, a.APIKey, id)
	if err := e.srv.SetFailRate(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{
		`{"action": "power_off"}`, `{"action": "power_on"}`, `{"action": "reboot"}`, `{"action": "rebuild", "template_id": 2}`,
		`{"action": "reset_password"}`, `{"action": "change_ip", "accept_cost": 0.5}`, `{"action": "console"}`,
		`{"action": "resize", "server_id": 202}`,
	} {
		t.Run(body, func(t *testing.T) {
			r := e.action(t, a.APIKey, id, body)
			r.WantStatus(t, http.StatusBadGateway, "provider_error")
			if r.Body.Error.Reference == nil || !referencePattern.MatchString(*r.Body.Error.Reference) {
				t.Fatalf("reference = %v, want letters and digits", r.Body.Error.Reference)
			}
		})
	}
	after := e.getInstance(t, a.APIKey, id)
	b1, _ := json.Marshal(before)
	b2, _ := json.Marshal(after)
	if string(b1) != string(b2) {
		t.Fatalf("failed actions changed the instance:\n%s\n%s", b1, b2)
	}
	e.act(t, a.APIKey, id, `{"action": "update_metadata", "note": "no datacenter needed"}`)
	if evs := e.events(t, a.ID); len(evs) != 1 {
		t.Fatalf("failed actions emitted events: %v", eventNames(evs))
	}
}
