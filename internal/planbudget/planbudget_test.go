package planbudget

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// fakeAPI answers GET /account, GET /account/balance and POST /quote, counting the requests.
type fakeAPI struct {
	serverLimit, active, pending int64
	balance, reserved            float64
	quoteCost                    float64
	requests                     map[string]*atomic.Int64
}

func (f *fakeAPI) start(t *testing.T) *client.Client {
	t.Helper()
	f.requests = map[string]*atomic.Int64{"/api/v1/account": {}, "/api/v1/account/balance": {}, "/api/v1/quote": {}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.requests[r.URL.Path].Add(1)
		var data any
		switch r.URL.Path {
		case "/api/v1/account":
			data = map[string]any{"id": 1, "server_limit": f.serverLimit, "api_order_limit": 5, "language": "en"}
		case "/api/v1/account/balance":
			data = map[string]any{"balance": f.balance, "debt": 0, "reserved": f.reserved, "available": f.balance - f.reserved,
				"active_instances": f.active, "pending_orders": f.pending}
		case "/api/v1/quote":
			data = map[string]any{"server_id": 101, "term": "hourly", "cost": f.quoteCost}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"success": true, "data": data})
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{Endpoint: srv.URL + "/api/v1", APIKey: "k", Language: "en", UserAgent: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// warnings returns the summaries of diags.
func summaries(diags diag.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Summary()+": "+d.Detail())
	}
	return out
}

// TestAddServerLimit: five new servers on an account with room for three give exactly two
// findings, the last naming the whole need; replacements need no room.
func TestAddServerLimit(t *testing.T) {
	api := &fakeAPI{serverLimit: 5, active: 2, pending: 0, balance: 100}
	run := New(api.start(t), ModeWarn)
	ctx := context.Background()
	var diags diag.Diagnostics
	var flagged int
	for i := range 5 {
		var d diag.Diagnostics
		run.Add(ctx, Create{Charge: 1, ChargeKnown: true}, &d)
		if len(d) > 0 {
			flagged++
			if i < 3 {
				t.Errorf("create %d: got %q, want no finding within the room", i+1, summaries(d))
			}
		}
		diags.Append(d...)
	}
	if flagged != 2 || diags.HasError() {
		t.Fatalf("got %d flagged creates (errors %v), want 2 warnings", flagged, diags.HasError())
	}
	want := "This plan orders at least 5 new servers; the account has room for 3 (server_limit 5: 2 active, 0 provisioning)."
	if got := diags[1].Detail(); !strings.Contains(got, want) || !strings.Contains(got, "Raise the account's server_limit") {
		t.Errorf("last finding: got %q, want it to contain %q and the remedy", got, want)
	}
	var d diag.Diagnostics
	run.Add(ctx, Create{Replaces: 42}, &d)
	run.Add(ctx, Create{Replaces: 42}, &d)
	if len(d) != 0 {
		t.Errorf("replacement: got %q, want no finding", summaries(d))
	}
	if n := api.requests["/api/v1/account"].Load() + api.requests["/api/v1/account/balance"].Load(); n != 2 {
		t.Errorf("account reads: got %d requests, want 2 (once per run)", n)
	}
}

// TestAddBalance: a wallet covering two of three first charges flags the third, as an error in
// mode "error"; a replacement is charged too; a charge unknown at plan time is left out.
func TestAddBalance(t *testing.T) {
	api := &fakeAPI{serverLimit: 10, balance: 1.0, reserved: 0.2}
	run := New(api.start(t), ModeError)
	ctx := context.Background()
	var results []diag.Diagnostics
	for _, c := range []Create{{Charge: 0.3, ChargeKnown: true}, {ChargeKnown: false}, {Charge: 0.3, ChargeKnown: true, Replaces: 7}, {Charge: 0.3, ChargeKnown: true}} {
		var d diag.Diagnostics
		run.Add(ctx, c, &d)
		results = append(results, d)
	}
	for i, d := range results[:3] {
		if len(d) != 0 {
			t.Errorf("create %d: got %q, want none (0.6 of 0.8 available)", i+1, summaries(d))
		}
	}
	last := results[3]
	if len(last) != 1 || !last.HasError() {
		t.Fatalf("third charge: got %q, want one error", summaries(last))
	}
	want := "come to at least $0.90 (this server: $0.30); the account has $0.80 available (balance $1.00 minus $0.20 reserved"
	if !strings.Contains(last[0].Detail(), want) || !strings.Contains(last[0].Detail(), "Top up the wallet") {
		t.Errorf("got %q, want it to contain %q and the remedy", last[0].Detail(), want)
	}
}

