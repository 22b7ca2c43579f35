package client_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

func created(orderID int64, replay bool) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{
			"success": true,
			"data":    map[string]any{"order_id": orderID, "price": 0.0125, "apps": []string{"mysql", "wordpress"}},
			"meta":    map[string]any{"idempotent_replay": replay},
		}, nil)
	}
}

// TestCreateInstanceWaitsOutInProgress: while an earlier attempt with the same key is still
// being processed (409 idempotency_in_progress), the create waits and repeats with the same key
// and body, and reports the replay.
func TestCreateInstanceWaitsOutInProgress(t *testing.T) {
	t.Parallel()
	s := newStub(t,
		hangup, // the first attempt reached the server, but its answer was lost
		apiError(http.StatusConflict, client.CodeIdempotencyInProgress, "first request unfinished", nil, nil),
		created(41, true),
	)
	c := newClient(t, client.Config{Endpoint: s.endpoint(), MaxRetries: 3})
	waits := recordWaits(c)
	tmpl := int64(1)
	in := client.CreateInstanceRequest{ServerID: 101, TemplateID: &tmpl, Apps: []string{"wordpress"}}
	order, err := c.CreateInstance(context.Background(), in, "tf-KEY1")
	if err != nil {
		t.Fatalf("CreateInstance: %v", err)
	}
	if order.OrderID != 41 || !order.Replayed || order.Price != 0.0125 || strings.Join(order.Apps, ",") != "mysql,wordpress" {
		t.Errorf("order: got %+v, want order 41, replayed, price 0.0125, apps mysql,wordpress", order)
	}
	reqs := s.requests()
	if len(reqs) != 3 || len(*waits) != 2 {
		t.Fatalf("attempts and waits: got %d and %d, want 3 and 2", len(reqs), len(*waits))
	}
	for i, r := range reqs {
		if got := r.header.Get("Idempotency-Key"); got != "tf-KEY1" {
			t.Errorf("attempt %d Idempotency-Key: got %q, want tf-KEY1", i+1, got)
		}
		if r.body != reqs[0].body {
			t.Errorf("attempt %d body: got %s, want the first attempt's %s", i+1, r.body, reqs[0].body)
		}
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(reqs[0].body), &body); err != nil {
		t.Fatal(err)
	}
	if body["term"] != "hourly" || body["server_id"] != float64(101) || body["template_id"] != float64(1) {
		t.Errorf("body: got %v, want term hourly, server 101, template 1", body)
	}
	for _, absent := range []string{"snapshot_id", "hostname", "active_features", "app_inputs"} {
		if _, ok := body[absent]; ok {
			t.Errorf("body: %q sent although not set", absent)
		}
	}
}

func TestCreateInstanceErrors(t *testing.T) {
	t.Parallel()
	c := newClient(t, client.Config{Endpoint: "http://127.0.0.1:1/api/v1"})
	if _, err := c.CreateInstance(context.Background(), client.CreateInstanceRequest{ServerID: 1}, ""); err == nil {
		t.Errorf("empty key: got no error, want one")
	}
	s := newStub(t, apiError(http.StatusConflict, client.CodeIdempotencyInProgress, "unfinished", nil, nil))
	c = newClient(t, client.Config{Endpoint: s.endpoint(), MaxRetries: 2})
	recordWaits(c)
	_, err := c.CreateInstance(context.Background(), client.CreateInstanceRequest{ServerID: 1}, "k")
	if !client.IsCode(err, client.CodeIdempotencyInProgress) {
		t.Errorf("got %v, want idempotency_in_progress after the retries", err)
	}
	if n := len(s.requests()); n != 3 {
		t.Errorf("attempts: got %d, want 3 (one plus max_retries)", n)
	}
	if a, b := client.NewIdempotencyKey(), client.NewIdempotencyKey(); a == b || !strings.HasPrefix(a, "tf-") {
		t.Errorf("NewIdempotencyKey: got %q and %q, want two different tf- keys", a, b)
	}
}

