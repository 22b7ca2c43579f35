package resellerd

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/pgtest"
)

// TestReadyzFollowsPostgres serves on a PostgreSQL server of the test's own, with the workers
// running, and stops that server: /readyz answers 503 service_unavailable naming the database
// while /livez stays 200, and 200 again once the server is back. /readyz is never rate-limited,
// though PostgreSQL keeps the limits' windows in the database.
func TestReadyzFollowsPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server of its own")
	}
	t.Parallel()
	ctx := context.Background()
	pgs, err := pgtest.Start(ctx)
	if err != nil {
		t.Skipf("PostgreSQL tests skipped: %v", err)
	}
	t.Cleanup(func() { _ = pgs.Stop() })
	dsn, err := pgs.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e := openEnv(t, Config{DB: dsn, Clock: NewManualClock(testStart), WorkerInterval: 20 * time.Millisecond,
		IdleInterval: 50 * time.Millisecond, RateLimitScale: 0.025})
	probe := func() response {
		r, err := e.send(request{Path: "//readyz"})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// A loaded machine (CI runs the whole matrix on two cores) can keep PostgreSQL from
	// answering one ping within pingTimeout: that 503 is the probe working, not the failure this
	// test looks for. So the probe must turn 200 within eventWait, and then ten quick probes,
	// more than the scaled rate limit allows, must each be 200 or that slow-ping 503, never 429.
	deadline := time.Now().Add(eventWait)
	r := probe()
	for r.Status != http.StatusOK && slowPing(r) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		r = probe()
	}
	r.WantStatus(t, http.StatusOK, "")
	for range 10 {
		if r := probe(); r.Status != http.StatusOK && !slowPing(r) {
			r.WantStatus(t, http.StatusOK, "")
		}
	}

	if err := pgs.Halt(ctx); err != nil {
		t.Fatal(err)
	}
	// The probe answers from a check at most readyMaxAge old: the 503 comes within about a
	// second (and the ping's own timeout, a second, when the stopped server does not refuse).
	halted := time.Now()
	r = probe()
	for r.Status == http.StatusOK && time.Since(halted) < readyMaxAge+pingTimeout+2*time.Second {
		time.Sleep(50 * time.Millisecond)
		r = probe()
	}
	r.WantStatus(t, http.StatusServiceUnavailable, "service_unavailable")
	if !strings.Contains(r.Body.Error.Message, "database") {
		t.Fatalf("503 message %q does not name the database", r.Body.Error.Message)
	}
	e.do(t, request{Path: "//livez"}).WantStatus(t, http.StatusOK, "")

	if err := pgs.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(eventWait)
	for r = probe(); r.Status != http.StatusOK && time.Now().Before(deadline); r = probe() {
		time.Sleep(50 * time.Millisecond)
	}
	r.WantStatus(t, http.StatusOK, "")
}

// slowPing tells whether r is the probe's 503 for a database that did not answer within
// pingTimeout.
func slowPing(r response) bool {
	return r.Status == http.StatusServiceUnavailable && r.Body.Error != nil &&
		strings.Contains(r.Body.Error.Message, "did not answer within")
}

// TestReadyzWantsTickingWorkers: a worker loop that has not begun or ended a tick for longer
// than a minute (stuck in a step) makes /readyz 503 naming it; a fresh beat makes it 200 again.
func TestReadyzWantsTickingWorkers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.srv.interval = time.Second // as if the loops ran (newEnv starts none)
	for _, l := range e.srv.loops {
		l.beat.beat()
	}
	e.do(t, request{Path: "//readyz"}).WantStatus(t, http.StatusOK, "")
	stuck := e.srv.loops[0].beat
	stuck.unixNano.Store(time.Now().Add(-2 * time.Minute).UnixNano())
	r := e.do(t, request{Path: "//readyz"})
	r.WantStatus(t, http.StatusServiceUnavailable, "service_unavailable")
	if !strings.Contains(r.Body.Error.Message, "provisioning") {
		t.Fatalf("503 message %q does not name the stuck loop", r.Body.Error.Message)
	}
	stuck.beat()
	e.do(t, request{Path: "//readyz"}).WantStatus(t, http.StatusOK, "")
}

// countingPinger is a store whose Ping counts the database queries it makes (each call is one
// SELECT 1 of the real store), can hold them until released, and can fail as a database that is
// down would.
type countingPinger struct {
	store.Store
	pings atomic.Int64
	down  atomic.Bool
	hold  chan struct{} // nil: no hold; else each ping waits until it is closed
}

func (c *countingPinger) Ping(ctx context.Context) error {
	c.pings.Add(1)
	if c.hold != nil {
		select {
		case <-c.hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if c.down.Load() {
		return errors.New("dial tcp 10.0.0.5:5432: connect: connection refused")
	}
	return c.Store.(pinger).Ping(ctx)
}

// countPings puts a countingPinger in front of e's store (before any probe: no loop runs in
// newEnv) and returns it.
func countPings(e *env, hold chan struct{}) *countingPinger {
	c := &countingPinger{Store: e.srv.store, hold: hold}
	e.srv.store = c
	return c
}

// probeClock is the readiness check's clock in a test: it moves only when told to.
type probeClock struct{ nanos atomic.Int64 }

func (c *probeClock) now() time.Time          { return time.Unix(0, c.nanos.Load()) }
func (c *probeClock) advance(d time.Duration) { c.nanos.Add(int64(d)) }

// newProbeClock makes e's readiness check follow a probeClock standing at testStart.
func newProbeClock(e *env) *probeClock {
	c := &probeClock{}
	c.nanos.Store(testStart.UnixNano())
	e.srv.dbReady.now = c.now
	return c
}

// sendProbes sends n probes from workers goroutines at once and returns their statuses (0 for
// a transport error).
func sendProbes(e *env, n, workers int) []int {
	statuses := make([]int, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				if r, err := e.send(request{Path: "//readyz"}); err == nil {
					statuses[i] = r.Status
				}
			}
		}()
	}
	wg.Wait()
	return statuses
}

