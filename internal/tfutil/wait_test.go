package tfutil

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// fakeAPI answers each route ("GET /orders") with the data its function gives for the n-th
// request of that route (n from 0), and counts the requests.
type fakeAPI struct {
	mu     sync.Mutex
	routes map[string]func(n int) any
	counts map[string]int
}

func newFakeAPI(t *testing.T, routes map[string]func(n int) any) (*fakeAPI, *client.Client) {
	t.Helper()
	f := &fakeAPI{routes: routes, counts: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{Endpoint: srv.URL + "/api/v1", APIKey: "rk_test"})
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	route := r.Method + " " + strings.TrimPrefix(r.URL.Path, "/api/v1")
	f.mu.Lock()
	answer, ok := f.routes[route]
	n := f.counts[route]
	f.counts[route]++
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(map[string]any{"success": false, "error": map[string]any{"code": "not_found", "message": route}})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"success": true, "data": answer(n)})
}

func (f *fakeAPI) count(route string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts[route]
}

// server is an instance reading: status, and whether its credentials are still pending.
func server(id int64, status string, pending bool) map[string]any {
	return map[string]any{"id": id, "status": status, "active": status != client.StatusCanceled,
		"credentials": map[string]any{"pending": pending}}
}

func TestWaitServerReadsTheInstanceUntilDone(t *testing.T) {
	t.Parallel()
	f, c := newFakeAPI(t, map[string]func(int) any{
		"GET /instances/7": func(n int) any {
			if n == 0 {
				return server(7, client.StatusOnline, true)
			}
			return server(7, client.StatusOnline, false)
		},
	})
	in, err := WaitServer(context.Background(), c, ServerWait{ID: 7, What: "to settle", Done: (*client.Instance).Settled})
	if err != nil {
		t.Fatal(err)
	}
	if in == nil || in.ID != 7 || in.CredentialsPending() {
		t.Fatalf("got %+v, want instance 7 with its credentials delivered", in)
	}
	if got := f.count("GET /instances/7"); got != 2 {
		t.Errorf("GET /instances/7: got %d requests, want 2 (pending, then settled)", got)
	}
}

func TestWaitServerFromItsOrder(t *testing.T) {
	t.Parallel()
	f, c := newFakeAPI(t, map[string]func(int) any{
		"GET /orders": func(int) any {
			return []any{map[string]any{"order_id": 3, "status": client.OrderDeployed, "server": server(7, client.StatusOnline, false)}}
		},
	})
	in, err := WaitServer(context.Background(), c, ServerWait{ID: 7, OrderID: 3, What: "to settle", Done: (*client.Instance).Settled})
	if err != nil || in == nil || in.ID != 7 {
		t.Fatalf("got %+v, %v; want instance 7", in, err)
	}
	if f.count("GET /orders") != 1 || f.count("GET /instances/7") != 0 {
		t.Errorf("requests: got %v, want one GET /orders and no instance read", f.counts)
	}
	_, err = WaitServer(context.Background(), c, ServerWait{ID: 8, OrderID: 3, What: "to settle", Done: (*client.Instance).Settled})
	if err == nil || !strings.Contains(err.Error(), "does not name instance 8") {
		t.Errorf("order of another instance: got %v, want an error naming instance 8", err)
	}
}

func TestWaitServerFailEndsTheWait(t *testing.T) {
	t.Parallel()
	f, c := newFakeAPI(t, map[string]func(int) any{
		"GET /instances/7": func(int) any { return server(7, client.StatusCanceled, false) },
	})
	canceled := errors.New("canceled meanwhile")
	_, err := WaitServer(context.Background(), c, ServerWait{ID: 7, What: "to settle", Done: (*client.Instance).Settled,
		Fail: func(in *client.Instance) error {
			if in.Gone() {
				return canceled
			}
			return nil
		}})
	if !errors.Is(err, canceled) || IsWaitError(err) {
		t.Fatalf("got %v, want the error of Fail", err)
	}
	if got := f.count("GET /instances/7"); got != 1 {
		t.Errorf("GET /instances/7: got %d requests, want 1", got)
	}
}

