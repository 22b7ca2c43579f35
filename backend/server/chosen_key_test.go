package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestChosenAPIKey: an operator (a seed file, resellerd dev) may fix an account's key, of at
// least 32 visible characters; the API then takes exactly that key.
func TestChosenAPIKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	for _, bad := range []string{"too-short-0123456789", strings.Repeat("x", 31), strings.Repeat("x", 31) + " y"} {
		if _, err := e.srv.CreateAccount(ctx, NewAccount{APIKey: bad}); err == nil || !strings.Contains(err.Error(), "api_key") {
			t.Errorf("key %q: error %v, want one naming api_key", bad, err)
		}
	}
	key := "chosen-0123456789abcdef0123456789abcdef"
	a, err := e.srv.CreateAccount(ctx, NewAccount{APIKey: key})
	if err != nil || a.APIKey != key {
		t.Fatalf("CreateAccount = %+v, %v", a, err)
	}
	e.do(t, request{Path: "/account", Key: key}).wantStatus(t, http.StatusOK, "")
	if _, err := e.srv.CreateAccount(ctx, NewAccount{APIKey: key}); err == nil {
		t.Error("a second account took the same key")
	}
}
