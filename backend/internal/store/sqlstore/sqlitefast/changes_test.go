package sqlitefast

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// watchers are the two ways a cache watches its file: noShm false (the mapped -shm file) and
// true (PRAGMA data_version).
var watchers = []struct {
	name  string
	noShm bool
}{
	{"shm", false},
	{"data_version", true},
}

// openWatched opens the pools of a new SQLite file and the named watcher on it, closed when
// the test ends; it skips the test where the -shm file cannot be mapped (not on Linux, where
// it must be).
func openWatched(t *testing.T, name string, noShm bool) (changeWatcher, *sql.DB, string) {
	t.Helper()
	writer, reads, path := openTestPools(t)
	w := newChangeWatcher(context.Background(), reads, path, noShm)
	t.Cleanup(w.Close)
	_, fallback := w.(*dataVersionWatcher)
	if name == "shm" && fallback {
		if runtime.GOOS == "linux" {
			t.Fatal("the cache watches data_version on Linux, want the mapped -shm file")
		}
		t.Skip("no -shm mapping on " + runtime.GOOS)
	}
	if name != "shm" && !fallback {
		t.Fatalf("the cache watches with %T, want *dataVersionWatcher", w)
	}
	return w, writer, path
}

// TestChangeWatcherSeesEveryCommit shows, for both watchers, that reads leave the version as it
// is, and that a commit through the writer pool, through another pool on the same file and
// from another process each change it.
func TestChangeWatcherSeesEveryCommit(t *testing.T) {
	t.Parallel()
	for _, w := range watchers {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			watch, writer, path := openWatched(t, w.name, w.noShm)

			before := currentVersion(t, watch)
			for range 50 {
				countItems(t, writer)
			}
			if v := currentVersion(t, watch); v != before {
				t.Fatalf("reads changed the version: %v, then %v", before, v)
			}

			rename := func() {
				if _, err := writer.ExecContext(ctx, updateByOther); err != nil {
					t.Fatal(err)
				}
			}
			commits := []struct {
				by    string
				write func()
			}{
				{"the writer pool", rename},
				{"another pool", func() { writeFromPool(t, path) }},
				{"another process", func() { writeFromProcess(t, path) }},
				{"the writer pool after the others closed", rename},
			}
			for _, c := range commits {
				before := currentVersion(t, watch)
				c.write()
				if v := currentVersion(t, watch); v == before {
					t.Fatalf("a commit by %s left the version at %v", c.by, v)
				}
			}
		})
	}
}

func currentVersion(t *testing.T, w changeWatcher) dbVersion {
	t.Helper()
	v, ok := w.Version(context.Background())
	if !ok {
		t.Fatal("the watcher cannot tell the version")
	}
	return v
}

// writeFromPool commits through a pool of its own on the file at path, as another process would.
func writeFromPool(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", DSN(path, testBusy))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(context.Background(), updateByOther); err != nil {
		t.Fatal(err)
	}
}

// updateByOther is the write of writeFromPool and of the writer process.
const updateByOther = `UPDATE items SET name = name || '+' WHERE id = 1`

// writeFromProcess runs this test binary again as TestWriterProcess, which commits to the
// file at path and exits.
func writeFromProcess(t *testing.T, path string) {
	t.Helper()
	runHelperProcess(t, "TestWriterProcess", "SQLSTORE_WRITER_DB="+path)
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
	db, err := sql.Open("sqlite", DSN(path, testBusy))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.ExecContext(context.Background(), updateByOther)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("updated %d rows (%v), want 1", n, err)
	}
}

// TestWatcherAfterCloseReadsNothing: both watchers, once closed (twice: a backend closed by a
// reset and again at exit), answer that they cannot tell the version instead of reading: the
// mapped watcher would otherwise read memory Close unmapped and fault the whole process
// (SIGSEGV in word), as a request reaching a closed backend of `resellerd dev` did.
func TestWatcherAfterCloseReadsNothing(t *testing.T) {
	t.Parallel()
	for _, w := range watchers {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			watch, _, _ := openWatched(t, w.name, w.noShm)
			currentVersion(t, watch)
			watch.Close()
			watch.Close()
			if v, ok := watch.Version(context.Background()); ok {
				t.Fatalf("a closed watcher told version %v", v)
			}
		})
	}
}
