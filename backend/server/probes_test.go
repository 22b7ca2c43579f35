package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store/pgtest"
)

// TestProbesAreNeverRateLimited sends far more probes than /health's limit allows from one
// address: /livez and /readyz answer 200 every time while /health is refused.
func TestProbesAreNeverRateLimited(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.RateLimitScale = 0.025 }) // /health: 3 a minute
	for range 20 {
		for _, p := range []string{"//livez", "//readyz"} {
			e.do(t, request{Path: p, SkipContract: true}).wantStatus(t, http.StatusOK, "")
		}
	}
	for range 3 {
		e.do(t, request{Path: "/health"}).wantStatus(t, http.StatusOK, "")
	}
	e.do(t, request{Path: "/health"}).wantStatus(t, http.StatusTooManyRequests, "rate_limited")
	e.do(t, request{Path: "//readyz", SkipContract: true}).wantStatus(t, http.StatusOK, "")
	e.do(t, request{Path: "/livez", SkipContract: true}).wantStatus(t, http.StatusNotFound, "not_found") // root only
}

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
	for range 10 {
		probe().wantStatus(t, http.StatusOK, "")
	}

	if err := pgs.Halt(ctx); err != nil {
		t.Fatal(err)
	}
	r := probe()
	r.wantStatus(t, http.StatusServiceUnavailable, "service_unavailable")
	if !strings.Contains(r.Body.Error.Message, "database") {
		t.Fatalf("503 message %q does not name the database", r.Body.Error.Message)
	}
	e.do(t, request{Path: "//livez", SkipContract: true}).wantStatus(t, http.StatusOK, "")

	if err := pgs.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for r = probe(); r.Status != http.StatusOK && time.Now().Before(deadline); r = probe() {
		time.Sleep(50 * time.Millisecond)
	}
	r.wantStatus(t, http.StatusOK, "")
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
	e.do(t, request{Path: "//readyz", SkipContract: true}).wantStatus(t, http.StatusOK, "")
	stuck := e.srv.loops[0].beat
	stuck.unixNano.Store(time.Now().Add(-2 * time.Minute).UnixNano())
	r := e.do(t, request{Path: "//readyz", SkipContract: true})
	r.wantStatus(t, http.StatusServiceUnavailable, "service_unavailable")
	if !strings.Contains(r.Body.Error.Message, "provisioning") {
		t.Fatalf("503 message %q does not name the stuck loop", r.Body.Error.Message)
	}
	stuck.beat()
	e.do(t, request{Path: "//readyz", SkipContract: true}).wantStatus(t, http.StatusOK, "")
}
