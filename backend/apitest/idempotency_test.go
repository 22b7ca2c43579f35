package apitest

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

func TestIdempotencyRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	first := e.order(t, a.APIKey, "key-1", ubuntuOn101)
	first.WantStatus(t, http.StatusCreated, "")
	var orig api.CreatedOrderView
	first.Data(t, &orig)

	countOrders := func() int {
		t.Helper()
		totals, err := e.database(t).OrderTotals(context.Background(), a.ID)
		if err != nil {
			t.Fatal(err)
		}
		return totals.Pending
	}

	t.Run("1: same key and body replays the first order", func(t *testing.T) {
		// The same request spelt differently: key order, whitespace, a top-level null.
		respelt := "{\n  \"term\": \"hourly\", \"hostname\": null,\n  \"template_id\": 1, \"server_id\": 101\n}"
		for range 2 {
			r := e.order(t, a.APIKey, "key-1", respelt)
			r.WantStatus(t, http.StatusCreated, "")
			var got api.CreatedOrderView
			r.Data(t, &got)
			if got.OrderID != orig.OrderID || dollars(got.Price) != dollars(orig.Price) {
				t.Fatalf("replay = %+v, want order %d", got, orig.OrderID)
			}
			if r.Body.Meta == nil || !r.Body.Meta.IdempotentReplay {
				t.Fatalf("meta = %s, want idempotent_replay true", r.Raw)
			}
		}
		if n := countOrders(); n != 1 {
			t.Fatalf("%d orders, want 1", n)
		}
	})
	t.Run("2: same key with another body is 422", func(t *testing.T) {
		e.order(t, a.APIKey, "key-1", `{"server_id": 102, "template_id": 1, "term": "hourly"}`).
			WantStatus(t, http.StatusUnprocessableEntity, "idempotency_key_reused")
		if n := countOrders(); n != 1 {
			t.Fatalf("%d orders, want 1", n)
		}
	})
	t.Run("a replay answers even when the body would be refused now", func(t *testing.T) {
		one, err := e.srv.CreateAccount(context.Background(), resellerd.NewAccount{BalanceMicros: 10_000_000, ServerLimit: 100, OrderLimit: 1})
		if err != nil {
			t.Fatal(err)
		}
		e.order(t, one.APIKey, "key-at-limit", ubuntuOn101).WantStatus(t, http.StatusCreated, "")
		e.order(t, one.APIKey, "key-new", ubuntuOn101).WantStatus(t, http.StatusConflict, "order_limit_reached")
		r := e.order(t, one.APIKey, "key-at-limit", ubuntuOn101)
		if r.Status != http.StatusCreated || r.Body.Meta == nil || !r.Body.Meta.IdempotentReplay {
			t.Fatalf("the key again at api_order_limit: %s, want a replay", r.Raw)
		}
		e.order(t, one.APIKey, "key-at-limit", `{"server_id": 101, "term": "hourly"}`).
			WantStatus(t, http.StatusUnprocessableEntity, "idempotency_key_reused")
	})
	t.Run("keys are per account", func(t *testing.T) {
		other := e.funded(t, 10_000_000)
		r := e.order(t, other.APIKey, "key-1", ubuntuOn101)
		r.WantStatus(t, http.StatusCreated, "")
		if r.Body.Meta != nil {
			t.Fatalf("another account's key replayed: %s", r.Raw)
		}
	})
	t.Run("5: a failed request is not recorded", func(t *testing.T) {
		poor := e.funded(t, 1_000)
		e.order(t, poor.APIKey, "key-2", ubuntuOn101).WantStatus(t, http.StatusPaymentRequired, "insufficient_balance")
		e.order(t, poor.APIKey, "key-2", ubuntuOn101).WantStatus(t, http.StatusPaymentRequired, "insufficient_balance")
		if err := e.srv.TopUp(context.Background(), poor.ID, 1_000_000, "card"); err != nil {
			t.Fatal(err)
		}
		r := e.order(t, poor.APIKey, "key-2", ubuntuOn101)
		r.WantStatus(t, http.StatusCreated, "")
		if r.Body.Meta != nil {
			t.Fatalf("the order after the top-up is a replay: %s", r.Raw)
		}
		// A body refused as invalid does not record its key either.
		e.order(t, poor.APIKey, "key-3", `{"server_id": 101, "term": "hourly"}`).WantStatus(t, http.StatusBadRequest, "validation_error")
		e.order(t, poor.APIKey, "key-3", ubuntuOn101).WantStatus(t, http.StatusCreated, "")
	})
	t.Run("4: a key is kept 24 hours", func(t *testing.T) {
		e.clock.Advance(24*time.Hour - time.Second)
		r := e.order(t, a.APIKey, "key-1", ubuntuOn101)
		if r.Status != http.StatusCreated || r.Body.Meta == nil || !r.Body.Meta.IdempotentReplay {
			t.Fatalf("just before 24 hours: %s, want a replay", r.Raw)
		}
		e.clock.Advance(time.Second)
		r = e.order(t, a.APIKey, "key-1", `{"server_id": 102, "template_id": 1, "term": "hourly"}`)
		r.WantStatus(t, http.StatusCreated, "")
		var got api.CreatedOrderView
		r.Data(t, &got)
		if got.OrderID == orig.OrderID || r.Body.Meta != nil {
			t.Fatalf("after 24 hours: %s, want a new order", r.Raw)
		}
		e.runDue(t) // housekeeping forgets expired keys
		r = e.order(t, a.APIKey, "key-1", `{"server_id": 102, "template_id": 1, "term": "hourly"}`)
		if r.Status != http.StatusCreated || r.Body.Meta == nil || !r.Body.Meta.IdempotentReplay {
			t.Fatalf("the renewed key does not replay: %s", r.Raw)
		}
	})
}

// TestIdempotencyConcurrent sends one key from 20 goroutines at once: exactly one order is
// created; every other request replays it or is told the first is still in progress.
func TestIdempotencyConcurrent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	const n = 20
	req := request{Method: http.MethodPost, Path: "/instances", Key: a.APIKey, Body: ubuntuOn101,
		Header: map[string]string{"Idempotency-Key": "same-key"}}
	results := make([]response, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			results[i], errs[i] = e.send(req)
		})
	}
	close(start)
	wg.Wait()
	var created, replays, inProgress int
	orderIDs := map[int64]bool{}
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("request %d: %v", i, errs[i])
		}
		e.check(t, req, r)
		switch {
		case r.Status == http.StatusCreated:
			var c api.CreatedOrderView
			r.Data(t, &c)
			orderIDs[c.OrderID] = true
			if r.Body.Meta != nil && r.Body.Meta.IdempotentReplay {
				replays++
			} else {
				created++
			}
		case r.Status == http.StatusConflict && r.Body.Error.Code == "idempotency_in_progress":
			inProgress++
		default:
			t.Fatalf("request %d: %s", i, r.Raw)
		}
	}
	if created != 1 || len(orderIDs) != 1 || created+replays+inProgress != n {
		t.Fatalf("created %d, replayed %d, in progress %d over %d order ids; want exactly one order", created, replays, inProgress, len(orderIDs))
	}
	totals, err := e.database(t).OrderTotals(context.Background(), a.ID)
	if err != nil || totals.Pending != 1 || totals.Reserved != 4_000 {
		t.Fatalf("store holds %+v, %v; want one order reserving 0.004", totals, err)
	}
	t.Logf("%d created, %d replayed, %d answered 409", created, replays, inProgress)
}