// TestDeletedFreesRoom: a server deleted by this process after the account was read makes room
// for the replacement the apply re-plans after the destroy.
func TestDeletedFreesRoom(t *testing.T) {
	api := &fakeAPI{serverLimit: 1, active: 1, balance: 100}
	run := New(api.start(t), ModeError)
	ctx := context.Background()
	run.Deleted() // before the read: the read sees it
	var d diag.Diagnostics
	run.Add(ctx, Create{}, &d)
	if len(d) != 1 {
		t.Fatalf("no room: got %q, want one finding", summaries(d))
	}
	run.Deleted()
	d = nil
	run.Add(ctx, Create{}, &d)
	if len(d) != 1 || !strings.Contains(d[0].Detail(), "at least 2 new servers; the account has room for 1") {
		t.Errorf("after a delete: got %q, want the second server over a room of 1", summaries(d))
	}
}

// TestModeOff: nothing is read or reported.
func TestModeOff(t *testing.T) {
	api := &fakeAPI{serverLimit: 0, balance: 0}
	run := New(api.start(t), ModeOff)
	var d diag.Diagnostics
	run.Add(context.Background(), Create{Charge: 5, ChargeKnown: true}, &d)
	if len(d) != 0 || api.requests["/api/v1/account"].Load() != 0 {
		t.Errorf("got %q and %d account reads, want nothing", summaries(d), api.requests["/api/v1/account"].Load())
	}
}

// TestFirstChargeOncePerOrder: concurrent callers for the same plan, template and features (in
// any order) share one POST /quote; another template asks again.
func TestFirstChargeOncePerOrder(t *testing.T) {
	api := &fakeAPI{quoteCost: 0.0125}
	run := New(api.start(t), ModeWarn)
	ctx := context.Background()
	tmpl, other := int64(1), int64(3)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			features := []string{"1", "2"}
			if i%2 == 0 {
				features = []string{"2", "1"}
			}
			if cost, ok := run.FirstCharge(ctx, client.QuoteRequest{ServerID: 101, TemplateID: &tmpl, ActiveFeatures: features}); !ok || cost != 0.0125 {
				t.Errorf("got %v %v, want 0.0125", cost, ok)
			}
		}()
	}
	wg.Wait()
	if _, ok := run.FirstCharge(ctx, client.QuoteRequest{ServerID: 101, TemplateID: &other}); !ok {
		t.Error("other template: not priced")
	}
	if n := api.requests["/api/v1/quote"].Load(); n != 2 {
		t.Errorf("quotes: got %d requests, want 2 (one per distinct order)", n)
	}
}

// TestCancelledQuoteIsAskedAgain: a caller whose context ends while it asks for a quote leaves
// no failure behind; the next caller with the same order asks again and gets the price.
func TestCancelledQuoteIsAskedAgain(t *testing.T) {
	api := &fakeAPI{quoteCost: 0.0125}
	run := New(api.start(t), ModeWarn)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := run.FirstCharge(cancelled, client.QuoteRequest{ServerID: 101}); ok {
		t.Fatal("a cancelled caller got a price")
	}
	if cost, ok := run.FirstCharge(context.Background(), client.QuoteRequest{ServerID: 101}); !ok || cost != 0.0125 {
		t.Fatalf("the next caller: %v %v, want 0.0125", cost, ok)
	}
}
