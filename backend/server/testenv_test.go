package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store/pgtest"
)

// The tests of this package are unit tests of its machinery (workers, readiness, shutdown, the
// store it wires, New); the HTTP conformance suite of the API is backend/apitest. What they
// share is below: a backend behind a real HTTP server, and the few calls they make to it.

// pg is this test binary's throwaway PostgreSQL server, started by the first test that needs it.
var pg pgtest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	if err := pg.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stop PostgreSQL:", err)
	}
	os.Exit(code)
}

// envStore names the variable that picks the store of newEnv: "postgres" runs the tests on the
// throwaway PostgreSQL server, a fresh database per test; anything else on SQLite files.
const envStore = "RESELLER_TEST_STORE"

// testDB is the database of a new test backend.
func testDB(t *testing.T) string {
	t.Helper()
	if os.Getenv(envStore) == "postgres" {
		return pg.Database(t)
	}
	return filepath.Join(t.TempDir(), "reseller.db")
}

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
	return openEnv(t, Config{DB: testDB(t), RateLimitScale: 100, Clock: NewManualClock(testStart), WorkerInterval: -1})
}

// openEnv starts a backend on cfg behind a real HTTP server, closed when the test ends.
func openEnv(t *testing.T, cfg Config) *env {
	t.Helper()
	srv, err := New(context.Background(), cfg)
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
	return &env{srv: srv, http: hs}
}

// request describes one call; Key is sent as X-API-Token.
type request struct {
	Method string
	Path   string // after /api/v1, or absolute when it starts with "//"
	Key    string
	Body   string
}

// response is the decoded answer.
type response struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
		Error   *struct {
			Code      string `json:"code"`
			Message   string `json:"message"`
			RequestID string `json:"request_id"`
		} `json:"error"`
	}
}

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
		req.Header.Set("X-API-Token", r.Key)
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
	out := response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if err := json.Unmarshal(raw, &out.Body); err != nil {
		return response{}, fmt.Errorf("body is not JSON: %w\n%s", err, raw)
	}
	return out, nil
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
