package devserver

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/devapi"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// testDevBackend starts dev's backend on a new database, as dev does, with newServer failing
// while fail is set.
func testDevBackend(t *testing.T, fail *atomic.Bool) *backend {
	t.Helper()
	accounts, _, err := devAccounts("")
	if err != nil {
		t.Fatal(err)
	}
	clock := &devapi.OffsetClock{}
	cfg := resellerd.Config{DB: filepath.Join(t.TempDir(), "dev.db"), OrderWindow: 10 * time.Minute, RateLimitScale: 1,
		Clock: clock, Logger: slog.New(slog.DiscardHandler), DevSecrets: true}
	b := &backend{cfg: cfg, accounts: accounts, clock: clock,
		newServer: func(ctx context.Context, cfg resellerd.Config) (*resellerd.Server, error) {
			if fail.Load() {
				return nil, errors.New("a start that fails")
			}
			return resellerd.New(ctx, cfg)
		}}
	if err := b.open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.close)
	return b
}

// balanceOf is the first account's balance as the API of b answers it, or the status it answered.
func balanceOf(t *testing.T, b *backend) (float64, int) {
	t.Helper()
	req := httptest.NewRequest("GET", "/api/v1/account/balance", nil)
	req.Header.Set("X-API-Token", b.accounts[0].APIKey)
	rec := httptest.NewRecorder()
	b.ServeHTTP(rec, req)
	var env struct {
		Data struct {
			Balance float64 `json:"balance"`
		} `json:"data"`
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &env)
	return env.Data.Balance, rec.Code
}

// topUp credits 5 USD to the first account, so the balance tells the old service from a fresh one.
func topUp(t *testing.T, b *backend) {
	t.Helper()
	b.mu.RLock()
	defer b.mu.RUnlock()
	if err := b.srv.TopUp(context.Background(), 1, 5_000_000, ""); err != nil {
		t.Fatal(err)
	}
}

// TestFailedResetKeepsTheService: a reset whose new backend fails to start answers an error
// and leaves the old service serving, its data as it was.
func TestFailedResetKeepsTheService(t *testing.T) {
	t.Parallel()
	var fail atomic.Bool
	b := testDevBackend(t, &fail)
	topUp(t, b)
	fail.Store(true)
	if err := b.replace(context.Background(), "reset", func(ctx context.Context) (*resellerd.Server, error) {
		fail.Store(false) // only the new backend fails: the old one starts again
		return nil, errors.New("a start that fails")
	}); err == nil {
		t.Fatal("the reset answered no error")
	}
	if got, status := balanceOf(t, b); status != 200 || got != 1005 {
		t.Fatalf("after a failed reset the API answers %d, balance %v; want 200 and the old 1005", status, got)
	}
	fail.Store(true)
	if err := b.reset(context.Background()); err == nil {
		t.Fatal("reset with every start failing answered no error")
	}
	if _, status := balanceOf(t, b); status != http.StatusServiceUnavailable {
		t.Fatalf("with no backend the API answers %d, want 503", status)
	}
	fail.Store(false)
	if err := b.reset(context.Background()); err != nil {
		t.Fatalf("a reset once starts work again: %v", err)
	}
	if got, status := balanceOf(t, b); status != 200 || got != 1000 {
		t.Fatalf("after the reset the API answers %d, balance %v; want 200 and the seed's 1000", status, got)
	}
}

// TestFailedRestoreKeepsTheService: a restore whose backend fails to start answers an error
// and leaves the service as it was before it, serving; once starts work, the same checkpoint
// restores.
func TestFailedRestoreKeepsTheService(t *testing.T) {
	t.Parallel()
	var fail atomic.Bool
	b := testDevBackend(t, &fail)
	checkpoint := filepath.Join(t.TempDir(), "cp.db")
	if _, err := b.save(context.Background(), checkpoint); err != nil {
		t.Fatal(err)
	}
	topUp(t, b)
	calls := 0
	b.newServer = func(ctx context.Context, cfg resellerd.Config) (*resellerd.Server, error) {
		if calls++; calls == 1 {
			return nil, errors.New("a start that fails")
		}
		return resellerd.New(ctx, cfg)
	}
	if err := b.restore(context.Background(), checkpoint); err == nil {
		t.Fatal("the restore answered no error")
	}
	if got, status := balanceOf(t, b); status != 200 || got != 1005 {
		t.Fatalf("after a failed restore the API answers %d, balance %v; want 200 and the 1005 of before", status, got)
	}
	if err := b.restore(context.Background(), checkpoint); err != nil {
		t.Fatal(err)
	}
	if got, status := balanceOf(t, b); status != 200 || got != 1000 {
		t.Fatalf("after the restore the API answers %d, balance %v; want 200 and the checkpoint's 1000", status, got)
	}
}

// TestResetWhoseStopFailsTouchesNothing: a reset whose old backend does not close
// cleanly (under --machines sandbox, a machine whose processes outlived their kill) answers an
// error and moves, copies and removes nothing, with dev down until a reset succeeds; it never
// answers as done with part of the old service still running.
func TestResetWhoseStopFailsTouchesNothing(t *testing.T) {
	t.Parallel()
	var fail atomic.Bool
	b := testDevBackend(t, &fail)
	topUp(t, b)
	live, _ := SQLitePath(b.cfg.DB)
	b.closeServer = func(srv *resellerd.Server) error {
		return errors.Join(srv.Close(), errors.New("machine vm-1: PID 42 still alive after SIGKILL"))
	}
	err := b.reset(context.Background())
	if err == nil || !strings.Contains(err.Error(), "PID 42 still alive") {
		t.Fatalf("reset with a close that fails answered %v; want the close's error", err)
	}
	if _, status := balanceOf(t, b); status != http.StatusServiceUnavailable {
		t.Fatalf("after the failed close the API answers %d, want 503", status)
	}
	if _, err := os.Stat(live + ".before-reset"); !os.IsNotExist(err) {
		t.Fatalf("the database was moved aside (%v); want it left where it was", err)
	}
	if kind, err := devDBKind(live); err != nil || kind != dbDev {
		t.Fatalf("the database after the failed close: %v, %v; want dev's, still there", kind, err)
	}
	b.closeServer = nil
	if err := b.reset(context.Background()); err != nil {
		t.Fatalf("a reset once closes work again: %v", err)
	}
	if got, status := balanceOf(t, b); status != 200 || got != 1000 {
		t.Fatalf("after the reset the API answers %d, balance %v; want 200 and the seed's 1000", status, got)
	}
}
