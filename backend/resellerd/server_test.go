package resellerd

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewRejectsUnusableDatabases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, db, want string
	}{
		{"empty", "", "no database"},
		// Port 1 refuses at once: a postgres URL is tried as PostgreSQL, never as a file name.
		{"postgres", "postgres://user@127.0.0.1:1/reseller?connect_timeout=5", "postgres: connect"},
		{"postgresql", "postgresql://user@127.0.0.1:1/reseller?connect_timeout=5", "postgres: connect"},
		{"bad postgres URL", "postgres://%zz", "postgres: parse URL"},
		{"directory", t.TempDir(), "sqlite"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(context.Background(), Config{DB: tt.db})
			if err == nil {
				_ = s.Close()
				t.Fatalf("New(%q): got nil error", tt.db)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New(%q) = %v, want an error mentioning %q", tt.db, err, tt.want)
			}
		})
	}
}

func TestReopenKeepsAccountsAndCloseTwice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "reopen.db")
	first, err := New(ctx, Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	created, err := first.CreateAccount(ctx, NewAccount{BalanceMicros: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}

	// A second backend on the same file (nil clock and logger take their defaults) sees the account.
	second, err := New(ctx, Config{DB: db, RateLimitScale: 1})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer second.Close()
	if err := second.TopUp(ctx, created.ID, 1, "crypto"); err != nil {
		t.Fatalf("top-up after reopen: %v", err)
	}
	acct, err := second.store.Account(ctx, created.ID)
	if err != nil || acct.Balance != 1_000_001 {
		t.Fatalf("account after reopen = %+v, %v; want balance 1000001", acct, err)
	}
	req := httptest.NewRequest(http.MethodGet, "/api/v1/account", nil)
	req.Header.Set("Authorization", "Bearer "+created.APIKey)
	rec := httptest.NewRecorder()
	second.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /account after reopen: %d, want 200", rec.Code)
	}
}
