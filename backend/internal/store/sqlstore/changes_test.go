package sqlstore

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// withoutShm has a store watch PRAGMA data_version, the fallback of a store that cannot map
// the -shm file.
func withoutShm(o *options) { o.noShm = true }

// watchers are the two ways a SQLite store watches its file, as options of OpenSQLite.
var watchers = []struct {
	name string
	opts []Option
}{
	{"shm", nil},
	{"data_version", []Option{withoutShm}},
}

// openWatched opens a SQLite store whose cache uses the named watcher; it skips the test where
// the -shm file cannot be mapped (not on Linux, where it must be).
func openWatched(t *testing.T, name, path string, opts ...Option) *Store {
	t.Helper()
	s, err := OpenSQLite(context.Background(), path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	_, fallback := s.cache.watch.(*dataVersionWatcher)
	if name == "shm" && fallback {
		if runtime.GOOS == "linux" {
			t.Fatal("the store watches data_version on Linux, want the mapped -shm file")
		}
		t.Skip("no -shm mapping on " + runtime.GOOS)
	}
	if name != "shm" && !fallback {
		t.Fatalf("the store watches with %T, want *dataVersionWatcher", s.cache.watch)
	}
	return s
}

// TestChangeWatcherSeesEveryCommit shows, for both watchers, that reads leave the version as it
// is, and that a commit through the store, through another pool on the same file and from
// another process each change it.
func TestChangeWatcherSeesEveryCommit(t *testing.T) {
	t.Parallel()
	for _, w := range watchers {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "watch.db")
			s := openWatched(t, w.name, path, w.opts...)
			a := newTestAccount(t, s, "watch", 1)

			before := currentVersion(t, s)
			for range 50 {
				if _, err := s.Account(ctx, a.ID); err != nil {
					t.Fatal(err)
				}
				if _, err := s.queries.AccountByKeyHash(ctx, a.KeyHash); err != nil {
					t.Fatal(err)
				}
			}
			if v := currentVersion(t, s); v != before {
				t.Fatalf("reads changed the version: %v, then %v", before, v)
			}

			commits := []struct {
				by    string
				write func()
			}{
				{"the store", func() { setBlocked(t, s, a.ID, true) }},
				{"another pool", func() { writeFromPool(t, path, a.ID) }},
				{"another process", func() { writeFromProcess(t, path, a.ID) }},
				{"the store after the others closed", func() { setBlocked(t, s, a.ID, false) }},
			}
			for _, c := range commits {
				before := currentVersion(t, s)
				c.write()
				if v := currentVersion(t, s); v == before {
					t.Fatalf("a commit by %s left the version at %v", c.by, v)
				}
			}
		})
	}
}

func currentVersion(t *testing.T, s *Store) dbVersion {
	t.Helper()
	v, ok := s.cache.watch.version(context.Background())
	if !ok {
		t.Fatal("the watcher cannot tell the version")
	}
	return v
}

func setBlocked(t *testing.T, s *Store, accountID int64, blocked bool) {
	t.Helper()
	if err := s.SetAccountFlag(context.Background(), accountID, store.FlagBlocked, blocked); err != nil {
		t.Fatal(err)
	}
}

// writeFromPool commits through a pool of its own on the file at path, as another process would.
func writeFromPool(t *testing.T, path string, accountID int64) {
	t.Helper()
	db, err := sql.Open("sqlite", sqliteDSN(path, busyTimeout))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(context.Background(), updateByOther, accountID); err != nil {
		t.Fatal(err)
	}
}

// updateByOther is the write of writeFromPool and of the writer process.
const updateByOther = `UPDATE accounts SET kyc_verified = 1 - kyc_verified WHERE id = ?`

// writeFromProcess runs this test binary again as TestWriterProcess, which commits to the
// file at path and exits.
func writeFromProcess(t *testing.T, path string, accountID int64) {
	t.Helper()
	runHelperProcess(t, "TestWriterProcess",
		"SQLSTORE_WRITER_DB="+path, "SQLSTORE_WRITER_ACCOUNT="+strconv.FormatInt(accountID, 10))
}

// runHelperProcess runs the test named test in a new process of this test binary, with env
// added to the environment, and fails t if it fails.
func runHelperProcess(t *testing.T, test string, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s process: %v\n%s", test, err, out)
	}
}

// TestWriterProcess is the other process of writeFromProcess; run alone, it does nothing.
func TestWriterProcess(t *testing.T) {
	path := os.Getenv("SQLSTORE_WRITER_DB")
	if path == "" {
		t.Skip("the writer process of TestChangeWatcherSeesEveryCommit")
	}
	db, err := sql.Open("sqlite", sqliteDSN(path, busyTimeout))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.ExecContext(context.Background(), updateByOther, os.Getenv("SQLSTORE_WRITER_ACCOUNT"))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("updated %d rows (%v), want 1", n, err)
	}
}
