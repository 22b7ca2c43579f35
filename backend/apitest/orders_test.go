package apitest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

var referencePattern = regexp.MustCompile(`^[A-Za-z0-9]+$`)

func TestCreateInstanceValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.funded(t, 100_000_000).APIKey
	tests := []struct {
		name   string
		body   string
		header map[string]string
		status int
		code   string
		field  string // must appear in the message
	}{
		{"server_id missing", `{"template_id": 1, "term": "hourly"}`, nil, 400, "validation_error", "server_id"},
		{"server_id a string", `{"server_id": "101", "template_id": 1, "term": "hourly"}`, nil, 400, "validation_error", "server_id"},
		{"term missing", `{"server_id": 101, "template_id": 1}`, nil, 400, "validation_error", "term"},
		{"term monthly", `{"server_id": 101, "template_id": 1, "term": "monthly"}`, nil, 400, "validation_error", "term"},
		{"unknown plan", `{"server_id": 999, "template_id": 1, "term": "hourly"}`, nil, 404, "not_found", ""},
		{"identity check required", `{"server_id": 401, "template_id": 1, "term": "hourly"}`, nil, 403, "forbidden", ""},
		{"datacenter in maintenance", `{"server_id": 301, "template_id": 1, "term": "hourly"}`, nil, 409, "datacenter_unavailable", "maintenance"},
		{"template_id missing", `{"server_id": 101, "term": "hourly"}`, nil, 400, "validation_error", "template_id"},
		{"template not of the plan", `{"server_id": 101, "template_id": 5, "term": "hourly"}`, nil, 400, "validation_error", "template_id"},
		{"feature not of the plan", `{"server_id": 101, "template_id": 1, "term": "hourly", "active_features": ["4"]}`, nil, 400, "validation_error", "active_features"},
		{"feature not an id", `{"server_id": 101, "template_id": 1, "term": "hourly", "active_features": ["ipv4"]}`, nil, 400, "validation_error", "active_features"},
		{"hostname leading hyphen", `{"server_id": 101, "template_id": 1, "term": "hourly", "hostname": "-web"}`, nil, 400, "validation_error", "hostname"},
		{"hostname underscore", `{"server_id": 101, "template_id": 1, "term": "hourly", "hostname": "web_1"}`, nil, 400, "validation_error", "hostname"},
		{"hostname empty label", `{"server_id": 101, "template_id": 1, "term": "hourly", "hostname": "web..example"}`, nil, 400, "validation_error", "hostname"},
		{"hostname empty", `{"server_id": 101, "template_id": 1, "term": "hourly", "hostname": ""}`, nil, 400, "validation_error", "hostname"},
		{"hostname 64 characters", `{"server_id": 101, "template_id": 1, "term": "hourly", "hostname": "` + strings.Repeat("a", 64) + `"}`, nil, 400, "validation_error", "hostname"},
		{"unknown app", `{"server_id": 101, "template_id": 1, "term": "hourly", "apps": ["nope"]}`, nil, 400, "validation_error", "apps"},
		{"app for another OS", `{"server_id": 102, "template_id": 1, "term": "hourly", "apps": ["iis"]}`, nil, 400, "validation_error", "apps"},
		{"app for another OS family", `{"server_id": 102, "template_id": 4, "term": "hourly", "apps": ["wordpress"]}`, nil, 400, "validation_error", "apps"},
		{"app too big for the plan", `{"server_id": 101, "template_id": 1, "term": "hourly", "apps": ["gitlab"]}`, nil, 400, "validation_error", "apps"},
		{"conflicting apps", `{"server_id": 101, "template_id": 1, "term": "hourly", "apps": ["openvpn", "wireguard"]}`, nil, 400, "validation_error", "apps"},
		{"conflicting apps with dependencies", `{"server_id": 102, "template_id": 1, "term": "hourly", "apps": ["wordpress", "nextcloud"]}`, nil, 400, "validation_error", "conflicts"},
		{"inputs of an app not ordered", `{"server_id": 101, "template_id": 1, "term": "hourly", "apps": ["docker"], "app_inputs": {"mysql": {"DATABASE": "x"}}}`, nil, 400, "validation_error", "app_inputs"},
		{"unknown input", `{"server_id": 101, "template_id": 1, "term": "hourly", "apps": ["mysql"], "app_inputs": {"mysql": {"FOO": "x"}}}`, nil, 400, "validation_error", "app_inputs.mysql.FOO"},
		{"email input", `{"server_id": 102, "template_id": 1, "term": "hourly", "apps": ["wordpress"], "app_inputs": {"wordpress": {"ADMIN_EMAIL": "nobody"}}}`, nil, 400, "validation_error", "app_inputs.wordpress.ADMIN_EMAIL"},
		{"number input", `{"server_id": 101, "template_id": 1, "term": "hourly", "apps": ["openvpn"], "app_inputs": {"openvpn": {"CLIENTS": "many"}}}`, nil, 400, "validation_error", "app_inputs.openvpn.CLIENTS"},
		{"short password input", `{"server_id": 101, "template_id": 1, "term": "hourly", "apps": ["mysql"], "app_inputs": {"mysql": {"ROOT_PASSWORD": "short"}}}`, nil, 400, "validation_error", "ROOT_PASSWORD"},
		{"snapshot with apps", `{"server_id": 101, "term": "hourly", "snapshot_id": 5, "apps": ["docker"]}`, nil, 400, "validation_error", "apps"},
		{"unknown snapshot", `{"server_id": 101, "term": "hourly", "snapshot_id": 5}`, nil, 404, "not_found", "snapshot"},
		{"unknown field", `{"server_id": 101, "template_id": 1, "term": "hourly", "coupon": "X"}`, nil, 400, "validation_error", "coupon"},
		{"idempotency key with a space", ubuntuOn101, map[string]string{"Idempotency-Key": "a b"}, 400, "validation_error", "Idempotency-Key"},
		{"idempotency key too long", ubuntuOn101, map[string]string{"Idempotency-Key": strings.Repeat("k", 256)}, 400, "validation_error", "Idempotency-Key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, request{Method: http.MethodPost, Path: "/instances", Key: key, Body: tt.body, Header: tt.header})
			r.WantStatus(t, tt.status, tt.code)
			if tt.field != "" {
				r.WantMessage(t, tt.field)
			}
		})
	}
	t.Run("nothing was ordered", func(t *testing.T) {
		var orders []api.OrderView
		e.do(t, request{Path: "/orders", Key: key}).Data(t, &orders)
		if len(orders) != 0 {
			t.Fatalf("got %d orders after only refused requests, want 0", len(orders))
		}
	})
	t.Run("apps closed to the account", func(t *testing.T) {
		closed := e.funded(t, 100_000_000)
		if err := e.srv.SetAppsEnabled(context.Background(), closed.ID, false); err != nil {
			t.Fatal(err)
		}
		e.order(t, closed.APIKey, "", `{"server_id": 101, "template_id": 1, "term": "hourly", "apps": ["docker"]}`).
			WantStatus(t, http.StatusForbidden, "forbidden")
		e.order(t, closed.APIKey, "", ubuntuOn101).WantStatus(t, http.StatusCreated, "")
	})
}

