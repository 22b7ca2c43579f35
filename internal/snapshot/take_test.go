package snapshot

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// snapshotStub is POST and GET /instances/5/snapshots: the POST that is taken records snapshot 9
// (named as asked), and every POST loses its answer, after it ends the apply's context (the
// interrupt) when there is one.
type snapshotStub struct {
	interrupt context.CancelFunc // nil: none
	takeAt    int                // the POST (1: the first) the API takes before its answer is lost; 0: none

	mu    sync.Mutex
	posts int
	taken []map[string]any
}

// creates is how many POSTs the stub has had.
func (s *snapshotStub) creates() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.posts
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
		if s.posts == s.takeAt {
			s.taken = append(s.taken, map[string]any{"id": 9, "name": req.Name, "status": "creating"})
		}
		if s.interrupt != nil {
			s.interrupt()
		}
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
		stub := &snapshotStub{interrupt: interrupt}
		if take {
			stub.takeAt = 1
		}
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
		if n := stub.creates(); n != 1 {
			t.Errorf("take %v: %d snapshot creates sent, want 1", take, n)
		}
	}
}

// TestTakeSnapshotLooksAfterItsLastAttempt: every create's answer is lost (the connection
// reset after the API processed it, or not). The creates are asked again while the instance
// shows no new snapshot, up to the client's retry budget (max_retries 4: five creates), and the
// snapshot that the last of them took is found, not orphaned; when none took one, the error
// says so after the fifth.
func TestTakeSnapshotLooksAfterItsLastAttempt(t *testing.T) {
	t.Parallel()
	const retries = 4
	for _, takeAt := range []int{retries + 1, 0} {
		stub := &snapshotStub{takeAt: takeAt}
		srv := httptest.NewServer(stub)
		defer srv.Close()
		c, err := client.New(client.Config{Endpoint: srv.URL + "/api/v1", APIKey: "k", MaxRetries: retries})
		if err != nil {
			t.Fatal(err)
		}
		snap, err := takeSnapshot(context.Background(), c, 5, client.CreateSnapshotRequest{})
		switch {
		case takeAt != 0 && (err != nil || snap == nil || snap.ID != 9):
			t.Errorf("taken by create %d, every answer lost: got %+v, %v; want snapshot 9", takeAt, snap, err)
		case takeAt == 0 && (err == nil || !strings.Contains(err.Error(), "shows no snapshot taken")):
			t.Errorf("never taken, every answer lost: got %+v, %v; want an error saying no snapshot was taken", snap, err)
		}
		if n := stub.creates(); n != retries+1 {
			t.Errorf("taken by create %d: %d creates sent, want %d", takeAt, n, retries+1)
		}
	}
}
