package resellerd

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
)

// TestKeyCacheStopsRotatedKeysAtOnce authenticates from SQLite's key cache (a repeated request
// reads no key) and shows that a rotated key stops at once, whether this backend rotates it or
// another one on the same file does (as `resellerd account rotate-key` would).
func TestKeyCacheStopsRotatedKeysAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "keys.db")
	var keyReads atomic.Int64
	st, err := sqlstore.OpenSQLite(ctx, path, sqlstore.WithReadHook(func(query string, _ int) {
		if strings.Contains(query, "WHERE key_hash") {
			keyReads.Add(1)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	srv := testOnStore(t, ctx, withDefaults(Config{DB: path, WorkerInterval: -1}), st)
	t.Cleanup(func() { _ = srv.Close() })
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	e := &env{srv: srv, http: hs}
	a, err := srv.CreateAccount(ctx, NewAccount{BalanceMicros: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}

	wantAuth(t, e, a.APIKey, http.StatusOK)
	before := keyReads.Load()
	wantAuth(t, e, a.APIKey, http.StatusOK)
	if n := keyReads.Load() - before; n != 0 {
		t.Fatalf("a repeated request read its key %d times, want 0 (from the cache)", n)
	}

	rotated, err := srv.RotateKey(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantAuth(t, e, a.APIKey, http.StatusUnauthorized)
	wantAuth(t, e, rotated, http.StatusOK)
	wantAuth(t, e, rotated, http.StatusOK) // cached again

	other, err := New(ctx, Config{DB: path, WorkerInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Close() })
	latest, err := other.RotateKey(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantAuth(t, e, rotated, http.StatusUnauthorized)
	wantAuth(t, e, latest, http.StatusOK)
}

func wantAuth(t *testing.T, e *env, key string, status int) {
	t.Helper()
	r, err := e.send(request{Path: "/datacenters", Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != status {
		t.Fatalf("GET /datacenters with key %.8s...: %d %s, want %d", key, r.Status, r.Raw, status)
	}
}