func TestCreateInstanceAccepted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	tests := []struct {
		name      string
		body      string
		wantPrice float64
		wantApps  []string
	}{
		{"plan only", ubuntuOn101, 0.004, []string{}},
		{"windows forces IPv4", `{"server_id": 102, "template_id": 5, "term": "hourly", "active_features": ["2"], "apps": ["iis"]}`, 0.0104, []string{"iis"}},
		{"dependencies first", `{"server_id": 102, "template_id": 3, "term": "hourly", "apps": ["wordpress", "docker"],
			"app_inputs": {"mysql": {"DATABASE": "blog"}, "wordpress": {"ADMIN_EMAIL": "me@example.org", "DOMAIN": "blog.example.org"}}}`,
			0.008, []string{"mysql", "wordpress", "docker"}},
		{"creation fee in the first charge", `{"server_id": 104, "template_id": 1, "term": "hourly", "hostname": "Build-01.example.com"}`, 0.522, []string{}},
		{"null snapshot means none", `{"server_id": 101, "template_id": 1, "term": "hourly", "snapshot_id": null, "hostname": null}`, 0.004, []string{}},
	}
	var reserved float64
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.order(t, a.APIKey, "", tt.body)
			r.WantStatus(t, http.StatusCreated, "")
			if r.Body.Meta != nil {
				t.Fatalf("meta = %+v on a first request, want none", r.Body.Meta)
			}
			var c api.CreatedOrderView
			r.Data(t, &c)
			if c.OrderID == 0 || dollars(c.Price) != tt.wantPrice || !slices.Equal(c.Apps, tt.wantApps) {
				t.Fatalf("got %+v, want price %v apps %v", c, tt.wantPrice, tt.wantApps)
			}
			reserved += tt.wantPrice
			o := e.getOrder(t, a.APIKey, c.OrderID)
			if o.Status != "pending" || o.Success || o.Server != nil || o.FinishedAt != nil || o.Reference != nil {
				t.Fatalf("new order = %+v, want pending with nothing else", o)
			}
		})
	}
	var b api.BalanceView
	e.do(t, request{Path: "/account/balance", Key: a.APIKey}).Data(t, &b)
	if b.PendingOrders != int64(len(tests)) || dollars(b.Reserved) != 0.5484 || dollars(b.Available) != 9.4516 {
		t.Fatalf("balance = %+v, want %d pending reserving 0.5484 (available 9.4516)", b, len(tests))
	}
	t.Run("generated and given hostnames", func(t *testing.T) {
		e.runDue(t)
		var list []api.InstanceDetailView
		e.do(t, request{Path: "/instances", Key: a.APIKey}).Data(t, &list)
		if len(list) != len(tests) {
			t.Fatalf("got %d instances, want %d", len(list), len(tests))
		}
		generated := regexp.MustCompile(`^srv-[0-9a-f]{8}$`)
		for _, in := range list {
			if in.Hostname == nil || (!generated.MatchString(*in.Hostname) && *in.Hostname != "Build-01.example.com") {
				t.Fatalf("hostname %v: want a generated srv-xxxxxxxx or the one sent", in.Hostname)
			}
			if in.Name != *in.Hostname {
				t.Fatalf("name %q, want the hostname %q", in.Name, *in.Hostname)
			}
		}
	})
}

