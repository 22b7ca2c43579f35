package resellerd

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/storetest"
)

// TestOrdersReadServersInOneQuery lists 60 deployed orders through GET /orders and counts the
// reads: one query for all their instances and one for all their app installs, not one of each
// per order.
func TestOrdersReadServersInOneQuery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var reads storetest.Reads
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "orders.db"), sqlstore.WithReadHook(reads.Hook))
	if err != nil {
		t.Fatal(err)
	}
	clock := NewManualClock(testStart)
	srv := testOnStore(t, ctx, withDefaults(Config{Clock: clock, WorkerInterval: -1}), st)
	t.Cleanup(func() { _ = srv.Close() })
	a, err := srv.CreateAccount(ctx, NewAccount{BalanceMicros: 1_000_000_000, ServerLimit: 100, OrderLimit: 100})
	if err != nil {
		t.Fatal(err)
	}
	const orders = 60
	fillIdle(t, st, a.ID, orders, clock.Now())
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)

	reads.Take()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, hs.URL+"/api/v1/orders", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Token", a.APIKey)
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Data []struct {
			Server *struct {
				ID int64 `json:"id"`
			} `json:"server"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("status %d: %v", resp.StatusCode, err)
	}
	if len(body.Data) != orders {
		t.Fatalf("GET /orders listed %d orders, want %d", len(body.Data), orders)
	}
	for i, o := range body.Data {
		if o.Server == nil || o.Server.ID == 0 {
			t.Fatalf("order %d has no server", i)
		}
	}
	n := reads.Take().Queries
	// The app installs' statement reads their instances' accounts too (the owner their sealed
	// values are bound to): instances appear in two statements, app installs in one.
	instances, installs := n["instances"], n["app_installs"]
	if instances != 2 || installs != 1 {
		t.Fatalf("GET /orders of %d deployed orders read instances %d times and app installs %d times, want 2 and 1",
			orders, instances, installs)
	}
}
