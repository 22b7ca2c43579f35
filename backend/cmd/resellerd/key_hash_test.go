package main

import (
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// accountStatus is the status GET /account answers key on the API at base.
func accountStatus(t *testing.T, base, key string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/account", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Token", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// createAccount runs `account create` on db with the extra flags and returns its key, or the
// exit code and stderr of a refusal.
func createAccount(t *testing.T, db string, extra ...string) (string, int, string) {
	t.Helper()
	code, out, errOut := cli(t, noEnv, append([]string{"account", "create", "--db", db}, extra...)...)
	var acct struct {
		APIKey string `json:"api_key"`
	}
	if code == exitOK {
		if err := json.Unmarshal([]byte(out), &acct); err != nil {
			t.Fatal(err)
		}
	}
	return acct.APIKey, code, errOut
}

// TestAPIKeyHashesKeyed: a key created before the database had a key file keeps working once
// serve starts with one (its hash is keyed at start, no API key needed); `account create` and
// `rotate-key` then need the key file, and refuse without it, naming --secrets-key-file; the
// plain SHA-256 of a key chosen by whoever writes the database matches nothing, before and
// after a restart; keys keep working after `secrets rotate` moves the secrets to a new key; and
// a valid key's hash (with its tag) copied into another account's row acts as nobody.
func TestAPIKeyHashesKeyed(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "reseller.db")
	before := newAccountKey(t, db) // a plain digest: the database has no key yet
	keyA, keysBA, keyB := writeKeyFile(t, "a", 5), writeKeyFile(t, "ba", 6, 5), writeKeyFile(t, "b", 6)

	base, stop := serveWith(t, db, "--secrets-key-file", keyA)
	if s := accountStatus(t, base, before); s != 200 {
		t.Fatalf("a key of before the key file: %d, want 200", s)
	}
	if _, code, errOut := createAccount(t, db); code == exitOK || !strings.Contains(errOut, "--secrets-key-file") {
		t.Fatalf("account create without the key file: exit %d, %s; want a refusal naming --secrets-key-file", code, errOut)
	}
	created, code, errOut := createAccount(t, db, "--secrets-key-file", keyA)
	if code != exitOK {
		t.Fatalf("account create with the key file: exit %d, %s", code, errOut)
	}
	if s := accountStatus(t, base, created); s != 200 {
		t.Fatalf("a key created with the key file: %d, want 200", s)
	}

	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	chosen := strings.Repeat("c", 64)
	digest := sha256.Sum256([]byte(chosen))
	if _, err := conn.Exec(`UPDATE accounts SET key_hash = ? WHERE id = 1`, digest[:]); err != nil {
		t.Fatal(err)
	}
	if s := accountStatus(t, base, chosen); s != http.StatusUnauthorized {
		t.Fatalf("a key whose plain SHA-256 was written into the database: %d, want 401", s)
	}
	stop()

	code, _, errOut = cli(t, noEnv, "secrets", "rotate", "--db", db, "--secrets-key-file", keysBA)
	if code != exitOK {
		t.Fatalf("secrets rotate: exit %d, %s", code, errOut)
	}
	base, stop = serveWith(t, db, "--secrets-key-file", keyB) // the old key is gone
	defer stop()
	if s := accountStatus(t, base, chosen); s != http.StatusUnauthorized {
		t.Fatalf("the written SHA-256 after a restart: %d, want 401", s)
	}
	if s := accountStatus(t, base, created); s != 200 {
		t.Fatalf("a key after the secrets were rotated to a new key: %d, want 200", s)
	}
	if code, _, errOut := cli(t, noEnv, "account", "rotate-key", "--db", db, "--account", "2"); code == exitOK ||
		!strings.Contains(errOut, "--secrets-key-file") {
		t.Fatalf("rotate-key without the key file: exit %d, %s", code, errOut)
	}
	code, out, errOut := cli(t, noEnv, "account", "rotate-key", "--db", db, "--account", "2", "--secrets-key-file", keyB)
	if code != exitOK {
		t.Fatalf("rotate-key with the key file: exit %d, %s", code, errOut)
	}
	if s := accountStatus(t, base, strings.TrimSpace(out)); s != 200 {
		t.Fatalf("the rotated key: %d, want 200", s)
	}
	if s := accountStatus(t, base, created); s != http.StatusUnauthorized {
		t.Fatalf("the key rotated away: %d, want 401", s)
	}

	// Account 2's holder, with write access to the database, moves their key's hash and tag to
	// account 1: their key must not open account 1.
	rotated := strings.TrimSpace(out)
	var hash, tag []byte
	if err := conn.QueryRow(`SELECT key_hash, key_tag FROM accounts WHERE id = 2`).Scan(&hash, &tag); err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE accounts SET key_hash = x'01' WHERE id = 2`, nil},
		{`UPDATE accounts SET key_hash = ?, key_tag = ? WHERE id = 1`, []any{hash, tag}},
	} {
		if _, err := conn.Exec(q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	if s := accountStatus(t, base, rotated); s != http.StatusUnauthorized {
		t.Fatalf("a key whose hash was moved to another account: %d, want 401", s)
	}
}