func TestOrderLifecycleToDeployed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.DeployDelay = 3 * time.Second; c.CredentialsDelay = time.Second })
	a := e.funded(t, 10_000_000)
	c := e.placed(t, a.APIKey, `{"server_id": 101, "template_id": 1, "term": "hourly", "active_features": ["1"], "apps": ["docker"]}`)
	if dollars(c.Price) != 0.0054 {
		t.Fatalf("price = %v, want 0.0054 (0.004 plan + 0.0014 IPv4)", dollars(c.Price))
	}
	wantBalance := func(balance, reserved float64) {
		t.Helper()
		var b api.BalanceView
		e.do(t, request{Path: "/account/balance", Key: a.APIKey}).Data(t, &b)
		if dollars(b.Balance) != balance || dollars(b.Reserved) != reserved {
			t.Fatalf("balance %v reserved %v, want %v and %v", dollars(b.Balance), dollars(b.Reserved), balance, reserved)
		}
	}
	wantBalance(10, 0.0054)

	for _, step := range []time.Duration{0, 2 * time.Second} {
		e.clock.Advance(step)
		e.runDue(t)
		if o := e.getOrder(t, a.APIKey, c.OrderID); o.Status != "pending" {
			t.Fatalf("after %v: order is %s, want pending until the deploy delay has passed", step, o.Status)
		}
	}
	e.clock.Advance(time.Second)
	e.runDue(t)
	o := e.getOrder(t, a.APIKey, c.OrderID)
	if o.Status != "deployed" || !o.Success || o.Server == nil || o.FinishedAt == nil || *o.FinishedAt != "2025-06-01T10:00:03Z" {
		t.Fatalf("order = %+v, want deployed at 10:00:03 with its server", o)
	}
	in := *o.Server
	if in.Status == nil || *in.Status != "online" || !in.Active || in.ServerProductID != 101 || dollars(*in.PaidAmount) != 0.0054 ||
		in.RenewalDue == nil || *in.RenewalDue != "2025-06-01T11:00:03Z" || in.OrderID != c.OrderID ||
		!slices.Equal(in.ActiveFeatures, []string{"1"}) || dollars(*in.Costs) != 0.0014 || dollars(in.Recurring) != 0.0054 {
		t.Fatalf("instance = %+v", in)
	}
	if in.Credentials == nil || !in.Credentials.Pending || in.Credentials.Password != nil || in.Credentials.IPv4 == nil {
		t.Fatalf("credentials = %+v, want pending without a password for the credentials delay", in.Credentials)
	}
	if len(in.Apps) != 1 || in.Apps[0].AppID != "docker" {
		t.Fatalf("apps = %+v, want docker queued", in.Apps)
	}
	wantBalance(9.9946, 0)

	acct, entries := e.ledger(t, a.ID)
	if len(entries) != 2 || entries[1].Kind != store.LedgerOrder || entries[1].Amount != -5400 || acct.Balance != 9_994_600 {
		t.Fatalf("ledger = %+v, want the payment and one order charge of 0.0054", entries)
	}
	evs := e.events(t, a.ID)
	if len(evs) != 1 || evs[0].Name != "order.deployed" {
		t.Fatalf("events = %v, want order.deployed", eventNames(evs))
	}
	var data map[string]any
	if err := json.Unmarshal(evs[0].Data, &data); err != nil {
		t.Fatal(err)
	}
	if data["order_id"] != float64(c.OrderID) || data["status"] != "deployed" || data["instance_id"] != float64(in.ID) ||
		data["server_id"] != float64(101) || data["price"] != 0.0054 {
		t.Fatalf("order.deployed data = %v", data)
	}

	e.clock.Advance(time.Second)
	got := e.getInstance(t, a.APIKey, in.ID)
	if got.Credentials.Pending || got.Credentials.Password == nil || len(*got.Credentials.Password) < 16 ||
		got.Credentials.Username == nil || *got.Credentials.Username != "root" || *got.Credentials.Port != 22 {
		t.Fatalf("credentials after the delay = %+v, want root on 22 with a password", got.Credentials)
	}
}

func TestOrderTimesOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.FailRate = 1; c.OrderWindow = 10 * time.Minute })
	a := e.funded(t, 10_000_000)
	c := e.placed(t, a.APIKey, ubuntuOn101)
	e.runDue(t)
	e.clock.Advance(10*time.Minute - time.Second)
	e.runDue(t)
	if o := e.getOrder(t, a.APIKey, c.OrderID); o.Status != "pending" {
		t.Fatalf("before the window ends: %s, want pending", o.Status)
	}
	e.clock.Advance(time.Second)
	e.runDue(t)
	o := e.getOrder(t, a.APIKey, c.OrderID)
	if o.Status != "timed_out" || o.Success || o.Server != nil || o.Reference == nil || !referencePattern.MatchString(*o.Reference) {
		t.Fatalf("order = %+v, want timed_out with a reference of letters and digits", o)
	}
	acct, entries := e.ledger(t, a.ID)
	if acct.Balance != 10_000_000 || len(entries) != 1 {
		t.Fatalf("balance %v with %d ledger entries: a timed-out order must charge nothing", acct.Balance, len(entries))
	}
	var b api.BalanceView
	e.do(t, request{Path: "/account/balance", Key: a.APIKey}).Data(t, &b)
	if dollars(b.Reserved) != 0 {
		t.Fatalf("reserved = %v after the time-out, want 0", dollars(b.Reserved))
	}
	evs := e.events(t, a.ID)
	if len(evs) != 1 || evs[0].Name != "order.timed_out" || !strings.Contains(string(evs[0].Data), `"reference":"`+*o.Reference+`"`) ||
		!strings.Contains(string(evs[0].Data), `"instance_id":null`) {
		t.Fatalf("events = %v %s, want order.timed_out carrying the reference", eventNames(evs), evs[0].Data)
	}
	var list []api.InstanceDetailView
	e.do(t, request{Path: "/instances?only_active=false", Key: a.APIKey}).Data(t, &list)
	if len(list) != 0 {
		t.Fatalf("a timed-out order created %d instances", len(list))
	}
}

func TestOrdersReadableFor24Hours(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	first := e.placed(t, a.APIKey, ubuntuOn101)
	e.runDue(t) // first deployed at 10:00
	e.clock.Advance(time.Hour)
	second := e.placed(t, a.APIKey, ubuntuOn101) // pending
	list := func() []int64 {
		var orders []api.OrderView
		e.do(t, request{Path: "/orders", Key: a.APIKey}).Data(t, &orders)
		var ids []int64
		for _, o := range orders {
			ids = append(ids, o.OrderID)
		}
		return ids
	}
	if got := list(); !slices.Equal(got, []int64{second.OrderID, first.OrderID}) {
		t.Fatalf("orders = %v, want newest first [%d %d]", got, second.OrderID, first.OrderID)
	}
	e.clock.Advance(23*time.Hour - time.Second)
	e.getOrder(t, a.APIKey, first.OrderID)
	e.clock.Advance(time.Second) // 24 hours after the first finished
	e.do(t, request{Path: fmt.Sprintf("/orders/%d", first.OrderID), Key: a.APIKey}).WantStatus(t, http.StatusNotFound, "not_found")
	if got := list(); !slices.Equal(got, []int64{second.OrderID}) {
		t.Fatalf("orders = %v, want only the pending one", got)
	}
	e.getOrder(t, a.APIKey, second.OrderID) // pending orders stay readable
	other := e.funded(t, 0)
	e.do(t, request{Path: fmt.Sprintf("/orders/%d", second.OrderID), Key: other.APIKey}).WantStatus(t, http.StatusNotFound, "not_found")
	e.do(t, request{Path: "/orders/abc", Key: a.APIKey}).WantStatus(t, http.StatusBadRequest, "validation_error")
}

