package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/devserver"
	"github.com/reseller/terraform-provider-reseller/backend/internal/testbuf"
)

// fileState is what a refused command must leave as it was: the bytes and modification time of
// a file, and the names in its directory (no journal, WAL or shared-memory file created).
type fileState struct {
	content []byte
	modTime time.Time
	dir     []string
}

func readFileState(t *testing.T, path string) fileState {
	t.Helper()
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	s := fileState{content: content, modTime: fi.ModTime()}
	for _, e := range entries {
		s.dir = append(s.dir, e.Name())
	}
	return s
}

// TestDevRefusesADatabaseItDidNotCreate: `dev --db` on serve's database (or on any file that is
// not a dev database) exits with the usage error naming --db and saying why, and leaves the file
// exactly as it was: its bytes, its modification time and its directory.
func TestDevRefusesADatabaseItDidNotCreate(t *testing.T) {
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
	writeFile(t, notes, "not a database, but someone's file\n")
	for _, tt := range []struct{ name, path, db string }{
		{"serve's database", serveDB, serveDB},
		{"serve's database as sqlite:PATH", serveDB, "sqlite:" + serveDB},
		{"a file that is no database", notes, notes},
	} {
		// An hour back, so that any write, however coarse the file system's clock, shows.
		past := time.Now().Add(-time.Hour).Truncate(time.Second)
		if err := os.Chtimes(tt.path, past, past); err != nil {
			t.Fatal(err)
		}
		before := readFileState(t, tt.path)
		// Bounded: a dev that took the file would serve it until the context ends.
		ctx, cancel := context.WithTimeout(t.Context(), eventWait)
		var stdout, stderr bytes.Buffer
		code := run(ctx, []string{"dev", "--listen", "127.0.0.1:0", "--db", tt.db}, &stdout, &stderr, noEnv)
		cancel()
		out, errOut := stdout.String(), stderr.String()
		if code != exitUsage || !strings.Contains(errOut, "--db") || !strings.Contains(errOut, "not a database resellerd dev created") || out != "" {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q; want %d naming --db and why", tt.name, code, out, errOut, exitUsage)
		}
		after := readFileState(t, tt.path)
		if !slices.Equal(after.content, before.content) || !after.modTime.Equal(before.modTime) || !slices.Equal(after.dir, before.dir) {
			t.Fatalf("%s: the file changed: modified %v -> %v, %d -> %d bytes, directory %v -> %v", tt.name,
				before.modTime, after.modTime, len(before.content), len(after.content), before.dir, after.dir)
		}
	}
}

// TestDevDBOnANewPathThenAgain: `dev --db` on a path that does not exist (or an empty file)
// creates a database marked as dev's, and a later `dev --db` on it opens it, with what the first
// run wrote: the same account (one account in the file, no second 1,000 USD) and the same key
// printed.
func TestDevDBOnANewPathThenAgain(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, path string)
	}{
		{"a new path", func(*testing.T, string) {}},
		{"an empty file", func(t *testing.T, path string) { writeFile(t, path, "") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "dev.db")
			tt.setup(t, path)
			var firstKey string
			t.Run("first run", func(t *testing.T) {
				d := startDevInProcess(t, "--db", path, "--deploy-delay", "0s")
				d.deployed(t)
				firstKey = d.key
				if !devserver.IsDevDB(path) {
					t.Fatalf("the new database does not read as a dev database")
				}
			})
			t.Run("second run", func(t *testing.T) {
				d := startDevInProcess(t, "--db", path)
				var list []json.RawMessage
				d.call(t, "GET", "/api/v1/instances", firstKey, "").want(t, 200, "").into(t, &list)
				if len(list) != 1 || d.key != firstKey {
					t.Fatalf("second run: the first run's account has %d instances, want 1; key printed is the first run's: %v",
						len(list), d.key == firstKey)
				}
			})
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("the database's mode is %v (%v), want 0600: it holds the keys", fi.Mode(), err)
			}
			if n := countAccounts(t, path); n != 1 {
				t.Fatalf("%d accounts in the file after two runs, want the first run's only", n)
			}
		})
	}
}

// writeApplicationID overwrites the application_id in the header of the SQLite file at path.
func writeApplicationID(t *testing.T, path string, id uint32) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(binary.BigEndian.AppendUint32(nil, id), 68); err != nil {
		t.Fatal(err)
	}
}

// TestDevResetRefusesAnUnmarkedDatabase: when the file at --db is no longer marked as dev's (it
// was replaced while dev ran), POST /_dev/reset answers 403 forbidden in the envelope and
// deletes nothing; marked again, it resets.
func TestDevResetRefusesAnUnmarkedDatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "dev.db")
	d := startDevInProcess(t, "--db", path, "--deploy-delay", "0s")
	d.deployed(t)
	writeApplicationID(t, path, 0)
	a := d.call(t, "POST", "/_dev/reset", "", "").want(t, 403, "forbidden")
	if !strings.Contains(a.Error.Message, "not marked as a resellerd dev database") {
		t.Fatalf("message %q does not say why", a.Error.Message)
	}
	var list []json.RawMessage
	d.call(t, "GET", "/api/v1/instances", d.key, "").want(t, 200, "").into(t, &list)
	if len(list) != 1 {
		t.Fatalf("%d instances after the refused reset, want the 1 there was", len(list))
	}
	writeApplicationID(t, path, devserver.ApplicationID)
	d.call(t, "POST", "/_dev/reset", "", "").want(t, 200, "")
	d.call(t, "GET", "/api/v1/instances", d.key, "").want(t, 200, "").into(t, &list)
	if len(list) != 0 {
		t.Fatalf("%d instances after the reset, want none", len(list))
	}
}

// TestServeWarnsOnADevDatabase: serve on a database dev created logs a warning saying so; on
// its own database it does not.
func TestServeWarnsOnADevDatabase(t *testing.T) {
	t.Parallel()
	devDB := filepath.Join(t.TempDir(), "dev.db")
	t.Run("dev", func(t *testing.T) { startDevInProcess(t, "--db", devDB) })
	for _, tt := range []struct {
		name string
		db   string
		warn bool
	}{
		{"dev's database", devDB, true},
		{"serve's own database", filepath.Join(t.TempDir(), "serve.db"), false},
	} {
		o, err := parseServe([]string{"--listen", "127.0.0.1:0", "--db", tt.db}, noEnv)
		if err != nil {
			t.Fatal(err)
		}
		var log testbuf.Buffer
		serveLogging(t, o, &log)
		warned := strings.Contains(log.String(), "level=WARN msg=\"this database is a resellerd dev database")
		if warned != tt.warn || (warned && !strings.Contains(log.String(), "db="+tt.db)) {
			t.Fatalf("%s: warned %v, want %v; log:\n%s", tt.name, warned, tt.warn, log.String())
		}
	}
}

// countAccounts counts the accounts in the SQLite database at path, read-only.
func countAccounts(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM accounts`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