// wantAll fails unless every status is want.
func wantAll(t *testing.T, statuses []int, want int) {
	t.Helper()
	for i, s := range statuses {
		if s != want {
			t.Fatalf("probe %d of %d answered %d, want %d", i, len(statuses), s, want)
		}
	}
}

// TestReadyzAnswersFromACheckAtMostASecondOld: 1,000 probes, 50 at a time, within one second
// of the readiness clock cost one database query; a probe 999 ms later still answers from it,
// one a full second after the check checks again. A database that goes down turns /readyz 503
// at the first check a second after the last (not before: the 200 is at most a second old),
// and every probe of that second answers 503 from the one failed query.
func TestReadyzAnswersFromACheckAtMostASecondOld(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	db := countPings(e, nil)
	clock := newProbeClock(e)
	wantPings := func(n int64) {
		t.Helper()
		if got := db.pings.Load(); got != n {
			t.Fatalf("%d database queries, want %d", got, n)
		}
	}

	wantAll(t, sendProbes(e, 1000, 50), http.StatusOK)
	wantPings(1)
	clock.advance(readyMaxAge - time.Millisecond)
	wantAll(t, sendProbes(e, 10, 1), http.StatusOK)
	wantPings(1)
	clock.advance(time.Millisecond)
	wantAll(t, sendProbes(e, 10, 1), http.StatusOK)
	wantPings(2)

	db.down.Store(true)
	wantAll(t, sendProbes(e, 10, 1), http.StatusOK) // the check of this second was before
	wantPings(2)
	clock.advance(readyMaxAge)
	wantAll(t, sendProbes(e, 100, 10), http.StatusServiceUnavailable)
	wantPings(3)
	r := e.do(t, request{Path: "//readyz"})
	r.WantStatus(t, http.StatusServiceUnavailable, "service_unavailable")
	if !strings.Contains(r.Body.Error.Message, "database unavailable") || strings.Contains(r.Body.Error.Message, "10.0.0.5") {
		t.Fatalf("503 message %q: want the database named, not the driver's error", r.Body.Error.Message)
	}

	db.down.Store(false)
	clock.advance(readyMaxAge)
	wantAll(t, sendProbes(e, 10, 1), http.StatusOK)
	wantPings(4)
}

// TestReadyzProbesShareTheCheckInFlight: while one database query of the probe is running (held
// by the test), 200 concurrent probes wait for it instead of querying too; all answer 200 from
// it once it returns.
func TestReadyzProbesShareTheCheckInFlight(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	hold := make(chan struct{})
	db := countPings(e, hold)
	newProbeClock(e)

	done := make(chan []int)
	go func() { done <- sendProbes(e, 200, 200) }()
	deadline := time.Now().Add(eventWait)
	for db.pings.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // the other probes arrive meanwhile
	if got := db.pings.Load(); got != 1 {
		t.Fatalf("%d database queries while one was running, want 1", got)
	}
	close(hold)
	wantAll(t, <-done, http.StatusOK)
	if got := db.pings.Load(); got != 1 {
		t.Fatalf("%d database queries, want 1", got)
	}
}

// TestReadyzTurns503WithinASecondOfRealTime: on real time (the backend's manual clock stands
// still, and the probe does not follow it), a database that goes down after a good check turns
// /readyz 503 within about a second.
func TestReadyzTurns503WithinASecondOfRealTime(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	db := countPings(e, nil)
	e.do(t, request{Path: "//readyz"}).WantStatus(t, http.StatusOK, "")
	db.down.Store(true)
	down := time.Now()
	for {
		r, err := e.send(request{Path: "//readyz"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status == http.StatusServiceUnavailable {
			break
		}
		if time.Since(down) > readyMaxAge+time.Second {
			t.Fatalf("/readyz still %d %s after the database went down", r.Status, time.Since(down).Round(time.Millisecond))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := db.pings.Load(); got > 3 {
		t.Fatalf("%d database queries in about a second of probes every 20 ms, want at most 3", got)
	}
}

// TestSharedCheckOutlivesItsCaller: the caller whose probe runs the check goes away (its context
// is cancelled); the check still runs to its end, uncancelled, and the next caller gets its
// result without checking again.
func TestSharedCheckOutlivesItsCaller(t *testing.T) {
	t.Parallel()
	var c sharedCheck
	c.now = func() time.Time { return testStart }
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	runs := 0
	run := func(ctx context.Context) error {
		runs++
		return ctx.Err()
	}
	if err := c.do(ctx, time.Second, run); err != nil {
		t.Fatalf("check run for a cancelled caller: %v, want nil (run uncancelled)", err)
	}
	if err := c.do(context.Background(), time.Second, run); err != nil || runs != 1 {
		t.Fatalf("second caller: %v after %d runs, want nil after 1", err, runs)
	}
}
