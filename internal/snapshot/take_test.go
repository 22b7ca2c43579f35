package snapshot

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// snapshotStub is POST and GET /instances/5/snapshots: a POST that is taken records snapshot 9
// (named as asked), and every POST ends the apply's context (the interrupt) and loses its answer.
type snapshotStub struct {
	interrupt context.CancelFunc
	take      bool // the API takes the snapshot before the answer is lost

	mu    sync.Mutex
	posts int
	taken []map[string]any
}

func (s *snapshotStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.Method {
	case http.MethodGet:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"success": true, "data": append([]map[string]any{}, s.taken...)})
	case http.MethodPost:
		s.posts++
		var req struct {
			Name string `json:"name"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if s.take {
			s.taken = append(s.taken, map[string]any{"id": 9, "name": req.Name, "status": "creating"})
		}
		s.interrupt()
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			_ = conn.Close()
		}
	}
}

// TestTakeSnapshotFindsWhatACutShortCreateTook: the apply is interrupted while the snapshot
// create is on the wire. When the API took the snapshot all the same, takeSnapshot finds it, so
// it reaches the state (a tainted snapshot the next apply replaces) instead of an orphan billed
// once available; when it did not, the interrupt's error stands and nothing is asked again.
func TestTakeSnapshotFindsWhatACutShortCreateTook(t *testing.T) {
	t.Parallel()
	for _, take := range []bool{true, false} {
		ctx, interrupt := context.WithCancel(context.Background())
		defer interrupt()
		stub := &snapshotStub{interrupt: interrupt, take: take}
		srv := httptest.NewServer(stub)
		defer srv.Close()
		c, err := client.New(client.Config{Endpoint: srv.URL + "/api/v1", APIKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		name := "nightly"
		snap, err := takeSnapshot(ctx, c, 5, client.CreateSnapshotRequest{Name: &name})
		switch {
		case take && (err != nil || snap == nil || snap.ID != 9):
			t.Errorf("taken, answer lost to the interrupt: got %+v, %v; want snapshot 9", snap, err)
		case !take && err == nil:
			t.Errorf("not taken, answer lost to the interrupt: got %+v, want the interrupt's error", snap)
		}
		if stub.posts != 1 {
			t.Errorf("take %v: %d snapshot creates sent, want 1", take, stub.posts)
		}
	}
}
