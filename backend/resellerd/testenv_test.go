package resellerd

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/apicall"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/pgtest"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
)

// The tests of this package are unit tests of its machinery (workers, readiness, shutdown, the
// store it wires, New); the HTTP conformance suite of the API is backend/apitest. What they
// share is below: a backend behind a real HTTP server, and the few calls they make to it.

// pg is this test binary's throwaway PostgreSQL server, started by the first test that needs it.
var pg pgtest.Shared

func TestMain(m *testing.M) { pg.Main(m) }

// eventWait bounds a test's wait for something to happen (a worker to start or wake, an order
// to deploy, a database to come back). It only keeps a broken test from hanging: a loaded CI
// host is many times slower than an idle one, and the tests assert no speed.
const eventWait = time.Minute

// machineWait bounds a wait on a real machine (a boot, a stop, a deploy that boots one).
const machineWait = 2 * time.Minute

// transferWait bounds one 1.2 GB transfer through a machine (machines_traffic_test.go). Over SSH
// it is CPU work on both ends, 9 s on an idle host, and it passed machineWait on CI's two
// loaded cores, beside the acceptance matrix.
const transferWait = 6 * time.Minute

// testStart is where every test clock starts.
var testStart = time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)

// ubuntuOn101 orders the cheapest plan.
const ubuntuOn101 = `{"server_id": 101, "template_id": 1, "term": "hourly"}`

// env is one in-process backend reached over real HTTP. Its workers do not run by themselves
// unless the test's Config says so.
type env struct {
	srv  *Server
	http *httptest.Server
}

// newEnv starts a backend on a temporary database with a manual clock and no worker loop.
func newEnv(t *testing.T) *env {
	t.Helper()
	return openEnv(t, Config{DB: pg.TestDB(t), RateLimitScale: 100, Clock: NewManualClock(testStart), WorkerInterval: -1})
}

// openEnv starts a backend on cfg behind a real HTTP server, closed when the test ends.
func openEnv(t *testing.T, cfg Config) *env {
	t.Helper()
	srv, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("resellerd.New: %v", err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return &env{srv: srv, http: hs}
}

// request and response are the shared vocabulary of the backend's HTTP tests (apicall).
type (
	request  = apicall.Request
	response = apicall.Response
)

// do sends r and checks that the answer has a request id.
func (e *env) do(t *testing.T, r request) response {
	t.Helper()
	out, err := e.send(r)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Method, r.Path, err)
	}
	if out.Header.Get("X-Request-ID") == "" {
		t.Errorf("%s %s: no X-Request-ID header", r.Method, r.Path)
	}
	return out
}

// send performs r without touching t, so goroutines may call it.
func (e *env) send(r request) (response, error) {
	return apicall.Send(e.http.Client(), e.http.URL, r)
}

// testOnStore wires a backend on st as New does (newOnStore), failing t if it cannot.
func testOnStore(t *testing.T, ctx context.Context, cfg Config, st *sqlstore.Store) *Server {
	t.Helper()
	srv, err := newOnStore(ctx, cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}
