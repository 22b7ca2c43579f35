package apitest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/pgtest"
)

// pg is this test binary's throwaway PostgreSQL server, started by the first test that needs it.
var pg pgtest.Shared

func TestMain(m *testing.M) { pg.Main(m) }

// TestPostgresEndToEnd runs one account's life on PostgreSQL: order, deploy, the first hours of
// billing, a top-up, and a restart that finds it all again.
func TestPostgresEndToEnd(t *testing.T) {
	t.Parallel()
	url := pg.Database(t)
	e := openEnv(t, resellerd.Config{DB: url, Clock: resellerd.NewManualClock(testStart), WorkerInterval: -1, RateLimitScale: 100})
	a := e.funded(t, 10_000_000)
	c := e.placed(t, a.APIKey, ubuntuOn101)
	if b := e.balance(t, a.APIKey); b.PendingOrders != 1 || dollars(b.Reserved) != dollars(c.Price) {
		t.Fatalf("balance while pending = %+v, want 1 order reserving %v", b, dollars(c.Price))
	}
	e.runDue(t)
	o := e.getOrder(t, a.APIKey, c.OrderID)
	if o.Status != "deployed" || o.Server == nil {
		t.Fatalf("order is %s, want deployed", o.Status)
	}
	in := e.getInstance(t, a.APIKey, o.Server.ID)
	for range 2 {
		e.clock.Advance(time.Hour)
		e.runDue(t)
	}
	want := 10 - dollars(c.Price) - 2*(dollars(in.Recurring))
	if b := e.balance(t, a.APIKey); !near(dollars(b.Balance), want) || b.ActiveInstances != 1 || b.PendingOrders != 0 {
		t.Fatalf("balance after two hours = %+v, want %.6f with one active instance", b, want)
	}
	if err := e.srv.TopUp(context.Background(), a.ID, 5_000_000, "card"); err != nil {
		t.Fatal(err)
	}
	e.wantReconciled(t, a.ID)

	restarted := openEnv(t, resellerd.Config{DB: url, Clock: e.clock, WorkerInterval: -1, RateLimitScale: 100})
	if b := restarted.balance(t, a.APIKey); !near(dollars(b.Balance), want+5) {
		t.Fatalf("balance after restart = %v, want %.6f", dollars(b.Balance), want+5)
	}
	if got := restarted.getInstance(t, a.APIKey, in.ID); got.Status == nil || *got.Status != "online" {
		t.Fatalf("instance after restart = %+v, want online", got)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestPostgresTwoReplicas runs two backends on one database, as two replicas behind a load
// balancer: orders and a repeated Idempotency-Key arrive at both at once while both run their
// workers, then both bill the same hours at once. Every order is deployed exactly once, every
// hour is charged once, every event is delivered once, and the ledger adds up to the balance.
func TestPostgresTwoReplicas(t *testing.T) {
	t.Parallel()
	url := pg.Database(t)
	clock := resellerd.NewManualClock(testStart)
	cfg := resellerd.Config{DB: url, Clock: clock, WorkerInterval: -1, RateLimitScale: 100, AllowHTTPWebhooks: true}
	replicas := []*env{openEnv(t, cfg), openEnv(t, cfg)}
	a := replicas[0].funded(t, 100_000_000)
	hook := newReceiver(t, http.StatusOK)
	replicas[1].register(t, a.APIKey, hook.url())

	const orders = 10
	created := orderFromBoth(t, replicas, a.APIKey, orders)
	runBoth(t, replicas, 2)
	const hours = 3
	for range hours {
		clock.Advance(time.Hour)
		runBoth(t, replicas, 2)
	}

	st := replicas[0].database(t)
	ctx := context.Background()
	instances, total, err := st.Instances(ctx, a.ID, true, store.All)
	if err != nil {
		t.Fatal(err)
	}
	if total != len(created) || len(created) != orders+1 {
		t.Fatalf("%d instances for %d orders (%d posted, and one key sent to each replica); want one per order",
			total, len(created), orders)
	}
	for _, in := range instances {
		if o := replicas[1].getOrder(t, a.APIKey, in.OrderID); o.Status != "deployed" || o.Server.ID != in.ID {
			t.Fatalf("order %d is %s with server %v, want deployed as instance %d", in.OrderID, o.Status, o.Server, in.ID)
		}
	}
	_, entries := replicas[0].ledger(t, a.ID)
	wantCharges(t, entries, store.LedgerOrder, len(created))
	wantCharges(t, entries, store.LedgerRenewal, len(created)*hours)
	replicas[0].wantReconciled(t, a.ID)
	wantDeliveredOnce(t, hook, replicas[0].events(t, a.ID))
}

// orderFromBoth posts orders to both replicas at once, plus one Idempotency-Key sent to each
// replica, while both run their workers; it returns the ids of the distinct orders. (Within one
// replica a repeat of a key still in progress answers 409 idempotency_in_progress; across
// replicas the second waits for the first's commit and replays its order.)
func orderFromBoth(t *testing.T, replicas []*env, key string, orders int) map[int64]bool {
	t.Helper()
	stop := make(chan struct{})
	var workers sync.WaitGroup
	workerErrs := make([]error, len(replicas))
	for i, r := range replicas {
		workers.Go(func() {
			for workerErrs[i] == nil {
				select {
				case <-stop:
					return
				default:
					workerErrs[i] = r.srv.RunDue(context.Background())
				}
			}
		})
	}
	answers := make([]response, orders+len(replicas))
	errs := make([]error, len(answers))
	var posts sync.WaitGroup
	for i := range answers {
		r := request{Method: http.MethodPost, Path: "/instances", Key: key, Body: ubuntuOn101}
		if i >= orders {
			r.Header = map[string]string{"Idempotency-Key": "replayed-key"}
		}
		posts.Go(func() { answers[i], errs[i] = replicas[i%len(replicas)].send(r) })
	}
	posts.Wait()
	close(stop)
	workers.Wait()
	for i, err := range workerErrs {
		if err != nil {
			t.Fatalf("replica %d: RunDue while orders arrived: %v", i, err)
		}
	}
	created := map[int64]bool{}
	for i, r := range answers {
		if errs[i] != nil {
			t.Fatalf("order %d: %v", i, errs[i])
		}
		r.WantStatus(t, http.StatusCreated, "")
		var c api.CreatedOrderView
		r.Data(t, &c)
		created[c.OrderID] = true
	}
	return created
}

// runBoth runs every worker of both replicas at once, each from several goroutines.
func runBoth(t *testing.T, replicas []*env, perReplica int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(replicas)*perReplica)
	for _, r := range replicas {
		for range perReplica {
			wg.Go(func() { errs <- r.srv.RunDue(context.Background()) })
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("RunDue: %v", err)
		}
	}
}

// wantCharges fails unless the ledger has n entries of kind, each with its own reference.
func wantCharges(t *testing.T, entries []store.LedgerEntry, kind string, n int) {
	t.Helper()
	refs := map[string]int{}
	for _, en := range entries {
		if en.Kind == kind {
			refs[en.Reference]++
		}
	}
	for ref, count := range refs {
		if count != 1 {
			t.Fatalf("%s %q booked %d times, want once", kind, ref, count)
		}
	}
	if len(refs) != n {
		t.Fatalf("%d %s charges, want %d", len(refs), kind, n)
	}
}

// wantDeliveredOnce fails unless the receiver got every event exactly once.
func wantDeliveredOnce(t *testing.T, hook *receiver, events []store.Event) {
	t.Helper()
	seen := map[string]int{}
	for _, d := range hook.deliveries() {
		seen[d.header.Get("X-Service-Delivery")]++
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("delivery %s sent %d times, want once", id, n)
		}
	}
	if len(seen) != len(events) {
		var names []string
		for _, e := range events {
			names = append(names, e.Name)
		}
		t.Fatalf("%d deliveries for %d events (%s), want one each", len(seen), len(events), strings.Join(names, ", "))
	}
}