// TestActionsNotRetriedOn502: an action may have run when a 502 arrives, so it is not repeated.
func TestActionsNotRetriedOn502(t *testing.T) {
	t.Parallel()
	s := newStub(t, apiError(http.StatusBadGateway, client.CodeProviderError, "datacenter down", map[string]string{"reference": "R1"}, nil))
	c := newClient(t, client.Config{Endpoint: s.endpoint(), MaxRetries: 3})
	_, err := c.RunAction(context.Background(), 7, client.ActionRequest{Action: client.ActionResetPassword})
	if apiErr, ok := client.AsAPIError(err); !ok || apiErr.Reference != "R1" {
		t.Fatalf("got %v, want the provider_error with its reference", err)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("attempts: got %d, want 1", n)
	}
}

func TestInstanceEndpointsDecode(t *testing.T) {
	t.Parallel()
	instance := map[string]any{
		"id": 7, "name": "web", "status": "online", "active": true, "hostname": "web", "server_product_id": 101,
		"credentials":     map[string]any{"username": "root", "password": nil, "port": 22, "ipv4": "10.0.0.1", "ipv6": nil, "pending": true},
		"traffic":         map[string]any{"enabled": true, "included": 1000, "used": 1, "overage": 0, "allow_overage": true, "cycle_start_date": nil},
		"active_features": []string{"1"}, "order_id": 3, "ip_change_cost": 0.5, "note": "hi",
	}
	s := newStub(t,
		ok(instance, nil),
		ok(map[string]any{"order_id": 3, "status": "deployed", "success": true, "server": instance}, nil),
		ok(map[string]any{"instance_id": 7, "current_server_product_id": 101, "term": "hourly",
			"options": []any{map[string]any{"id": 102, "name": "M", "type": "std", "cpu": 2, "memory": 2, "disk": 50,
				"price": 0.01, "term": "hourly", "charge_now": 0.001, "new_cost": 0.01}}}, nil),
		ok(map[string]any{"server_id": 7, "supported": true, "installs": []any{map[string]any{"app_id": "docker",
			"status": "failed", "stage": "auth_failed", "log_tail": "denied", "result": map[string]any{}}}}, nil),
	)
	c := newClient(t, client.Config{Endpoint: s.endpoint()})
	ctx := context.Background()
	in, err := c.GetInstance(ctx, 7, true)
	if err != nil {
		t.Fatal(err)
	}
	if !in.CredentialsPending() || in.Credentials.Password != nil || in.Gone() || in.OrderID != 3 ||
		in.Note == nil || *in.Note != "hi" || in.ActiveFeatures[0] != "1" || in.IPChangeCost != 0.5 {
		t.Errorf("instance: got %+v", in)
	}
	o, err := c.GetOrder(ctx, 3)
	if err != nil || o.Status != client.OrderDeployed || o.Server == nil || o.Server.ID != 7 {
		t.Errorf("order: got %+v, %v", o, err)
	}
	opts, err := c.GetResizeOptions(ctx, 7)
	if err != nil || !opts.Has(102) || opts.Has(103) {
		t.Errorf("resize options: got %+v, %v; want 102 only", opts, err)
	}
	apps, err := c.ListInstanceApps(ctx, 7)
	if err != nil || len(apps.Installs) != 1 || apps.Installs[0].LogTail != "denied" {
		t.Errorf("apps: got %+v, %v", apps, err)
	}
	reqs := s.requests()
	wantPaths := []string{"/api/v1/instances/7", "/api/v1/orders/3", "/api/v1/instances/7/resize-options", "/api/v1/instances/7/apps"}
	for i, want := range wantPaths {
		if reqs[i].path != want {
			t.Errorf("request %d: got path %s, want %s", i+1, reqs[i].path, want)
		}
	}
	if reqs[0].rawQuery != "refresh=true" {
		t.Errorf("GetInstance refresh: got query %q, want refresh=true", reqs[0].rawQuery)
	}
}
