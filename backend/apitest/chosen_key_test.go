package apitest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/seed"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// TestChosenAPIKey: an operator (a seed file, resellerd dev) may fix an account's key, of at
// least 32 visible characters; the API then takes exactly that key.
func TestChosenAPIKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	for _, bad := range []string{"too-short-0123456789", strings.Repeat("x", 31), strings.Repeat("x", 31) + " y"} {
		if _, err := e.srv.CreateAccount(ctx, resellerd.NewAccount{APIKey: bad}); err == nil || !strings.Contains(err.Error(), "api_key") {
			t.Errorf("key %q: error %v, want one naming api_key", bad, err)
		}
	}
	key := "chosen-0123456789abcdef0123456789abcdef"
	a, err := e.srv.CreateAccount(ctx, resellerd.NewAccount{APIKey: key})
	if err != nil || a.APIKey != key {
		t.Fatalf("CreateAccount = %+v, %v", a, err)
	}
	e.do(t, request{Path: "/account", Key: key}).WantStatus(t, http.StatusOK, "")
	if _, err := e.srv.CreateAccount(ctx, resellerd.NewAccount{APIKey: key}); err == nil {
		t.Error("a second account took the same key")
	}
}

// TestSeedRefusesARepeatedKeyBeforeWriting: a key given to two accounts of one seed fails the
// seed before its first account is written.
func TestSeedRefusesARepeatedKeyBeforeWriting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := resellerd.Config{DB: filepath.Join(t.TempDir(), "seed.db")}
	key := "twice-0123456789abcdef0123456789abcdef"
	err := resellerd.Seed(ctx, cfg, []seed.Account{{NewAccount: service.NewAccount{APIKey: key}}, {NewAccount: service.NewAccount{APIKey: key}}})
	var se *seed.Error
	if !errors.As(err, &se) || se.Account != 1 || !strings.Contains(err.Error(), "api_key") {
		t.Fatalf("resellerd.Seed = %v, want a seed.Error of account 1 naming api_key", err)
	}
	srv, err := resellerd.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	req := httptest.NewRequest(http.MethodGet, "/api/v1/account", nil)
	req.Header.Set("X-API-Token", key)
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("GET /account with the repeated key: %d, want 401: the first account was written before the repeated key was found", rec.Code)
	}
}
