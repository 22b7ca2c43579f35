package api

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/sim"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
)

type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { return c.t }

// newTestHandler builds the API with extra test-only routes registered beside the real ones, as
// the real ones are (handle); configure changes the handler's Config.
func newTestHandler(t *testing.T, logs *bytes.Buffer, extra func(route routeFunc), configure ...func(*Config)) http.Handler {
	t.Helper()
	st, err := sqlstore.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "api.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	clock := &fixedClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	svc := service.New(service.Config{Store: st, Catalog: catalog.New(), Clock: clock, Logger: logger,
		Datacenter: sim.New(sim.Options{Clock: clock, State: st})})
	cfg := Config{Service: svc, Logger: logger, Clock: clock, RateLimitScale: 1}
	for _, c := range configure {
		c(&cfg)
	}
	h := newHandler(cfg)
	mux := http.NewServeMux()
	h.routes(mux)
	extra(func(pattern string, fn http.HandlerFunc) { h.handle(mux, pattern, fn) })
	return h.wrap(mux)
}

// routeFunc registers a test-only route.
type routeFunc func(pattern string, fn http.HandlerFunc)

func TestPanicRecovery(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	handler := newTestHandler(t, &logs, func(route routeFunc) {
		route("GET /api/v1/test/panic", func(http.ResponseWriter, *http.Request) { panic("kaboom") })
	})
	req := httptest.NewRequest(http.MethodGet, "/api/v1/test/panic", nil)
	req.Header.Set("X-Request-ID", "panic-1")
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)

	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("status = %d, want 500", rec.Code)
	}
	var body errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("body %q: %v", rec.Body.String(), err)
	}
	if body.Success || body.Error.Code != "server_error" || body.Error.RequestID != "panic-1" {
		t.Fatalf("got %+v, want server_error with request id panic-1", body)
	}
	if strings.Contains(rec.Body.String(), "kaboom") {
		t.Fatal("the panic value leaked to the client")
	}
	if !strings.Contains(logs.String(), "kaboom") || !strings.Contains(logs.String(), "panic-1") {
		t.Fatalf("log lacks the panic or the request id:\n%s", logs.String())
	}
	// The server keeps serving.
	rec = httptest.NewRecorder()
	handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/health", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("after a panic: status %d, want 200", rec.Code)
	}
}

func TestLimiter(t *testing.T) {
	t.Parallel()
	clock := &fixedClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	tests := []struct {
		name      string
		scale     float64
		perMinute int
		wantAllow int
	}{
		{"scale 1", 1, 60, 60},
		{"scale rounds up", 0.01, 60, 1},
		{"scale multiplies", 2, 3, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLimiter(clock, tt.scale, nil, nil)
			for i := 0; i < tt.wantAllow; i++ {
				if ok, _ := l.allow(t.Context(), "k", tt.perMinute); !ok {
					t.Fatalf("request %d refused, want %d allowed", i+1, tt.wantAllow)
				}
			}
			if ok, wait := l.allow(t.Context(), "k", tt.perMinute); ok || wait != 60 {
				t.Fatalf("request %d: allowed %v, wait %d; want refused, wait 60", tt.wantAllow+1, ok, wait)
			}
		})
	}
	t.Run("sliding window frees the oldest", func(t *testing.T) {
		c := &fixedClock{t: clock.t}
		l := newLimiter(c, 1, nil, nil)
		l.allow(t.Context(), "k", 2)
		c.t = c.t.Add(30 * time.Second)
		l.allow(t.Context(), "k", 2)
		if ok, wait := l.allow(t.Context(), "k", 2); ok || wait != 30 {
			t.Fatalf("got allowed %v wait %d, want refused wait 30", ok, wait)
		}
		c.t = c.t.Add(30 * time.Second)
		if ok, _ := l.allow(t.Context(), "k", 2); !ok {
			t.Fatal("the first request left the window; want allowed")
		}
	})
}

