package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/openapi"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
	"github.com/reseller/terraform-provider-reseller/backend/internal/wiretest"
	"github.com/reseller/terraform-provider-reseller/backend/server"
)

// testStart is where every test clock starts.
var testStart = time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)

// env is one in-process backend on a temporary database (SQLite, or PostgreSQL when
// RESELLER_TEST_STORE=postgres), reached over real HTTP. Its
// workers do not run by themselves: tests move the clock and call runDue, so every step is
// deterministic.
type env struct {
	srv       *server.Server
	clock     *server.ManualClock
	http      *httptest.Server
	validator *openapi.Validator
	dsn       string      // the backend's Config.DB
	db        store.Store // the database opened beside the backend (see database); nil until then
}

// validators are expensive to build; one per test binary is shared (it is safe for concurrent use).
var sharedValidator = sync.OnceValues(openapi.NewValidator)

func newEnv(t *testing.T, mutate ...func(*server.Config)) *env {
	t.Helper()
	clock := server.NewManualClock(testStart)
	cfg := server.Config{
		DB:             testDB(t),
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
func openEnv(t *testing.T, cfg server.Config) *env {
	t.Helper()
	clock := cfg.Clock.(*server.ManualClock)
	srv, err := server.New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("server.New: %v", err)
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
	kind, target, err := server.ParseDB(e.dsn)
	if err != nil {
		t.Fatal(err)
	}
	var st *sqlstore.Store
	if kind == server.DBPostgres {
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
func (e *env) account(t *testing.T, balanceMicros int64) server.CreatedAccount {
	t.Helper()
	a, err := e.srv.CreateAccount(context.Background(), server.NewAccount{BalanceMicros: balanceMicros})
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	return a
}

// request describes one call; Key is sent as X-API-Token unless Bearer is set.
type request struct {
	Method       string
	Path         string // after /api/v1, or absolute when it starts with "//"
	Key          string
	Bearer       bool
	Body         string
	Header       map[string]string
	SkipContract bool // the exchange deliberately departs from the OpenAPI document
}

// response is the decoded answer.
type response struct {
	Status int
	Header http.Header
	Raw    []byte
	req    *http.Request
	Body   struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
		Meta    *wiretest.Meta  `json:"meta"`
		Error   *struct {
			Code      string  `json:"code"`
			Message   string  `json:"message"`
			RequestID string  `json:"request_id"`
			Reference *string `json:"reference"`
		} `json:"error"`
	}
}

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
	if r.Method == "" {
		r.Method = http.MethodGet
	}
	url := e.http.URL + "/api/v1" + r.Path
	if len(r.Path) > 1 && r.Path[:2] == "//" {
		url = e.http.URL + r.Path[1:]
	}
	req, err := http.NewRequest(r.Method, url, bytes.NewBufferString(r.Body))
	if err != nil {
		return response{}, err
	}
	if r.Body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.Key != "" {
		if r.Bearer {
			req.Header.Set("Authorization", "Bearer "+r.Key)
		} else {
			req.Header.Set("X-API-Token", r.Key)
		}
	}
	for k, v := range r.Header {
		req.Header.Set(k, v)
	}
	resp, err := e.http.Client().Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, err
	}
	out := response{Status: resp.StatusCode, Header: resp.Header, Raw: raw, req: req}
	if err := json.Unmarshal(raw, &out.Body); err != nil && r.Path != "//openapi.json" {
		return response{}, fmt.Errorf("body is not JSON: %w\n%s", err, raw)
	}
	return out, nil
}

// check verifies what every answer must have, and the exchange against the OpenAPI document.
func (e *env) check(t *testing.T, r request, out response) {
	t.Helper()
	if out.Header.Get("X-Request-ID") == "" {
		t.Errorf("%s %s: no X-Request-ID header", r.Method, r.Path)
	}
	if !r.SkipContract && r.Path != "//openapi.json" {
		if err := e.validator.Validate(context.Background(), out.req, []byte(r.Body), out.Status, out.Header, out.Raw); err != nil {
			t.Errorf("contract: %v", err)
		}
	}
}

// wantStatus fails unless the answer has status and, for errors, code.
func (r response) wantStatus(t *testing.T, status int, code string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body %s", r.Status, status, r.Raw)
	}
	if code == "" {
		if !r.Body.Success {
			t.Fatalf("success = false, want true; body %s", r.Raw)
		}
		return
	}
	if r.Body.Success || r.Body.Error == nil || r.Body.Error.Code != code {
		t.Fatalf("error = %s, want code %q", r.Raw, code)
	}
	if r.Body.Error.RequestID != r.Header.Get("X-Request-ID") && status != http.StatusTooManyRequests {
		t.Fatalf("error.request_id = %q, want the X-Request-ID header %q", r.Body.Error.RequestID, r.Header.Get("X-Request-ID"))
	}
}

// data decodes the envelope's data into v.
func (r response) data(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body.Data, v); err != nil {
		t.Fatalf("data: %v\n%s", err, r.Raw)
	}
}

// lockedBuffer is a log destination safe for the concurrent writers of a backend, read by the
// test while the workers write.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
