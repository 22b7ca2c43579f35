package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/devserver"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
)

// TestDevStateAcrossRestart: `dev --state FILE` writes the service to FILE on SIGTERM (marked as
// a dev database, its checkpoints' directory removed with the rest of TMPDIR), and a second dev
// on FILE starts from it rather than from --seed: the same key printed and working, the server
// there and online, the clock's offset kept.
func TestDevStateAcrossRestart(t *testing.T) {
	t.Parallel()
	bin := buildResellerd(t)
	dir := t.TempDir()
	state := filepath.Join(dir, "kept", "reseller.state") // its directory is made at start
	fast := []string{"--deploy-delay", "0s", "--credentials-delay", "0s"}
	p := startDev(t, bin, append([]string{"--state", state}, fast...)...)
	d := &devAPI{base: strings.TrimSuffix(p.env["RESELLER_ENDPOINT"], "/api/v1"), key: p.env["RESELLER_API_KEY"]}
	_, id := d.deployed(t)
	d.call(t, "POST", "/_dev/clock", "", `{"advance": "25h"}`).want(t, 200, "")
	d.call(t, "POST", "/_dev/checkpoints", "", `{"name": "kept-in-tmp"}`).want(t, 200, "")
	p.terminate(t)

	if id, err := sqlstore.SQLiteApplicationID(state); err != nil || id != devserver.ApplicationID {
		t.Fatalf("state file application_id %#x (%v), want the dev marker %#x", id, err, devserver.ApplicationID)
	}
	if fi, err := os.Stat(state); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("state file mode %v (%v), want 0600: it holds the keys", fi.Mode(), err)
	}
	if left, _ := os.ReadDir(p.tmp); len(left) != 0 {
		t.Fatalf("dev left %d entries in TMPDIR (its database and checkpoints), first %q", len(left), left[0].Name())
	}
	if names := dirNames(t, filepath.Dir(state)); !slices.Equal(names, []string{"reseller.state"}) {
		t.Fatalf("beside the state file: %v, want it alone (no temporary file)", names)
	}

	seed := filepath.Join(dir, "seed.yaml")
	writeFile(t, seed, "accounts:\n  - api_key: seed-key-not-printed-0123456789abcdef0123\n    balance: 5\n")
	p2 := startDev(t, bin, append([]string{"--state", state, "--seed", seed}, fast...)...)
	if p2.env["RESELLER_API_KEY"] != d.key {
		t.Fatalf("second run printed key %q, want the first run's", p2.env["RESELLER_API_KEY"])
	}
	d2 := &devAPI{base: strings.TrimSuffix(p2.env["RESELLER_ENDPOINT"], "/api/v1"), key: d.key}
	if s := d2.instanceStatus(t, d.key, id); s != "online" {
		t.Fatalf("after the restart the instance is %q, want online", s)
	}
	// clockNow advances the clock 1 s and answers its time in whole seconds, so what it reads is
	// more than the service's time at the call: compare with real time taken before the call, not
	// after it (the truncation would otherwise fail a call that ends late in its second).
	before := time.Now()
	if now := d2.clockNow(t); now.Before(before.Add(25 * time.Hour)) {
		t.Fatalf("after the restart the service clock reads %s, want 25 h ahead of real time (%s at the call)", now, before.UTC())
	}
	p2.terminate(t)
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestDevStateFlag: --state is read from RESELLER_STATE too, and refused beside --db.
func TestDevStateFlag(t *testing.T) {
	t.Parallel()
	o, err := parseDev(nil, func(k string) (string, bool) { return "s.state", k == "RESELLER_STATE" })
	if err != nil || o.State != "s.state" {
		t.Fatalf("RESELLER_STATE: %+v, %v", o.State, err)
	}
	_, err = parseDev([]string{"--state", "s.state", "--db", "d.db"}, noEnv)
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "--state") || !strings.Contains(err.Error(), "--db") {
		t.Fatalf("--state with --db: %v, want a usage error naming both", err)
	}
}

// TestDevStateRefusesOtherFiles: `dev --state` on a file dev did not write (serve's database,
// a text file) exits with the usage error naming --state and leaves the file as it was; a dev
// database that is no state file (no keys to print) is refused too.
func TestDevStateRefusesOtherFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	serveDB := filepath.Join(dir, "serve", "reseller.db")
	if code, _, errOut := cli(t, noEnv, "account", "create", "--db", serveDB); code != exitOK {
		t.Fatalf("account create: %s", errOut)
	}
	notes := filepath.Join(dir, "notes", "notes.txt")
	if err := os.MkdirAll(filepath.Dir(notes), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, notes, "someone's notes\n")
	devDB := filepath.Join(dir, "devdb", "dev.db")
	if err := devserver.CreateDevDB(t.Context(), devDB); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, path, why string }{
		{"serve's database", serveDB, "not a state file resellerd dev wrote"},
		{"a file that is no database", notes, "not a state file resellerd dev wrote"},
		{"a dev database without state", devDB, "no state file"},
	} {
		past := time.Now().Add(-time.Hour).Truncate(time.Second)
		if err := os.Chtimes(tt.path, past, past); err != nil {
			t.Fatal(err)
		}
		before := readFileState(t, tt.path)
		ctx, cancel := context.WithTimeout(t.Context(), eventWait)
		var stdout, stderr bytes.Buffer
		code := run(ctx, []string{"dev", "--listen", "127.0.0.1:0", "--state", tt.path}, &stdout, &stderr, noEnv)
		cancel()
		if code != exitUsage || !strings.Contains(stderr.String(), "--state") || !strings.Contains(stderr.String(), tt.why) || stdout.Len() != 0 {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q; want %d naming --state and %q", tt.name, code, stdout.String(), stderr.String(), exitUsage, tt.why)
		}
		after := readFileState(t, tt.path)
		if !bytes.Equal(before.content, after.content) || !before.modTime.Equal(after.modTime) || !slices.Equal(before.dir, after.dir) {
			t.Fatalf("%s: the refused file changed: %v -> %v", tt.name, before.dir, after.dir)
		}
	}
}
