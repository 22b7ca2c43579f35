package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestAmountLimits checks that amounts that would overflow the int64 micro-USD of the store are
// refused as validation errors naming the field, never as server errors: a top-up or an initial
// balance above 1,000,000,000 USD, and a top-up that would take the balance above it.
func TestAmountLimits(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "limits.db")
	if code, _, errOut := cli(t, noEnv, "account", "create", "--db", db, "--balance", "999999999"); code != exitOK {
		t.Fatalf("create: exit %d, stderr %s", code, errOut)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"topup above the maximum", []string{"topup", "--amount", "9000000000000"}, exitError, "validation_error: amount: must be at most 1000000000 USD"},
		{"topup above the maximum again", []string{"topup", "--amount", "9000000000000"}, exitError, "validation_error: amount: must be at most 1000000000 USD"},
		{"topup that would pass the largest balance", []string{"topup", "--amount", "1.000001"}, exitError, "validation_error: amount: would take the balance above 1000000000 USD"},
		{"topup to exactly the largest balance", []string{"topup", "--amount", "1"}, exitOK, ""},
		{"topup beyond int64", []string{"topup", "--amount", "9300000000000"}, exitUsage, "amount"},
		{"create above the maximum", []string{"create", "--balance", "1000000000.000001"}, exitError, "validation_error: balance: must be at most 1000000000 USD"},
		{"create at the maximum", []string{"create", "--balance", "1000000000"}, exitOK, ""},
	}
	for _, tt := range tests { // in order: each top-up sees the balance the ones before left
		args := append([]string{"account", tt.args[0], "--db", db}, tt.args[1:]...)
		if tt.args[0] == "topup" {
			args = append(args, "--account", "1")
		}
		code, _, errOut := cli(t, noEnv, args...)
		if code != tt.wantCode || !strings.Contains(errOut, tt.wantErr) || strings.Contains(errOut, "server_error") {
			t.Fatalf("%s: exit %d, stderr %q; want exit %d mentioning %q", tt.name, code, errOut, tt.wantCode, tt.wantErr)
		}
	}
	h := serveInBackground(t, db)
	key := rotatedKey(t, db, "1")
	if got := getJSON(t, h+"/api/v1/account/balance", key)["balance"]; got != 1e9 {
		t.Fatalf("balance = %v, want 1000000000 (only the top-up of 1 USD credited)", got)
	}
}

// rotatedKey gives account id a new key with the CLI and returns it.
func rotatedKey(t *testing.T, db, id string) string {
	t.Helper()
	code, out, errOut := cli(t, noEnv, "account", "rotate-key", "--db", db, "--account", id)
	if code != exitOK {
		t.Fatalf("rotate-key: exit %d, stderr %s", code, errOut)
	}
	return strings.TrimSpace(out)
}
