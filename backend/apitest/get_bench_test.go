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
		defer access.Close()
		benchmarkGetInstance(b, slog.New(slog.NewTextHandler(io.Discard, nil)), access)
	})
	b.Run("slog", func(b *testing.B) { benchmarkGetInstance(b, slog.New(slog.NewTextHandler(io.Discard, nil)), nil) })
}

func benchmarkGetInstance(b *testing.B, log *slog.Logger, access *resellerd.AccessLog) {
	ctx := context.Background()
	srv, err := resellerd.New(ctx, resellerd.Config{DB: filepath.Join(b.TempDir(), "b.db"), WorkerInterval: -1, Logger: log,
		AccessLog: access})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	acct, err := srv.CreateAccount(ctx, resellerd.NewAccount{BalanceMicros: 1_000_000_000, ServerLimit: 100, OrderLimit: 100, Language: "en"})
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	do := func(method, path, body string) *httptest.ResponseRecorder {
		var rd io.Reader = http.NoBody // as net/http gives a request without a body
		if body != "" {
			rd = strings.NewReader(body)
		}
		r := httptest.NewRequest(method, "/api/v1"+path, rd)
		r.Header.Set("X-API-Token", acct.APIKey)
		r.Header.Set("Content-Type", "application/json")
		r.RemoteAddr = "192.0.2.1:1234"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := do(http.MethodPost, "/instances", `{"server_id": 101, "template_id": 1, "term": "hourly"}`)
	if w.Code >= 300 {
		b.Fatalf("order: %d %s", w.Code, w.Body)
	}
	for range 5 {
		if err := srv.RunDue(ctx); err != nil {
			b.Fatal(err)
		}
	}
	w = do(http.MethodGet, "/instances?limit=1", "")
	var list struct {
		Data []struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	_ = json.Unmarshal(w.Body.Bytes(), &list)
	if len(list.Data) == 0 {
		b.Fatalf("no instance: %s", w.Body)
	}
	path := "/instances/" + strconv.FormatInt(list.Data[0].ID, 10)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if w := do(http.MethodGet, path, ""); w.Code != http.StatusOK {
			b.Fatalf("get: %d %s", w.Code, w.Body)
		}
	}
}
