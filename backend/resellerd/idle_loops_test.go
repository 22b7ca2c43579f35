package resellerd

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
)

// TestIdleWorkersSleepUntilWoken runs the real worker loops with a 5 ms interval and an idle
// interval of an hour: once the first ticks have settled the new account, the loops read
// nothing while nothing is due, and an order placed through the API is still deployed at once,
// because the write wakes them.
func TestIdleWorkersSleepUntilWoken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var reads atomic.Int64
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "loops.db"),
		sqlstore.WithReadHook(func(string, int) { reads.Add(1) }))
	if err != nil {
		t.Fatal(err)
	}
	srv := testOnStore(t, ctx, withDefaults(Config{WorkerInterval: 5 * time.Millisecond, IdleInterval: time.Hour}), st)
	t.Cleanup(func() { _ = srv.Close() })
	a, err := srv.CreateAccount(ctx, NewAccount{BalanceMicros: 100_000_000})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.TopUp(ctx, a.ID, 1_000_000, ""); err != nil { // wakes the loops to weigh the wallet
		t.Fatal(err)
	}
	waitAllIdle(t, srv)

	before := reads.Load()
	time.Sleep(200 * time.Millisecond) // 40 intervals
	if n := reads.Load() - before; n != 0 {
		t.Fatalf("idle workers made %d reads in 40 intervals, want 0 (they should sleep until woken or due)", n)
	}

	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	e := &env{srv: srv, http: hs}
	r, err := e.send(request{Method: http.MethodPost, Path: "/instances", Key: a.APIKey, Body: ubuntuOn101})
	if err != nil || r.Status != http.StatusCreated {
		t.Fatalf("POST /instances: %v %d %s", err, r.Status, r.Raw)
	}
	var order struct {
		Data struct {
			ID int64 `json:"order_id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.Raw, &order); err != nil {
		t.Fatal(err)
	}
	waitDeployed(t, e, a.APIKey, order.Data.ID)
}

// waitAllIdle waits (at most eventWait) until every worker loop sleeps for the idle interval with
// nothing due before it: from then on only a write wakes them. A pause in the reads would not
// tell, as a loop the scheduler holds back under load pauses too.
func waitAllIdle(t *testing.T, srv *Server) {
	t.Helper()
	// Idle: every loop counted asleep for the idle interval with no wake pending, the same twice
	// over an interval apart (a loop between taking a wake and counting itself awake would pass
	// one look).
	idle := func() bool {
		if int(srv.idleLoops.Load()) != len(srv.loops) {
			return false
		}
		for _, l := range srv.loops {
			if len(l.wake) != 0 {
				return false
			}
		}
		return int(srv.idleLoops.Load()) == len(srv.loops)
	}
	for deadline := time.Now().Add(eventWait); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if idle() {
			time.Sleep(20 * time.Millisecond)
			if idle() {
				return
			}
		}
	}
	t.Fatalf("%d of %d worker loops idle after %s", srv.idleLoops.Load(), len(srv.loops), eventWait)
}

// waitDeployed polls GET /orders/{id} (at most eventWait; the idle interval is an hour, so only
// a wake deploys it sooner) until the order is deployed.
func waitDeployed(t *testing.T, e *env, key string, id int64) {
	t.Helper()
	deadline := time.Now().Add(eventWait)
	for time.Now().Before(deadline) {
		r, err := e.send(request{Path: "/orders/" + strconv.FormatInt(id, 10), Key: key})
		if err != nil {
			t.Fatal(err)
		}
		var o struct {
			Data struct {
				Status string `json:"status"`
			} `json:"data"`
		}
		if err := json.Unmarshal(r.Raw, &o); err != nil {
			t.Fatal(err)
		}
		if o.Data.Status == "deployed" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the order was not deployed: the workers did not wake for it")
}
