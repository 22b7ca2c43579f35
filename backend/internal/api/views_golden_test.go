package api_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/views.golden with the current encoding")

// set points *p at v; the field's own type decides T, so the cases below do not depend on
// which integer type a view uses for a field.
func set[T any](p **T, v T) { *p = &v }

// goldenViews are views with every field set, and the same views empty: their encoding is the
// bytes the API sends, which a change of the types behind them must leave as they are.
func goldenViews(t *testing.T) []struct {
	name string
	v    any
} {
	var dc api.DatacenterView
	dc.ID, dc.Name, dc.Enabled, dc.RequireKYC = 2, "Tehran DC", true, true
	set(&dc.Description, "east")
	set(&dc.Status, "active")
	dc.Terms = []api.DatacenterTermView{{Term: "hourly", Enabled: true}}
	// Decoded rather than assigned: the field's Go type (bool or *bool) is not what is tested.
	if err := json.Unmarshal([]byte(`{"local_snapshots": true}`), &dc); err != nil {
		t.Fatal(err)
	}

	var loc api.LocationView
	loc.ID, loc.DatacenterID, loc.Name, loc.Country, loc.CountryCode, loc.Active = 3, 2, "Tehran", "Iran", "IR", true
	set(&loc.Flag, "🇮🇷")
	set(&loc.Status, "active")

	var d api.InstanceDetailView
	d.ID, d.Name, d.Active, d.ServerProductID, d.Renew, d.Locked, d.Snapshots = 7, "web", true, 102, true, true, true
	set(&d.Status, "online")
	set(&d.Hostname, "web.example.org")
	set(&d.IPv4, "192.0.2.7")
	set(&d.IPv6, "2001:db8::7")
	set(&d.Term, "hourly")
	set(&d.RenewalDue, "2025-06-01T11:00:00Z")
	set(&d.LockReason, "debt")
	set(&d.CreatedAt, "2025-06-01T10:00:00Z")
	set(&d.ExpiredAt, "2025-07-01T10:00:00Z")
	set(&d.DatacenterID, 2)
	set(&d.LocationID, 3)
	set(&d.TemplateID, 4)
	set(&d.Costs, money.Micros(1_400))
	set(&d.PaidAmount, money.Micros(-3_500_001))
	set(&d.Note, "a note")
	d.Actions = []string{"reboot", "resize"}
	d.ServerProduct = &api.ServerProductView{ID: 102, Name: "Standard 2", Type: "standard", CPU: 2, Memory: 4, Disk: 50}
	d.Location, d.Datacenter = &loc, &dc
	d.Template = &api.TemplateView{ID: 4, Name: "Debian 12", OSType: "linux"}
	d.Traffic = &api.TrafficView{Enabled: true, Included: 2000, Used: 5, Overage: 1, AllowOverage: true}
	set(&d.Traffic.CycleStartDate, "2025-06-01T10:00:00Z")
	d.Credentials = &api.CredentialsView{Pending: false}
	set(&d.Credentials.Username, "root")
	set(&d.Credentials.Password, "s3cret")
	set(&d.Credentials.Port, 22)
	set(&d.Credentials.IPv4, "192.0.2.7")
	set(&d.Credentials.IPv6, "2001:db8::7")
	d.Apps = []api.InstanceAppView{{AppID: "wordpress", Name: "WordPress", Status: "installed"}}
	d.IPChangeCost, d.ActiveFeatures, d.OrderID, d.Recurring = money.USD(2), []string{"1"}, 11, money.Micros(5_400)

	order := api.OrderView{OrderID: 11, Status: "deployed", Success: true, Server: &d}
	set(&order.CreatedAt, "2025-06-01T10:00:00Z")
	set(&order.FinishedAt, "2025-06-01T10:00:03Z")
	set(&order.Reference, "ref-11")

	var action api.ActionResultView
	action.Action, action.Success, action.QueuedApps = "resize", true, []string{"docker"}
	set(&action.Password, "pw")
	set(&action.IPv4, "192.0.2.8")
	set(&action.Clean, true)
	set(&action.Debt, money.Micros(-1))
	set(&action.ConsoleURL, "https://console.example.org/1")
	set(&action.ConsolePassword, "cpw")
	set(&action.Charged, money.Micros(417))
	set(&action.ServerProductID, 104)

	option := api.ResizeOptionView{ID: 104, Name: "CPU 4", Type: "cpu-optimized", CPU: 4, Memory: 4.5, Disk: 80,
		Term: "hourly", ChargeNow: money.Micros(10), NewCost: money.Micros(22_000)}
	set(&option.Price, money.Micros(22_000))

	install := api.AppInstallView{AppID: "wordpress", Name: "WordPress", Status: "installed", Stage: "done", Attempts: 2,
		Result: map[string]any{"url": "https://blog.example.org/", "n": 1.5}, Error: "e", LogTail: "tail"}
	set(&install.StartedAt, "2025-06-01T10:00:00Z")
	set(&install.FinishedAt, "2025-06-01T10:05:00Z")

	var snap api.SnapshotView
	snap.ID, snap.Name, snap.Status, snap.Locked, snap.Term = 5, "before upgrade", "available", true, "hourly"
	snap.Features, snap.Local, snap.Restore = []string{"Backup"}, true, true
	set(&snap.Note, "n")
	set(&snap.LockReason, "debt")
	set(&snap.SizeGB, 2.5)
	set(&snap.Price, money.Micros(137))
	set(&snap.PriceMonthly, money.Micros(100_000))
	set(&snap.Accrued, money.Micros(411))
	set(&snap.RenewalDue, "2025-06-01T12:00:00Z")
	set(&snap.CreatedAt, "2025-06-01T10:00:00Z")
	set(&snap.AvailableAt, "2025-06-01T10:01:00Z")
	set(&snap.ExpiredAt, "2025-06-02T10:00:00Z")
	set(&snap.InstanceID, 7)
	set(&snap.DatacenterID, 2)
	set(&snap.LocationID, 3)
	set(&snap.TemplateID, 4)
	set(&snap.ServerProductID, 102)
	set(&snap.OSType, "linux")
	set(&snap.SourceName, "web")
	set(&snap.PaidAmount, money.Micros(548))
	// Decoded rather than assigned, as local_snapshots above.
	if err := json.Unmarshal([]byte(`{"architecture": "arm64"}`), &snap); err != nil {
		t.Fatal(err)
	}
	// resellerd always sends local_snapshots and architecture, so the empty views hold them too.
	var noDC api.DatacenterView
	if err := json.Unmarshal([]byte(`{"local_snapshots": false}`), &noDC); err != nil {
		t.Fatal(err)
	}
	var noArch api.SnapshotView
	if err := json.Unmarshal([]byte(`{"architecture": "x86_64"}`), &noArch); err != nil {
		t.Fatal(err)
	}

	var plan api.PlanView
	plan.ID, plan.Name, plan.Type, plan.CPU, plan.Memory, plan.Disk, plan.TermFilter = 102, "Standard 2", "standard", 2, 4, 50, "hourly"
	plan.Prices = []api.PriceView{{Term: "hourly", Price: money.Micros(10_000), Currency: "USD"}}
	plan.CreationFee = money.Micros(500_000)
	plan.Templates = []api.TemplateView{{ID: 4, Name: "Debian 12", OSType: "linux"}}
	plan.Features = []api.FeatureView{{ID: 3, Name: "IPv4", Price: money.Micros(2_000), RequiredForOSTypes: []string{"windows"}}}
	plan.Actions, plan.Datacenter, plan.Location = []string{"reboot"}, &dc, &loc
	plan.Traffic = &api.PlanTrafficView{Included: 1000, AllowOverage: true, OveragePrice: money.Micros(10_001)}
	if err := json.Unmarshal([]byte(`{"architecture": "arm64"}`), &plan); err != nil {
		t.Fatal(err)
	}
	var noPlan api.PlanView
	if err := json.Unmarshal([]byte(`{"architecture": "x86_64"}`), &noPlan); err != nil {
		t.Fatal(err)
	}
	var app api.AppView
	app.ID, app.Name, app.Category, app.MinMemoryMB, app.MinDiskGB = "wordpress", "WordPress", "cms", 1024, 10
	set(&app.Description, "a blog")
	app.Requires, app.Conflicts, app.Ports, app.OSFamilies = []string{"mysql"}, []string{"ghost"}, []string{"80/tcp"}, []string{"debian"}
	app.Inputs = []api.AppInputView{{Key: "title", Label: "Title", Kind: "text", Required: true}, {Key: "k"}}
	set(&app.Inputs[1].Default, "d")
	set(&app.Inputs[1].Help, "h")
	var account api.AccountView
	account.ID, account.WebhookConfigured, account.ServerLimit, account.APIOrderLimit, account.Language = 1, true, 10, 5, "fa"
	set(&account.APIKeyHint, "…abcd")
	set(&account.APIKeyCreatedAt, "2025-06-01T10:00:00Z")
	hours := 82.33
	balance := api.BalanceView{Balance: money.USD(10) + 417, Debt: money.Micros(-1), Reserved: 1, Available: money.Max,
		HoursUntilBalanceZero: &hours, ActiveInstances: 2, PendingOrders: 1}
	var payment api.PaymentView
	payment.ID, payment.Amount = 9, money.USD(25)
	set(&payment.PaymentType, "card")
	set(&payment.PaidAt, "2025-06-01T10:00:00Z")
	var ping api.WebhookTestView
	ping.Delivered = true
	set(&ping.Status, 204)
	var hook api.WebhookView
	hook.Configured, hook.Events = true, []string{"order.deployed"}
	set(&hook.URL, "https://hooks.example.com/r")
	quote := api.QuoteView{ServerID: 102, Term: "hourly", ActiveFeatures: []string{"3"}, Cost: money.Micros(512_000),
		CreationFee: money.Micros(500_000), Recurring: money.Micros(12_000), Balance: money.USD(10), Reserved: 3,
		SufficientBalance: true, Difference: money.Micros(-9_487_997)}

	return []struct {
		name string
		v    any
	}{
		{"order", order},
		{"order empty", api.OrderView{}},
		{"instance detail empty", api.InstanceDetailView{}},
		{"instance summary", []api.InstanceSummaryView{{ID: 7, Name: "web", Active: true, Actions: []string{}}}},
		{"created order", api.CreatedOrderView{OrderID: 11, Price: money.Micros(1_900_000), Apps: []string{"wordpress"}}},
		{"canceled", api.CanceledInstanceView{ID: 7, Status: "canceled"}},
		{"action", action},
		{"action empty", api.ActionResultView{}},
		{"resize options", api.ResizeOptionsView{InstanceID: 7, CurrentServerProductID: 102, Term: "hourly",
			Options: []api.ResizeOptionView{option, {}}}},
		{"apps", api.InstanceAppsView{ServerID: 7, Supported: true, Installs: []api.AppInstallView{install, {}}}},
		{"installed", api.InstalledAppsView{ServerID: 7, Queued: []string{"docker"}}},
		{"datacenter empty", noDC},
		{"location empty", api.LocationView{}},
		{"snapshot", snap},
		{"snapshot empty", noArch},
		{"plan", plan},
		{"plan empty", noPlan},
		{"app", app},
		{"app empty", api.AppView{}},
		{"account", account},
		{"account empty", api.AccountView{}},
		{"balance", balance},
		{"balance empty", api.BalanceView{}},
		{"payment", payment},
		{"webhook test", ping},
		{"webhook test empty", api.WebhookTestView{}},
		{"webhook", hook},
		{"webhook empty", api.WebhookView{}},
		{"quote", quote},
		{"quote empty", api.QuoteView{}},
		{"health", api.HealthView{Status: "ok", API: "v1"}},
		{"dollar", api.DollarView{Base: "USD", Currency: "IRR", Price: 1_234_567.5, UpdatedAt: "2026-01-01T00:00:00Z"}},
	}
}

// TestViewsGolden: the views encode, through the API's encoder, to exactly the bytes in
// testdata/views.golden, so moving the shapes to another package or type, or changing the
// encoder, changes nothing on the wire (go test -update rewrites the file; review its diff).
func TestViewsGolden(t *testing.T) {
	var b strings.Builder
	for _, c := range goldenViews(t) {
		out, err := api.EncodeAnswer(c.v) // the bytes the API sends, its newline included
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		b.WriteString(c.name + ": " + string(out))
	}
	path := filepath.Join("testdata", "views.golden")
	if *updateGolden {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, wantLines := strings.Split(b.String(), "\n"), strings.Split(string(want), "\n")
	if len(got) != len(wantLines) {
		t.Fatalf("got %d lines, want %d:\n%s", len(got), len(wantLines), b.String())
	}
	for i := range got {
		if got[i] != wantLines[i] {
			t.Errorf("got  %s\nwant %s", got[i], wantLines[i])
		}
	}
}
