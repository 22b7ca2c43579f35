package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// tenantKey is the key of the live database's tenant in the seed tests: not one of the seed's.
const tenantKey = "tenant-0123456789abcdef0123456789abcdef"

// ownSeed is a seed of one account with one server, whose own webhook is a loopback http URL.
const ownSeed = `accounts:
  - api_key: ` + seedKey + `
    balance: 10
    servers:
      - name: own-1
        plan_id: 101
        template_id: 1
    webhook:
      url: http://127.0.0.1:9/own
      secret: s-0123456789abcdef
`

// TestSeedDoesOnlyItsOwnWork: `resellerd seed` into a live SQLite database moves no other
// tenant's work.
func TestSeedDoesOnlyItsOwnWork(t *testing.T) {
	t.Parallel()
	testSeedDoesOnlyItsOwnWork(t, filepath.Join(t.TempDir(), "live.db"))
}

// TestSeedDoesOnlyItsOwnWorkPostgres is TestSeedDoesOnlyItsOwnWork on PostgreSQL.
func TestSeedDoesOnlyItsOwnWorkPostgres(t *testing.T) {
	t.Parallel()
	testSeedDoesOnlyItsOwnWork(t, pg.Database(t))
}

// testSeedDoesOnlyItsOwnWork seeds db, which holds another tenant's history 200 hours old: an
// event delivered then (older than the default retention of 168 h), a delivery due since then
// to a loopback receiver, an hourly server whose renewals are due. The seed gets
// --allow-http-webhooks, so nothing but its scope keeps it from that receiver. After it the
// receiver saw no connection, the tenant's events, deliveries and wallet are as they were, and
// the seed's own server is online.
func testSeedDoesOnlyItsOwnWork(t *testing.T, db string) {
	t.Helper()
	ctx := t.Context()
	hook := newConnCounter(t)
	tenant := liveTenant(t, db, hook.url)
	before := readOutbox(t, db, tenant)
	if !slices.Contains(before.statuses, store.DeliveryDelivered) || !slices.Contains(before.statuses, store.DeliveryPending) {
		t.Fatalf("the live database's deliveries are %v, want one delivered and one pending", before.statuses)
	}
	seen := hook.conns.Load()

	code, out, errOut := cli(t, noEnv, "seed", "--db", db, "--allow-http-webhooks", writeSeed(t, ownSeed))
	if code != exitOK {
		t.Fatalf("seed: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if n := hook.conns.Load() - seen; n != 0 {
		t.Fatalf("the tenant's receiver got %d connections during the seed, want none", n)
	}
	if after := readOutbox(t, db, tenant); !slices.Equal(after.events, before.events) ||
		!slices.Equal(after.statuses, before.statuses) || after.balance != before.balance {
		t.Fatalf("the seed changed the tenant's outbox or wallet:\nbefore %+v\nafter  %+v", before, after)
	}

	srv, err := resellerd.New(ctx, resellerd.Config{DB: db, WorkerInterval: -1, KeepFailRate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	api := httptest.NewServer(srv.Handler())
	defer api.Close()
	var servers []seededServer
	if status := apiCall(t, api.URL, "GET", "/api/v1/instances", seedKey, "", &servers); status != 200 ||
		len(servers) != 1 || servers[0].Name != "own-1" || servers[0].Status != "online" {
		t.Fatalf("the seed's servers: %d %+v, want own-1 online", status, servers)
	}
}

// connCounter is a webhook receiver answering 200 that counts the connections it accepts.
type connCounter struct {
	url   string
	conns atomic.Int64
}

func newConnCounter(t *testing.T) *connCounter {
	t.Helper()
	c := &connCounter{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			c.conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c.url = srv.URL + "/hook"
	return c
}

// stillClock is a clock that stands at one time.
type stillClock struct{ at time.Time }

func (c stillClock) Now() time.Time { return c.at }

// liveTenant writes a tenant's history into db as a backend would have 200 hours ago: a webhook
// to hookURL, an hourly server deployed and its order.deployed delivered, then a password reset
// whose delivery is left pending. It returns the tenant's account id.
func liveTenant(t *testing.T, db, hookURL string) int64 {
	t.Helper()
	ctx := t.Context()
	srv, err := resellerd.New(ctx, resellerd.Config{DB: db, Clock: stillClock{time.Now().Add(-200 * time.Hour)},
		WorkerInterval: -1, AllowHTTPWebhooks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	acct, err := srv.CreateAccount(ctx, resellerd.NewAccount{APIKey: tenantKey, BalanceMicros: 100_000_000, ServerLimit: 5, OrderLimit: 5, Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	api := httptest.NewServer(srv.Handler())
	defer api.Close()
	if status := apiCall(t, api.URL, "PUT", "/api/v1/account/webhook", tenantKey,
		`{"url": "`+hookURL+`", "secret": "tenant-secret-0123456789"}`, nil); status != 200 {
		t.Fatalf("PUT webhook: %d", status)
	}
	var order struct {
		OrderID int64 `json:"order_id"`
	}
	if status := apiCall(t, api.URL, "POST", "/api/v1/instances", tenantKey,
		`{"server_id": 101, "template_id": 1, "term": "hourly"}`, &order); status != 201 {
		t.Fatalf("POST /instances: %d", status)
	}
	instanceID := deployedBy(t, srv, api.URL, order.OrderID)
	if status := apiCall(t, api.URL, "POST", fmt.Sprintf("/api/v1/instances/%d/actions", instanceID), tenantKey,
		`{"action": "reset_password"}`, nil); status != 200 {
		t.Fatalf("reset_password: %d", status)
	}
	return acct.ID
}

// deployedBy runs srv's workers until the tenant's order has deployed and returns its instance.
func deployedBy(t *testing.T, srv *resellerd.Server, base string, orderID int64) int64 {
	t.Helper()
	for range 20 {
		if err := srv.RunDue(t.Context()); err != nil {
			t.Fatal(err)
		}
		var o struct {
			Status string `json:"status"`
			Server *struct {
				ID int64 `json:"id"`
			} `json:"server"`
		}
		apiCall(t, base, "GET", fmt.Sprintf("/api/v1/orders/%d", orderID), tenantKey, "", &o)
		if o.Status == "deployed" && o.Server != nil {
			return o.Server.ID
		}
	}
	t.Fatalf("order %d did not deploy", orderID)
	return 0
}

// apiCall sends method path to base with key and body, decodes the envelope's data into out
// (when not nil) and returns the status.
func apiCall(t *testing.T, base, method, path, key, body string, out any) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Token", key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", fmt.Sprintf("k-%d", time.Now().UnixNano()))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		a := answer{status: resp.StatusCode}
		if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		if a.Success {
			a.into(t, out)
		}
	}
	return resp.StatusCode
}

// outbox is what the tests read of an account straight from the store: its event ids, the
// statuses of its deliveries and its balance.
type outbox struct {
	events   []string
	statuses []string
	balance  int64
}

// readOutbox opens db's store (no backend) and reads the outbox and wallet of account id.
func readOutbox(t *testing.T, db string, id int64) outbox {
	t.Helper()
	ctx := t.Context()
	st := openStore(ctx, t, db)
	defer st.Close()
	events, err := st.Events(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	deliveries, err := st.Deliveries(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := st.Account(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var o outbox
	for _, e := range events {
		o.events = append(o.events, e.Name+" "+e.ID)
	}
	for _, d := range deliveries {
		o.statuses = append(o.statuses, d.Status)
	}
	o.balance = int64(acct.Balance)
	return o
}

// openStore opens the store of db, a SQLite path or a postgres:// URL.
func openStore(ctx context.Context, t *testing.T, db string) *sqlstore.Store {
	t.Helper()
	kind, target, err := resellerd.ParseDB(db)
	if err != nil {
		t.Fatal(err)
	}
	var st *sqlstore.Store
	if kind == resellerd.DBPostgres {
		st, err = sqlstore.OpenPostgres(ctx, target)
	} else {
		st, err = sqlstore.OpenSQLite(ctx, target)
	}
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSeedTakesServesWebhookPolicy: `resellerd seed` takes serve's webhook flags with serve's
// defaults and variables: a loopback http:// webhook needs --allow-http-webhooks (or
// RESELLER_ALLOW_HTTP_WEBHOOKS), an internal address --webhook-allow-cidr (or its variable), and
// a refused webhook fails naming its line with nothing written; a negative --retain-events is a
// usage error.
func TestSeedTakesServesWebhookPolicy(t *testing.T) {
	t.Parallel()
	internal := strings.Replace(ownSeed, "http://127.0.0.1:9/own", "https://10.20.0.5/own", 1)
	for _, tt := range []struct {
		name    string
		seed    string
		args    []string
		env     map[string]string
		want    int
		wantErr string
	}{
		{"loopback http refused by default", ownSeed, nil, nil, exitError, ":9: accounts[0].webhook.url: url:"},
		{"loopback http with the flag", ownSeed, []string{"--allow-http-webhooks"}, nil, exitOK, ""},
		{"loopback http with the variable", ownSeed, nil, map[string]string{"RESELLER_ALLOW_HTTP_WEBHOOKS": "true"}, exitOK, ""},
		{"internal address refused by default", internal, []string{"--allow-http-webhooks"}, nil, exitError, ":9: accounts[0].webhook.url: url:"},
		{"internal address admitted", internal, []string{"--webhook-allow-cidr", "10.20.0.0/16"}, nil, exitOK, ""},
		{"internal address admitted by the variable", internal, nil, map[string]string{"RESELLER_WEBHOOK_ALLOW_CIDR": "10.20.0.0/16"}, exitOK, ""},
		{"negative retention", ownSeed, []string{"--retain-events", "-1h"}, nil, exitUsage, "seed: --retain-events must not be negative"},
		{"retention from its variable", ownSeed, []string{"--allow-http-webhooks"}, map[string]string{"RESELLER_RETAIN_EVENTS": "a week"}, exitUsage, "RESELLER_RETAIN_EVENTS"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "r.db")
			args := append(append([]string{"seed", "--db", db}, tt.args...), writeSeed(t, tt.seed))
			code, _, errOut := cli(t, mapEnv(tt.env), args...)
			if code != tt.want || !strings.Contains(errOut, tt.wantErr) {
				t.Fatalf("exit %d, stderr %q; want %d naming %q", code, errOut, tt.want, tt.wantErr)
			}
			if _, err := os.Stat(db); (err == nil) != (code == exitOK) {
				t.Fatalf("exit %d, and the database's stat says %v: a refused seed must not even create it", code, err)
			}
		})
	}
}