// TestPostgresReplicasShareRateLimits: one client alternating between two replicas of one
// database meets one limit per key and route, not one per replica, and the window frees for
// both at once. Scale 0.025: account routes allow 2 a minute, /health 3.
func TestPostgresReplicasShareRateLimits(t *testing.T) {
	t.Parallel()
	clock := resellerd.NewManualClock(testStart)
	cfg := resellerd.Config{DB: pg.Database(t), Clock: clock, WorkerInterval: -1, RateLimitScale: 0.025}
	replicas := []*env{openEnv(t, cfg), openEnv(t, cfg)}
	key := replicas[0].account(t, 0).APIKey

	for i := range 2 {
		replicas[i%2].do(t, request{Path: "/account", Key: key}).WantStatus(t, http.StatusOK, "")
	}
	for i, r := range replicas {
		resp := r.do(t, request{Path: "/account", Key: key})
		resp.WantStatus(t, http.StatusTooManyRequests, "rate_limited")
		if got := resp.Header.Get("Retry-After"); got != "60" {
			t.Fatalf("replica %d: Retry-After = %q, want 60 (the window both replicas share)", i, got)
		}
	}
	replicas[1].do(t, request{Path: "/health"}).WantStatus(t, http.StatusOK, "") // another route

	clock.Advance(time.Minute)
	for i := range 2 {
		replicas[(i+1)%2].do(t, request{Path: "/account", Key: key}).WantStatus(t, http.StatusOK, "")
	}
	replicas[0].do(t, request{Path: "/account", Key: key}).WantStatus(t, http.StatusTooManyRequests, "rate_limited")
}

