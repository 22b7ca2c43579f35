package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// fakeClockPacer is a pacer whose sleeps move a fake clock instead of spending real time.
func fakeClockPacer(scale float64) *pacer {
	p := newPacer(scale)
	now := time.Unix(0, 0)
	var mu sync.Mutex
	p.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	p.sleep = func(_ context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(d)
		return nil
	}
	return p
}

func TestPacer_neverExceedsTheRouteBudgetInAnyMinute(t *testing.T) {
	p := fakeClockPacer(1)
	var sends []time.Time
	for range 25 {
		if _, err := p.take(context.Background(), http.MethodPost, "/instances"); err != nil {
			t.Fatal(err)
		}
		sends = append(sends, p.now())
	}
	for i := orderBudget; i < len(sends); i++ {
		if gap := sends[i].Sub(sends[i-orderBudget]); gap < time.Minute {
			t.Errorf("orders %d and %d sent %s apart: 11 orders within a minute", i-orderBudget+1, i+1, gap)
		}
	}
	if last := sends[len(sends)-1]; last.Sub(sends[0]) > 2*paceWindow {
		t.Errorf("25 orders took %s; the budget allows them within two windows", last.Sub(sends[0]))
	}
	// Another route has its own budget: no wait.
	before := p.now()
	if _, err := p.take(context.Background(), http.MethodGet, "/instances/7"); err != nil || !p.now().Equal(before) {
		t.Errorf("a read after 25 orders waited %s (err %v); routes must not share budgets", p.now().Sub(before), err)
	}
}

func TestPacer_scaleMultipliesTheBudget(t *testing.T) {
	p := fakeClockPacer(0.5)
	start := p.now()
	for range 5 {
		_, _ = p.take(context.Background(), http.MethodPost, "/instances")
	}
	if !p.now().Equal(start) {
		t.Fatalf("the first 5 orders at scale 0.5 waited %s", p.now().Sub(start))
	}
	_, _ = p.take(context.Background(), http.MethodPost, "/instances")
	if p.now().Equal(start) {
		t.Error("the 6th order at scale 0.5 (5 per minute) did not wait")
	}
}

func TestPacer_canceledWaitReturnsTheContextError(t *testing.T) {
	p := newPacer(1)
	for range orderBudget {
		_, _ = p.take(context.Background(), http.MethodPost, "/instances")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.take(ctx, http.MethodPost, "/instances"); err == nil {
		t.Error("a wait on a canceled context returned nil")
	}
}

// TestPacer_datesASendByItsAnswer: a send counts from when its answer came back, not from when
// it was allowed, so a request the server took up late (a loaded machine) never lets the next
// one into the server's minute: with a budget of one, the second send waits a window after the
// first one's answer.
func TestPacer_datesASendByItsAnswer(t *testing.T) {
	p := fakeClockPacer(0.1) // one order a minute
	start := p.now()
	mark, err := p.take(context.Background(), http.MethodPost, "/instances")
	if err != nil {
		t.Fatal(err)
	}
	_ = p.sleep(context.Background(), 20*time.Second) // the request waits 20 s for its answer
	p.answered(mark)
	if _, err := p.take(context.Background(), http.MethodPost, "/instances"); err != nil {
		t.Fatal(err)
	}
	if waited := p.now().Sub(start); waited != 20*time.Second+paceWindow {
		t.Errorf("the second order went %s after the first was allowed, want %s: a window after the first one's answer",
			waited, 20*time.Second+paceWindow)
	}
}

func TestRouteBudget(t *testing.T) {
	cases := []struct {
		method, path, key string
		perMinute         int
	}{
		{"GET", "/instances/12", "GET /instances/{id}", readBudget},
		{"GET", "/instances", "GET /instances", readBudget},
		{"GET", "/catalog/servers/101", "GET /catalog/servers/{id}", catalogueBudget},
		{"POST", "/quote", "POST /quote", catalogueBudget},
		{"POST", "/instances", "POST /instances", orderBudget},
		{"POST", "/instances/3/actions", "POST /instances/{id}/actions", actionBudget},
		{"POST", "/snapshots/3/restore", "POST /snapshots/{id}/restore", actionBudget},
		{"DELETE", "/instances/3", "DELETE /instances/{id}", writeBudget},
		{"POST", "/instances/3/snapshots", "POST /instances/{id}/snapshots", writeBudget},
		{"PUT", "/account/webhook", "webhook changes", webhookBudget},
		{"DELETE", "/account/webhook", "webhook changes", webhookBudget},
	}
	for _, tc := range cases {
		key, n := routeBudget(tc.method, tc.path)
		if key != tc.key || n != tc.perMinute {
			t.Errorf("%s %s: got %q %d, want %q %d", tc.method, tc.path, key, n, tc.key, tc.perMinute)
		}
	}
}

// TestAccountView_pagesAndWrites: the instance view walks every page once for many readers,
// a quote (a POST that changes nothing) keeps the view, and a write through the client makes the
// next read list again.
func TestAccountView_pagesAndWrites(t *testing.T) {
	const total = 1200
	var mu sync.Mutex
	lists := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			_, _ = w.Write([]byte(`{"success":true,"data":{}}`))
			return
		}
		mu.Lock()
		lists++
		mu.Unlock()
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		var page []map[string]any
		for id := offset + 1; id <= min(offset+limit, total); id++ {
			page = append(page, map[string]any{"id": id, "active": true})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"success": true, "data": page,
			"meta": map[string]any{"page": map[string]any{"total": total, "limit": limit, "offset": offset}}})
	}))
	defer srv.Close()
	c, err := New(Config{Endpoint: srv.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, id := range []int64{1, 600, 1200} {
		if _, found, err := c.InstanceSummary(ctx, id); err != nil || !found {
			t.Fatalf("instance %d: found %v, err %v", id, found, err)
		}
	}
	if _, found, _ := c.InstanceSummary(ctx, 1201); found {
		t.Error("instance 1201 found, but the account has 1,200")
	}
	if lists != 3 {
		t.Errorf("list requests: got %d, want 3 (ceil(1200/500), shared by every read)", lists)
	}
	if _, err := c.Quote(ctx, QuoteRequest{ServerID: 1}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.InstanceSummary(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if lists != 3 {
		t.Errorf("list requests after a quote: got %d, want 3 (a quote changes nothing, so the view stays)", lists)
	}
	name := "x"
	if _, err := c.UpdateInstance(ctx, 1, UpdateInstanceRequest{Name: &name}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.InstanceSummary(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if lists != 6 {
		t.Errorf("list requests after a write: got %d, want 6 (the write drops the view)", lists)
	}
}