func TestTimeOutOrderHook(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.DeployDelay = time.Hour })
	a := e.funded(t, 10_000_000)
	c := e.placed(t, a.APIKey, ubuntuOn101)
	ctx := context.Background()
	if err := e.srv.TimeOutOrder(ctx, c.OrderID); err != nil {
		t.Fatal(err)
	}
	if o := e.getOrder(t, a.APIKey, c.OrderID); o.Status != "timed_out" || o.Reference == nil {
		t.Fatalf("order = %+v, want timed_out with a reference", o)
	}
	if err := e.srv.TimeOutOrder(ctx, c.OrderID); err == nil {
		t.Fatal("timing out a finished order: got nil error")
	}
	e.clock.Advance(time.Hour)
	e.runDue(t)
	if o := e.getOrder(t, a.APIKey, c.OrderID); o.Status != "timed_out" {
		t.Fatalf("the worker changed a finished order to %s", o.Status)
	}
}

func TestOrderSetFailRateHook(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.OrderWindow = time.Minute })
	a := e.funded(t, 10_000_000)
	if err := e.srv.SetFailRate(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	lost := e.placed(t, a.APIKey, ubuntuOn101)
	e.runDue(t)
	if err := e.srv.SetFailRate(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	fine := e.placed(t, a.APIKey, ubuntuOn101)
	e.runDue(t)
	e.clock.Advance(time.Minute)
	e.runDue(t)
	if o := e.getOrder(t, a.APIKey, lost.OrderID); o.Status != "timed_out" {
		t.Fatalf("order built at fail rate 1 is %s, want timed_out", o.Status)
	}
	if o := e.getOrder(t, a.APIKey, fine.OrderID); o.Status != "deployed" {
		t.Fatalf("order built at fail rate 0 is %s, want deployed", o.Status)
	}
	if err := e.srv.SetFailRate(context.Background(), 1.5); err == nil {
		t.Fatal("fail rate 1.5: got nil error")
	}
}

func TestRestartResumesPendingOrders(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "restart.db")
	clock := resellerd.NewManualClock(testStart)
	cfg := resellerd.Config{DB: db, Clock: clock, WorkerInterval: -1, DeployDelay: time.Minute, RateLimitScale: 0}

	first := openEnv(t, cfg)
	a := first.funded(t, 10_000_000)
	submitted := first.placed(t, a.APIKey, ubuntuOn101)
	first.runDue(t) // the build is submitted; the ticket is in the store
	unsubmitted := first.placed(t, a.APIKey, ubuntuOn101)
	if err := first.srv.Close(); err != nil {
		t.Fatal(err)
	}

	second := openEnv(t, cfg)
	clock.Advance(time.Minute)
	second.runDue(t) // submits the second build, finds the first done
	if o := second.getOrder(t, a.APIKey, submitted.OrderID); o.Status != "deployed" {
		t.Fatalf("order submitted before the restart is %s, want deployed", o.Status)
	}
	if o := second.getOrder(t, a.APIKey, unsubmitted.OrderID); o.Status != "pending" {
		t.Fatalf("order submitted after the restart is %s, want pending for its deploy delay", o.Status)
	}
	clock.Advance(time.Minute)
	second.runDue(t)
	if o := second.getOrder(t, a.APIKey, unsubmitted.OrderID); o.Status != "deployed" {
		t.Fatalf("order submitted after the restart is %s, want deployed", o.Status)
	}
	second.wantReconciled(t, a.ID)
}