func TestLanguage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query, accept string
		want          catalog.Lang
	}{
		{"", "", catalog.Persian},
		{"lang=en", "", catalog.English},
		{"lang=fa", "en", catalog.Persian},
		{"", "en-GB;q=0.9", catalog.English},
		{"", " en ", catalog.English},
		{"", "fa-IR,en", catalog.Persian},
		{"", "english", catalog.Persian},
	}
	for _, tt := range tests {
		t.Run(tt.query+"|"+tt.accept, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/x?"+tt.query, nil)
			if tt.accept != "" {
				r.Header.Set("Accept-Language", tt.accept)
			}
			if got := language(r); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCheckLang(t *testing.T) {
	t.Parallel()
	for query, wantErr := range map[string]bool{"": false, "lang=fa": false, "lang=en": false, "lang=EN": true, "lang=xx": true, "lang=": true} {
		r := httptest.NewRequest(http.MethodGet, "/x?"+query, nil)
		if err := checkLang(r); (err != nil) != wantErr {
			t.Errorf("checkLang(%q) = %v, want error %v", query, err, wantErr)
		}
	}
}

func TestAPIKeyHeaders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		header map[string]string
		want   string
	}{
		{"none", nil, ""},
		{"token", map[string]string{"X-API-Token": "abc"}, "abc"},
		{"bearer", map[string]string{"Authorization": "Bearer abc"}, "abc"},
		{"token wins", map[string]string{"X-API-Token": "one", "Authorization": "Bearer two"}, "one"},
		{"basic ignored", map[string]string{"Authorization": "Basic abc"}, ""},
		{"bare bearer", map[string]string{"Authorization": "Bearer"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			if got := apiKey(r); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestMethodLabelIsBounded: a method net/http accepts but no route serves is one "other" label,
// so random methods cannot grow the metrics without bound.
func TestMethodLabelIsBounded(t *testing.T) {
	for in, want := range map[string]string{"GET": "GET", "POST": "POST", "DELETE": "DELETE", "BREW": "other", "get": "other"} {
		if got := methodLabel(in); got != want {
			t.Errorf("methodLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestEveryRouteHasAHandler: every row of Routes names the handler its kind needs (authed, or
// public for a route served without a key), and no other.
func TestEveryRouteHasAHandler(t *testing.T) {
	for _, rt := range Routes {
		switch {
		case rt.Public && (rt.public == nil || rt.authed != nil):
			t.Errorf("%s is public: its row needs a public handler and no authed one", rt.Pattern())
		case !rt.Public && (rt.authed == nil || rt.public != nil):
			t.Errorf("%s needs a key: its row needs an authed handler and no public one", rt.Pattern())
		}
	}
}

// TestRequestsOutsideRoutes: the mux matches a request once (handle), and what no route takes
// gets the envelope from the catch-all: 404 for an unknown path, 405 with Allow for a known path
// under another method, 404 for "OPTIONS *"; a path not in its clean form is redirected to it
// first, known or not (backend/docs/choices.md, "Unknown routes"). A route that matched names
// itself in the access record and its request checks run before its handler.
func TestRequestsOutsideRoutes(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	var ran bool
	h := newTestHandler(t, &logs, func(route routeFunc) {
		route("GET /api/v1/test/route", func(w http.ResponseWriter, r *http.Request) {
			ran = true
			if got := accessOf(r.Context()).route; got != "GET /test/route" {
				t.Errorf("the route's access record says %q", got)
			}
			w.WriteHeader(http.StatusNoContent)
		})
	})
	tests := []struct {
		method, target string
		status         int
		code, header   string // the envelope's code; a header the answer must carry
	}{
		{http.MethodGet, "/api/v1/test/route", http.StatusNoContent, "", ""},
		{http.MethodGet, "/api/v1/test/route?a=%zz", http.StatusBadRequest, "validation_error", ""},
		{http.MethodGet, "/api/v1/nowhere", http.StatusNotFound, "not_found", ""},
		{http.MethodPut, "/api/v1/health", http.StatusMethodNotAllowed, "method_not_allowed", "Allow"},
		{http.MethodOptions, "*", http.StatusNotFound, "not_found", ""},
		{http.MethodGet, "/api/v1//nowhere", http.StatusTemporaryRedirect, "", "Location"},
		{http.MethodGet, "/api/v1/x/../test/route", http.StatusTemporaryRedirect, "", "Location"},
	}
	for _, tt := range tests {
		ran = false
		req := httptest.NewRequest(tt.method, "/", nil)
		req.RequestURI = tt.target
		req.URL.Path, req.URL.RawQuery, _ = strings.Cut(tt.target, "?")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tt.status || tt.header != "" && rec.Header().Get(tt.header) == "" || rec.Header().Get("X-Request-ID") == "" {
			t.Errorf("%s %s: %d %v, want %d with %s", tt.method, tt.target, rec.Code, rec.Header(), tt.status, tt.header)
			continue
		}
		if tt.header == "Location" && rec.Header().Get("Location") != path.Clean(tt.target) {
			t.Errorf("%s %s: redirected to %q", tt.method, tt.target, rec.Header().Get("Location"))
		}
		if tt.code != "" {
			var body errorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error.Code != tt.code {
				t.Errorf("%s %s: body %q, want code %s", tt.method, tt.target, rec.Body.String(), tt.code)
			}
		}
		if ran != (tt.status == http.StatusNoContent) {
			t.Errorf("%s %s: the route's handler ran: %v", tt.method, tt.target, ran)
		}
	}
}

// TestNewRequestIDs: a made request id is 32 lowercase hex digits, which withRequestID would
// also accept from a client, and ten thousand of them, made on two goroutines, are all different.
func TestNewRequestIDs(t *testing.T) {
	t.Parallel()
	const n = 5000
	ids := make(chan string, 2*n)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for range n {
				ids <- newRequestID()
			}
		})
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if len(id) != 32 || strings.Trim(id, "0123456789abcdef") != "" || !saneRequestID(id) {
			t.Fatalf("request id %q: want 32 lowercase hex digits", id)
		}
		if seen[id] {
			t.Fatalf("request id %q made twice", id)
		}
		seen[id] = true
	}
}
