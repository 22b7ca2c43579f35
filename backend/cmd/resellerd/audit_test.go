package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdminCommandsAreAudited: account create, topup and rotate-key, secrets rotate and a lock
// on a database whose secrets are encrypted each write their entry, by the operator the flag
// (over RESELLER_OPERATOR) names; no entry holds the API key, the root password or the key
// file's content. A lock refused for want of the key file writes none.
func TestAdminCommandsAreAudited(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "admin.db")
	o := &operated{db: db}
	code, out, errOut := cli(t, opEnv, "account", "create", "--db", db, "--balance", "100", "--operator", "alice")
	if code != exitOK {
		t.Fatalf("account create: exit %d: %s", code, errOut)
	}
	firstKey := out
	o.run(t, "account", "topup", "--account", "1", "--amount", "2.5", "--payment-type", "voucher")
	apiKey := strings.TrimSpace(o.run(t, "account", "rotate-key", "--account", "1"))
	keyFile := writeKeyFile(t, "key", 7)
	o.run(t, "secrets", "rotate", "--secrets-key-file", keyFile)

	base, stop := serveWith(t, db, "--secrets-key-file", keyFile)
	instance, password := deployedServer(t, base, apiKey)
	stop()
	lock := []string{"instance", "lock", "--instance", fmt.Sprint(instance), "--reason", "debt"}
	if code, _, errOut := cli(t, opEnv, append(lock, "--db", db)...); code != exitError || !strings.Contains(errOut, "--secrets-key-file") {
		t.Fatalf("lock without the key file on encrypted secrets: exit %d, %s; want exit 1 naming --secrets-key-file", code, errOut)
	}
	o.run(t, append(lock, "--secrets-key-file", keyFile)...)

	entries := o.audit(t)
	var got []string
	for _, e := range entries {
		got = append(got, e.Operator+" "+e.Command)
	}
	want := []string{"alice account create", "carol account topup", "carol account rotate-key", "carol secrets rotate", "carol instance lock"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Fatalf("audit: %v, want %v", got, want)
	}
	topup, rotate, secrets := entries[1], entries[2], entries[3]
	if topup.Before["balance"] != float64(100) || topup.After["balance"] != 102.5 || topup.After["amount"] != 2.5 ||
		topup.After["payment_type"] != "voucher" {
		t.Errorf("topup entry: %+v", topup)
	}
	if rotate.Before["api_key_hint"] == rotate.After["api_key_hint"] || rotate.After["api_key_hint"] != apiKey[:8] {
		t.Errorf("rotate-key entry: %+v; want the hints of the old and the new key", rotate)
	}
	if secrets.After["key_id"] != keyIDOf(7) || secrets.After["resealed"] == nil {
		t.Errorf("secrets rotate entry: %+v; want the key's id and the count", secrets)
	}
	keyText, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	trail := o.run(t, "audit", "--json") + o.run(t, "audit")
	for name, secret := range map[string]string{"API key": apiKey, "first API key": firstKey[len(`{"account_id": 1, "api_key": "`):][:64],
		"root password": password, "key file": strings.Fields(string(keyText))[len(strings.Fields(string(keyText)))-1]} {
		if strings.Contains(trail, secret) {
			t.Errorf("the audit trail shows the %s", name)
		}
	}
}
