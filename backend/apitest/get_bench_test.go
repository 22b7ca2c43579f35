package apitest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// BenchmarkGetInstanceInProcess measures GET /instances/{id} through the whole handler on SQLite,
// with no network: the store's read path (key, instance, installs) and the API's encoding; the
// "logged" run also writes the access lines (text, to io.Discard) through the access log serve
// makes by default (resellerd.NewTextAccessLog), the "slog" run through slog's text handler.
func BenchmarkGetInstanceInProcess(b *testing.B) {
	b.Run("quiet", func(b *testing.B) { benchmarkGetInstance(b, nil, nil) })
	b.Run("logged", func(b *testing.B) {
		access := resellerd.NewTextAccessLog(io.Discard, slog.LevelInfo)
		b.Cleanup(access.Close)
		benchmarkGetInstance(b, slog.New(slog.NewTextHandler(io.Discard, nil)), access)
	})
	b.Run("slog", func(b *testing.B) { benchmarkGetInstance(b, slog.New(slog.NewTextHandler(io.Discard, nil)), nil) })
	b.Run("handler", func(b *testing.B) {
		access := resellerd.NewTextAccessLog(io.Discard, slog.LevelInfo)
		b.Cleanup(access.Close)
		benchmarkGetInstanceHandler(b, slog.New(slog.NewTextHandler(io.Discard, nil)), access)
	})
}

func benchmarkGetInstance(b *testing.B, log *slog.Logger, access *resellerd.AccessLog) {
	h, key, path := instanceToGet(b, log, access)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if w := serveTo(h, key, http.MethodGet, path, ""); w.Code != http.StatusOK {
			b.Fatalf("get: %d %s", w.Code, w.Body)
		}
	}
}

// benchmarkGetInstanceHandler measures the handler alone: one request made before the loop
// (the handler does not change it) and a writer that only counts, so neither the request's
// parsing nor a recorder's copies are in the figure.
func benchmarkGetInstanceHandler(b *testing.B, log *slog.Logger, access *resellerd.AccessLog) {
	h, key, path := instanceToGet(b, log, access)
	r := httptest.NewRequest(http.MethodGet, "/api/v1"+path, http.NoBody)
	r.Header.Set("X-API-Token", key)
	r.RemoteAddr = "192.0.2.1:1234"
	w := &discardWriter{header: make(http.Header)}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		clear(w.header)
		w.status, w.n = 0, 0
		h.ServeHTTP(w, r)
		if w.status != http.StatusOK || w.n == 0 {
			b.Fatalf("get: %d, %d bytes", w.status, w.n)
		}
	}
}

// instanceToGet starts resellerd on SQLite with an account and one deployed instance, and
// returns its handler, the account's key and the instance's path under /api/v1.
func instanceToGet(b *testing.B, log *slog.Logger, access *resellerd.AccessLog) (http.Handler, string, string) {
	ctx := context.Background()
	srv, err := resellerd.New(ctx, resellerd.Config{DB: filepath.Join(b.TempDir(), "b.db"), WorkerInterval: -1, Logger: log,
		AccessLog: access})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	acct, err := srv.CreateAccount(ctx, resellerd.NewAccount{BalanceMicros: 1_000_000_000, ServerLimit: 100, OrderLimit: 100, Language: "en"})
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	w := serveTo(h, acct.APIKey, http.MethodPost, "/instances", `{"server_id": 101, "template_id": 1, "term": "hourly"}`)
	if w.Code >= 300 {
		b.Fatalf("order: %d %s", w.Code, w.Body)
	}
	for range 5 {
		if err := srv.RunDue(ctx); err != nil {
			b.Fatal(err)
		}
	}
	w = serveTo(h, acct.APIKey, http.MethodGet, "/instances?limit=1", "")
	var list struct {
		Data []struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	_ = json.Unmarshal(w.Body.Bytes(), &list)
	if len(list.Data) == 0 {
		b.Fatalf("no instance: %s", w.Body)
	}
	return h, acct.APIKey, "/instances/" + strconv.FormatInt(list.Data[0].ID, 10)
}

// serveTo serves one request of the account with key to h and returns what it answered.
func serveTo(h http.Handler, key, method, path, body string) *httptest.ResponseRecorder {
	var rd io.Reader = http.NoBody // as net/http gives a request without a body
	if body != "" {
		rd = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, "/api/v1"+path, rd)
	r.Header.Set("X-API-Token", key)
	r.Header.Set("Content-Type", "application/json")
	r.RemoteAddr = "192.0.2.1:1234"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// discardWriter is the least a ResponseWriter can be: a header map cleared for each request and
// a body counted, so the "handler" run measures resellerd's handler alone.
type discardWriter struct {
	header http.Header
	status int
	n      int
}

func (d *discardWriter) Header() http.Header { return d.header }
func (d *discardWriter) WriteHeader(status int) {
	if d.status == 0 {
		d.status = status
	}
}
func (d *discardWriter) Write(p []byte) (int, error) { d.n += len(p); return len(p), nil }