// TestPostgresReplicasShareTheSimulator: one client alternating between two replicas of one
// database sees one simulated datacenter: one power state, one out-of-band password, one
// clean-IP pool and one fail rate. Each check reads on the replica that did not make the change
// (on separate simulators each would see its own, unchanged state).
func TestPostgresReplicasShareTheSimulator(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := resellerd.Config{DB: pg.Database(t), Clock: resellerd.NewManualClock(testStart), WorkerInterval: -1, RateLimitScale: 100}
	a, b := openEnv(t, cfg), openEnv(t, cfg)
	acct := a.funded(t, 10_000_000)
	id := b.deployed(t, acct.APIKey, `{"server_id": 201, "template_id": 1, "term": "hourly"}`) // datacenter 2: paid change_ip

	// Power: B's simulator built the machine (online); A turns it off; a refresh on B reads off.
	a.act(t, acct.APIKey, id, `{"action": "power_off"}`)
	var in api.InstanceDetailView
	b.do(t, request{Path: fmt.Sprintf("/instances/%d?refresh=true", id), Key: acct.APIKey}).Data(t, &in)
	if in.Status == nil || *in.Status != "offline" {
		t.Fatalf("status refreshed on B = %s, want offline as A left it", ptrString(in.Status))
	}
	a.act(t, acct.APIKey, id, `{"action": "power_on"}`)

	// Password: changed out of band through A's simulator; B's install worker finds it refused.
	if err := a.srv.ChangeRootPasswordOutOfBand(ctx, id); err != nil {
		t.Fatal(err)
	}
	b.install(t, acct.APIKey, id, `{"apps": ["docker"]}`).WantStatus(t, http.StatusAccepted, "")
	b.runDue(t) // waiting → preparing
	b.runDue(t) // the password is tried
	if got := stages(a.installs(t, acct.APIKey, id)); !slices.Equal(got, []string{"docker:failed/auth_failed"}) {
		t.Fatalf("installs = %v, want auth_failed: B must see the password A's simulator changed", got)
	}

	// IP pool: datacenter 2 holds two clean addresses; A and B take them, then neither has one.
	var addresses []string
	for i, r := range []*env{a, b, a, b} {
		v := r.act(t, acct.APIKey, id, `{"action": "change_ip", "accept_cost": 0.5}`)
		if *v.Clean != (i < 2) {
			t.Fatalf("change %d (replica %c): clean %v; want clean only for the first two, from one pool", i+1, "ABAB"[i], *v.Clean)
		}
		addresses = append(addresses, *v.IPv4)
	}
	if distinct := slices.Compact(slices.Sorted(slices.Values(addresses))); len(distinct) != len(addresses) {
		t.Fatalf("addresses %v: want each handed out once", addresses)
	}

	// Fail rate: set through A, B's operations fail alike; cleared through B, A's work again.
	// (Each replica's cache hears of the other's change within a notification's delay.)
	if err := a.srv.SetFailRate(ctx, 1); err != nil {
		t.Fatal(err)
	}
	b.seesFailRate(t, 1)
	b.action(t, acct.APIKey, id, `{"action": "reboot"}`).WantStatus(t, http.StatusBadGateway, "provider_error")
	if err := b.srv.SetFailRate(ctx, 0); err != nil {
		t.Fatal(err)
	}
	a.seesFailRate(t, 0)
	a.act(t, acct.APIKey, id, `{"action": "reboot"}`)
}

// seesFailRate waits, at most eventWait, until the replica's simulator reads the fail rate want.
func (e *env) seesFailRate(t *testing.T, want float64) {
	t.Helper()
	for deadline := time.Now().Add(eventWait); ; time.Sleep(5 * time.Millisecond) {
		rate, err := e.srv.FailRate(context.Background())
		if err == nil && rate == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica reads the fail rate %v (%v) after %s, want %v", rate, err, eventWait, want)
		}
	}
}

// ptrString shows a string that may be absent.
func ptrString(s *string) string {
	if s == nil {
		return "<absent>"
	}
	return *s
}