func TestRestartWithBackgroundWorkers(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "bg.db")
	ctx := context.Background()
	// The first backend runs no workers: the order is left pending in the store.
	first, err := resellerd.New(ctx, resellerd.Config{DB: db, WorkerInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	acct, err := first.CreateAccount(ctx, resellerd.NewAccount{BalanceMicros: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	firstHTTP := httptest.NewServer(first.Handler())
	r, err := (&env{srv: first, http: firstHTTP}).send(request{Method: http.MethodPost, Path: "/instances", Key: acct.APIKey, Body: ubuntuOn101})
	firstHTTP.Close()
	if err != nil || r.Status != http.StatusCreated {
		t.Fatalf("POST /instances: %v %d %s", err, r.Status, r.Raw)
	}
	var created api.CreatedOrderView
	r.Data(t, &created)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	// The second backend's own loop (real clock, 10 ms ticks) finishes the order.
	second, err := resellerd.New(ctx, resellerd.Config{DB: db, WorkerInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	secondHTTP := httptest.NewServer(second.Handler())
	defer secondHTTP.Close()
	deadline := time.Now().Add(eventWait)
	for {
		r, err := (&env{srv: second, http: secondHTTP}).send(request{Path: fmt.Sprintf("/orders/%d", created.OrderID), Key: acct.APIKey})
		if err != nil || r.Status != http.StatusOK {
			t.Fatalf("GET /orders/%d: %v %d %s", created.OrderID, err, r.Status, r.Raw)
		}
		var o api.OrderView
		r.Data(t, &o)
		if o.Status == "deployed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("order still %s after %s of background workers", o.Status, eventWait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestOrderLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, err := e.srv.CreateAccount(context.Background(), resellerd.NewAccount{BalanceMicros: 10_000_000, ServerLimit: 2, OrderLimit: 1})
	if err != nil {
		t.Fatal(err)
	}
	key := a.APIKey
	e.placed(t, key, ubuntuOn101)
	r := e.order(t, key, "", ubuntuOn101)
	r.WantStatus(t, http.StatusConflict, "order_limit_reached")
	r.WantMessage(t, "api_order_limit")
	e.runDue(t) // 1 active, 0 pending
	e.placed(t, key, ubuntuOn101)
	r = e.order(t, key, "", ubuntuOn101) // 1 active + 1 pending = server_limit
	r.WantStatus(t, http.StatusConflict, "server_limit_reached")
	r.WantMessage(t, "server_limit")
	e.runDue(t)
	e.order(t, key, "", ubuntuOn101).WantStatus(t, http.StatusConflict, "server_limit_reached")

	var list []api.InstanceDetailView
	e.do(t, request{Path: "/instances", Key: key}).Data(t, &list)
	e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/instances/%d", list[0].ID), Key: key}).WantStatus(t, http.StatusOK, "")
	e.placed(t, key, ubuntuOn101) // a canceled server frees its place
}

func TestInsufficientBalance(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 5_000) // 0.005: one 0.004 order
	e.placed(t, a.APIKey, ubuntuOn101)
	r := e.order(t, a.APIKey, "", ubuntuOn101)
	r.WantStatus(t, http.StatusPaymentRequired, "insufficient_balance")
	r.WantMessage(t, "0.004", "0.001")
	if totals, _ := e.database(t).OrderTotals(context.Background(), a.ID); totals.Pending != 1 {
		t.Fatalf("%d pending orders, want 1: a refused order must not be recorded", totals.Pending)
	}
}

// TestConcurrentOrdersAgainstWallet sends 50 orders at once against a wallet that covers 10:
// exactly 10 are accepted, 40 are 402, and the wallet is never overdrawn.
func TestConcurrentOrdersAgainstWallet(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10*4_000) // ten orders of plan 101 at 0.004
	const n = 50
	req := request{Method: http.MethodPost, Path: "/instances", Key: a.APIKey, Body: ubuntuOn101}
	results := make([]response, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { results[i], errs[i] = e.send(req) })
	}
	wg.Wait()
	counts := map[int]int{}
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("request %d: %v", i, errs[i])
		}
		e.check(t, req, r)
		counts[r.Status]++
	}
	if counts[http.StatusCreated] != 10 || counts[http.StatusPaymentRequired] != 40 {
		t.Fatalf("statuses = %v, want 10 × 201 and 40 × 402", counts)
	}
	var b api.BalanceView
	e.do(t, request{Path: "/account/balance", Key: a.APIKey}).Data(t, &b)
	if dollars(b.Reserved) != 0.04 || dollars(b.Available) != 0 {
		t.Fatalf("balance = %+v, want 0.04 reserved and nothing available", b)
	}
	e.runDue(t)
	acct, _ := e.ledger(t, a.ID)
	if acct.Balance != 0 || acct.Debt != 0 {
		t.Fatalf("after deploying: balance %v debt %v, want 0 and 0", acct.Balance, acct.Debt)
	}
	e.wantReconciled(t, a.ID)
}
