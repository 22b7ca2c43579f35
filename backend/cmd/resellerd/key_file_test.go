package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/testbuf"
)

// serveLogged starts serve on db with the extra flags, stops it at once if it started, and
// returns what it logged and the error that kept it from starting.
func serveLogged(t *testing.T, db string, extra ...string) (string, error) {
	t.Helper()
	opts, err := parseServe(append([]string{"--listen", "127.0.0.1:0", "--db", db, "--rate-limit-scale", "0"}, extra...), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	var logs testbuf.Buffer
	logger, err := newLogger(&logs, opts.Log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err = serve(ctx, opts, logger, func([]net.Addr) { cancel() })
	return logs.String(), err
}

// TestServeRefusesWithoutPlainTextWarning: serve without a key on a database whose secrets are
// encrypted refuses to start, and logs no warning that secrets are stored as plain text first.
func TestServeRefusesWithoutPlainTextWarning(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "r.db")
	if logs, err := serveLogged(t, db, "--secrets-key-file", writeKeyFile(t, "keys", 3)); err != nil {
		t.Fatalf("serve with a key: %v\n%s", err, logs)
	}
	logs, err := serveLogged(t, db)
	if err == nil || !strings.Contains(err.Error(), "--secrets-key-file") {
		t.Fatalf("serve without the key on an encrypted database: %v; want a refusal naming --secrets-key-file", err)
	}
	if strings.Contains(logs, "plain text") {
		t.Fatalf("serve warned of plain-text secrets before refusing:\n%s", logs)
	}
}

// TestKeyFileModeChecked: a key file its group or others may read is warned about, naming the
// file and its mode, and serve starts; with --strict-key-file it is refused, naming both; a
// 0600 file is neither.
func TestKeyFileModeChecked(t *testing.T) {
	t.Parallel()
	keys := writeKeyFile(t, "keys", 4)
	if err := os.Chmod(keys, 0o644); err != nil {
		t.Fatal(err)
	}
	logs, err := serveLogged(t, filepath.Join(t.TempDir(), "r.db"), "--secrets-key-file", keys)
	if err != nil || !strings.Contains(logs, keys) || !strings.Contains(logs, "0644") {
		t.Fatalf("0644 key file: %v; want a start and a warning naming %s and 0644:\n%s", err, keys, logs)
	}
	_, err = serveLogged(t, filepath.Join(t.TempDir(), "r.db"), "--secrets-key-file", keys, "--strict-key-file")
	if err == nil || !strings.Contains(err.Error(), keys) || !strings.Contains(err.Error(), "0644") {
		t.Fatalf("0644 key file with --strict-key-file: %v; want a refusal naming %s and 0644", err, keys)
	}
	if err := os.Chmod(keys, 0o600); err != nil {
		t.Fatal(err)
	}
	logs, err = serveLogged(t, filepath.Join(t.TempDir(), "r.db"), "--secrets-key-file", keys, "--strict-key-file")
	if err != nil || strings.Contains(logs, keys) {
		t.Fatalf("0600 key file: %v, logs:\n%s; want a start without a word about it", err, logs)
	}
}
