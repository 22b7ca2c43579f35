package apitest

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/apicall"
	"github.com/reseller/terraform-provider-reseller/backend/internal/openapi"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// eventWait bounds the few waits on the real clock for something to happen (a background loop
// deploying, delivering, a replica reading a change). It only keeps a broken test from hanging:
// a loaded CI host is many times slower than an idle one, and the tests assert no speed.
const eventWait = time.Minute

// testStart is where every test clock starts.
var testStart = time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)

// env is one in-process backend on a temporary database (SQLite, or PostgreSQL when
// RESELLER_TEST_STORE=postgres), reached over real HTTP. Its
// workers do not run by themselves: tests move the clock and call runDue, so every step is
// deterministic.
type env struct {
	srv       *resellerd.Server
	clock     *resellerd.ManualClock
	http      *httptest.Server
	validator *openapi.Validator
	dsn       string      // the backend's Config.DB
	db        store.Store // the database opened beside the backend (see database); nil until then
}

// validators are expensive to build; one per test binary is shared (it is safe for concurrent use).
var sharedValidator = sync.OnceValues(openapi.NewValidator)

func newEnv(t *testing.T, mutate ...func(*resellerd.Config)) *env {
	t.Helper()
	clock := resellerd.NewManualClock(testStart)
	cfg := resellerd.Config{
		DB:             pg.TestDB(t),
		RateLimitScale: 100, // high enough that only the rate-limit tests meet a limit
		Clock:          clock,
		WorkerInterval: -1,
	}
	for _, m := range mutate {
		m(&cfg)
	}
	return openEnv(t, cfg)
}

// openEnv starts a backend on cfg (whose Clock must be a *ManualClock) behind a real HTTP
// server, closed when the test ends.
func openEnv(t *testing.T, cfg resellerd.Config) *env {
	t.Helper()
	clock := cfg.Clock.(*resellerd.ManualClock)
	srv, err := resellerd.New(context.Background(), cfg)
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
	v, err := sharedValidator()
	if err != nil {
		t.Fatalf("openapi validator: %v", err)
	}
	return &env{srv: srv, clock: clock, http: hs, validator: v, dsn: cfg.DB}
}

// database is the backend's database opened a second time, as `resellerd account` opens it
// beside a running serve (or another replica does): through it the suite reads the rows the API
// does not show (the ledger, events, deliveries) and writes the states no client can cause,
// without reaching into the server. It is opened on the first call, on the test's goroutine, and
// closed when the test ends.
func (e *env) database(t *testing.T) store.Store {
	t.Helper()
	if e.db != nil {
		return e.db
	}
	kind, target, err := resellerd.ParseDB(e.dsn)
	if err != nil {
		t.Fatal(err)
	}
	var st *sqlstore.Store
	if kind == resellerd.DBPostgres {
		st, err = sqlstore.OpenPostgres(context.Background(), target)
	} else {
		st, err = sqlstore.OpenSQLite(context.Background(), target)
	}
	if err != nil {
		t.Fatalf("open the database beside the backend: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	e.db = st
	return st
}

// account creates an account with the given balance in micro-USD.
func (e *env) account(t *testing.T, balanceMicros int64) resellerd.CreatedAccount {
	t.Helper()
	a, err := e.srv.CreateAccount(context.Background(), resellerd.NewAccount{BalanceMicros: balanceMicros})
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	return a
}

// request and response are the shared vocabulary of the backend's HTTP tests (apicall).
type (
	request  = apicall.Request
	response = apicall.Response
)

// do sends r and checks the exchange against the OpenAPI document.
func (e *env) do(t *testing.T, r request) response {
	t.Helper()
	out, err := e.send(r)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Method, r.Path, err)
	}
	e.check(t, r, out)
	return out
}

// send performs r without touching t, so goroutines may call it; check the answer afterwards on
// the test's goroutine.
func (e *env) send(r request) (response, error) {
	return apicall.Send(e.http.Client(), e.http.URL, r)
}

// check verifies what every answer must have, and the exchange against the OpenAPI document.
func (e *env) check(t *testing.T, r request, out response) {
	t.Helper()
	if out.Header.Get("X-Request-ID") == "" {
		t.Errorf("%s %s: no X-Request-ID header", r.Method, r.Path)
	}
	if !r.SkipContract && r.Path != "//openapi.json" {
		if err := e.validator.Validate(context.Background(), out.Request, []byte(r.Body), out.Status, out.Header, out.Raw); err != nil {
			t.Errorf("contract: %v", err)
		}
	}
}