func TestWaitOrder(t *testing.T) {
	t.Parallel()
	ref := "ref-42"
	f, c := newFakeAPI(t, map[string]func(int) any{
		"GET /orders": func(n int) any {
			first := map[string]any{"order_id": 3, "status": client.OrderPending}
			if n > 0 {
				first = map[string]any{"order_id": 3, "status": client.OrderDeployed, "server": server(7, client.StatusOnline, false)}
			}
			return []any{first, map[string]any{"order_id": 4, "status": client.OrderTimedOut, "reference": ref}}
		},
	})
	built, err := WaitOrder(context.Background(), c, 3)
	if err != nil || built == nil || built.ID != 7 {
		t.Fatalf("got %+v, %v; want instance 7", built, err)
	}
	_, err = WaitOrder(context.Background(), c, 4)
	var timedOut *OrderTimedOutError
	if !errors.As(err, &timedOut) || timedOut.OrderID != 4 || timedOut.Reference != ref {
		t.Fatalf("timed-out order: got %v, want an OrderTimedOutError with reference %s", err, ref)
	}
	if got := f.count("GET /orders/{id}") + f.count("GET /orders/3") + f.count("GET /orders/4"); got != 0 {
		t.Errorf("GET /orders/{id}: got %d requests, want 0 (the waits read the shared list)", got)
	}
}

// TestWaitOrderShared: waits running at once share the client's GET /orders list.
func TestWaitOrderShared(t *testing.T) {
	t.Parallel()
	var orders []any
	for id := int64(1); id <= 5; id++ {
		orders = append(orders, map[string]any{"order_id": id, "status": client.OrderDeployed, "server": server(10+id, client.StatusOnline, false)})
	}
	f, c := newFakeAPI(t, map[string]func(int) any{"GET /orders": func(int) any { return orders }})
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for id := int64(1); id <= 5; id++ {
		wg.Go(func() {
			if _, err := WaitOrder(context.Background(), c, id); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := f.count("GET /orders"); got != 1 {
		t.Errorf("GET /orders: got %d requests for 5 waits, want 1", got)
	}
}

func TestWaitSnapshot(t *testing.T) {
	t.Parallel()
	f, c := newFakeAPI(t, map[string]func(int) any{
		"GET /snapshots": func(int) any {
			return []any{
				map[string]any{"id": 1, "status": client.SnapshotAvailable},
				map[string]any{"id": 2, "status": client.SnapshotFailed, "instance_id": 7},
				map[string]any{"id": 3, "status": client.SnapshotDeleted},
			}
		},
	})
	available := func(s *client.Snapshot) bool { return s.Status == client.SnapshotAvailable }
	if s, err := WaitSnapshot(context.Background(), c, 1, "to be available", available); err != nil || s.ID != 1 {
		t.Fatalf("available snapshot: got %+v, %v", s, err)
	}
	_, err := WaitSnapshot(context.Background(), c, 2, "to be available", available)
	var failed *SnapshotFailedError
	if !errors.As(err, &failed) || failed.InstanceID != 7 || !strings.Contains(err.Error(), "never billed") {
		t.Errorf("failed snapshot: got %v, want a SnapshotFailedError of instance 7", err)
	}
	_, err = WaitSnapshot(context.Background(), c, 3, "to be available", available)
	var ended *SnapshotEndedError
	if !errors.As(err, &ended) || ended.Status != client.SnapshotDeleted {
		t.Errorf("deleted snapshot: got %v, want a SnapshotEndedError", err)
	}
	if got := f.count("GET /snapshots"); got != 1 {
		t.Errorf("GET /snapshots: got %d requests for 3 waits, want 1 (one shared list)", got)
	}
}
