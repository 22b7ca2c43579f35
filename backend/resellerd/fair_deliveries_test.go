package resellerd

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// TestHangingReceiverDelaysNoOtherAccount: account A's receiver accepts connections and never
// answers, and A has a backlog of due events older than B's; with the background loops running
// on the real clock, B's events all arrive while A's first attempts still hang, before any of
// them times out (before, a tick waited for A's attempts, 15 s each, with every worker held by
// A). A holds no more connections than its bound.
func TestHangingReceiverDelaysNoOtherAccount(t *testing.T) {
	t.Parallel()
	srv, err := New(context.Background(), Config{DB: pg.TestDB(t), WorkerInterval: 20 * time.Millisecond,
		AllowHTTPWebhooks: true, RateLimitScale: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })

	var hanging, timedOut atomic.Int32 // A's attempts received, and those its sender gave up on
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hanging.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
			timedOut.Add(1)
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) }) // runs first: the attempts end before the backend closes
	var delivered atomic.Int32
	fast := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { delivered.Add(1) }))
	t.Cleanup(fast.Close)

	ctx := context.Background()
	a, b := fundedAccount(t, srv), fundedAccount(t, srv)
	now := time.Now().UTC()
	const secret = "whsec_test_0123456789abcdef"
	for _, w := range []store.Webhook{{AccountID: a, URL: slow.URL + "/hook", Secret: secret, UpdatedAt: now},
		{AccountID: b, URL: fast.URL + "/hook", Secret: secret, UpdatedAt: now}} {
		if err := srv.store.SetWebhook(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	// A's backlog is due first and longer than one read of due deliveries (workBatch, 100):
	// B's events are found only because A's busy account is left out of the read.
	addDeliveries(t, srv, a, 150, now.Add(-time.Minute))
	start := time.Now()
	addDeliveries(t, srv, b, 3, now)
	srv.wake()

	// What is asserted is the order of events, not a speed: B's events come before the first of
	// A's attempts ends at its timeout. eventWait only keeps a broken test from hanging.
	deadline := time.Now().Add(eventWait)
	for delivered.Load() < 3 && timedOut.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n, late := delivered.Load(), timedOut.Load(); n != 3 || late != 0 {
		t.Fatalf("B's receiver got %d of 3 events by the time %d of A's hanging attempts had timed out (A held %d connections); want all 3 before any, within %s",
			n, late, hanging.Load(), eventWait)
	}
	t.Logf("B's events arrived after %s; A's receiver holds %d connections", time.Since(start).Round(time.Millisecond), hanging.Load())
	if n := hanging.Load(); n < 1 || n > 4 {
		t.Fatalf("A's receiver holds %d connections, want 1 to 4 (the per-account bound)", n)
	}
}

// fundedAccount creates an account through the operator call and returns its id.
func fundedAccount(t *testing.T, srv *Server) int64 {
	t.Helper()
	acct, err := srv.CreateAccount(context.Background(), NewAccount{BalanceMicros: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	return acct.ID
}

// addDeliveries writes n ping events of account with their pending deliveries, due at at.
func addDeliveries(t *testing.T, srv *Server, account int64, n int, at time.Time) {
	t.Helper()
	ctx := context.Background()
	for i := range n {
		id := fmt.Sprintf("%d_%d_%d", account, at.UnixNano(), i)
		body := fmt.Sprintf(`{"id":"evt_%s","event":"ping","created_at":%q,"data":{}}`, id, at.Format(time.RFC3339))
		err := srv.store.WithTx(ctx, func(tx store.Tx) error {
			if err := tx.AddEvent(ctx, store.Event{ID: "evt_" + id, AccountID: account, Name: "ping", Data: []byte(`{}`), CreatedAt: at}); err != nil {
				return err
			}
			return tx.AddDelivery(ctx, store.Delivery{ID: "dlv_" + id, EventID: "evt_" + id, AccountID: account, Event: "ping",
				Body: []byte(body), Status: store.DeliveryPending, NextAt: at, CreatedAt: at})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
