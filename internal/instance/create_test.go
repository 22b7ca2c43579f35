package instance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// orderStub is a POST /instances that records each request's Idempotency-Key and answers with
// the handler of its turn (the last one for every later request).
type orderStub struct {
	mu       sync.Mutex
	keys     []string
	handlers []http.HandlerFunc
}

func (s *orderStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.keys = append(s.keys, r.Header.Get("Idempotency-Key"))
	h := s.handlers[min(len(s.keys), len(s.handlers))-1]
	s.mu.Unlock()
	h(w, r)
}

func (s *orderStub) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.keys...)
}

// startOrderStub serves s and returns a client of it that does not retry by itself.
func startOrderStub(t *testing.T, s *orderStub) *client.Client {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{Endpoint: srv.URL + "/api/v1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// TestPlaceOrderReplaysARequestCutShort: the apply is interrupted while POST /instances is on the
// wire and the server processes it all the same (the sigterm row of the failure matrix hit this
// under load); placeOrder repeats it with the same key and returns the order the server replays,
// so the order reaches the state rather than leaving an orphaned server.
func TestPlaceOrderReplaysARequestCutShort(t *testing.T) {
	t.Parallel()
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	stub := &orderStub{handlers: []http.HandlerFunc{
		func(w http.ResponseWriter, _ *http.Request) {
			interrupt() // the order is placed, but its answer is lost to the interrupt
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				_ = conn.Close()
			}
		},
		func(w http.ResponseWriter, _ *http.Request) {
			answer(w, http.StatusCreated, map[string]any{"success": true,
				"data": map[string]any{"order_id": 7, "price": 1, "apps": []string{}},
				"meta": map[string]any{"idempotent_replay": true}})
		},
	}}
	order, err := placeOrder(ctx, startOrderStub(t, stub), client.CreateInstanceRequest{ServerID: 1})
	if err != nil {
		t.Fatalf("placeOrder: %v, want the replayed order", err)
	}
	if order.OrderID != 7 || !order.Replayed {
		t.Errorf("order: got id %d replayed %v, want 7 replayed", order.OrderID, order.Replayed)
	}
	keys := stub.requests()
	if len(keys) != 2 || keys[0] == "" || keys[0] != keys[1] {
		t.Errorf("Idempotency-Keys sent: got %q, want the same key twice", keys)
	}
}

// TestRequestCutShort: only a request that the context's end cut short before any answer has an
// unknown outcome; an API answer is known even when the interrupt came with it, and a failure
// while the context lives is the request's own.
func TestRequestCutShort(t *testing.T) {
	t.Parallel()
	live := context.Background()
	ended, end := context.WithCancel(context.Background())
	end()
	answered := fmt.Errorf("POST /instances: %w", &client.APIError{Status: http.StatusConflict, Code: client.CodeOrderLimitReached})
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"no answer, context ended", ended, fmt.Errorf("POST /instances: %w", context.Canceled), true},
		{"answered, context ended", ended, answered, false},
		{"no answer, context live", live, errors.New("connection reset"), false},
		{"no error, context ended", ended, nil, false},
	}
	for _, tt := range tests {
		if got := requestCutShort(tt.ctx, tt.err); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
