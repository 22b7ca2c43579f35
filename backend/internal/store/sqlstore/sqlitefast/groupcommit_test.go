package sqlitefast

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// startCommitter starts a GroupCommitter on writer whose transactions are the bare prepared
// Querier, stopped when the test ends; commit, if not nil, is told about every commit.
func startCommitter(t *testing.T, writer *sql.DB, commit func(int)) *GroupCommitter[Querier] {
	t.Helper()
	g := NewGroupCommitter(writer, func(q Querier) Querier { return q }, commit)
	t.Cleanup(func() { _ = g.Close() })
	return g
}

// insertItem adds an item named name in the transaction q.
func insertItem(ctx context.Context, q Querier, name string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO items (name) VALUES (?)`, name)
	return err
}

// TestSQLiteGroupCommit queues 40 transactions behind one that holds the writer: they commit
// together, in fewer commits than transactions, every one answered only after it, and the one
// that fails after writing its row rolls back alone.
func TestSQLiteGroupCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	writer, reads, _ := openTestPools(t)
	var commits atomic.Int64
	g := startCommitter(t, writer, func(int) { commits.Add(1) })

	release := make(chan struct{})
	holding := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = g.WithTx(ctx, func(Querier) error {
			close(holding)
			<-release
			return nil
		})
	})
	<-holding
	const queued = 40
	failing := errors.New("refused after writing")
	errs := make([]error, queued)
	for i := range queued {
		wg.Go(func() {
			errs[i] = g.WithTx(ctx, func(tx Querier) error {
				if err := insertItem(ctx, tx, "queued"); err != nil {
					return err
				}
				if i == 7 {
					return failing
				}
				return nil
			})
		})
	}
	waitQueued(t, g, queued)
	close(release)
	wg.Wait()

	for i, err := range errs {
		switch {
		case i == 7 && !errors.Is(err, failing):
			t.Fatalf("the failing transaction answered %v, want its own error", err)
		case i != 7 && err != nil:
			t.Fatalf("transaction %d: %v", i, err)
		}
	}
	if n := commits.Load(); n >= queued+1 {
		t.Fatalf("%d transactions took %d commits, want fewer", queued+1, n)
	}
	if n := countItems(t, reads); n != 1+queued-1 {
		t.Fatalf("%d items stored, want %d: only the failing transaction's row rolled back", n, 1+queued-1)
	}
}

// eventWait bounds a test's wait for something to happen. It only keeps a broken test from
// hanging: a loaded CI host is many times slower than an idle one, and the tests assert no
// speed.
const eventWait = time.Minute

// waitQueued waits (at most eventWait) until n transactions are queued for the writer.
func waitQueued(t *testing.T, g *GroupCommitter[Querier], n int) {
	t.Helper()
	deadline := time.Now().Add(eventWait)
	for len(g.jobs) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d transactions queued, want %d", len(g.jobs), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestSQLiteGroupCommitPanic re-raises a transaction's panic in its caller and rolls back only
// that transaction.
func TestSQLiteGroupCommitPanic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	writer, reads, _ := openTestPools(t)
	g := startCommitter(t, writer, nil)
	func() {
		defer func() {
			if v := recover(); v != "boom" {
				t.Fatalf("recovered %v, want the transaction's panic", v)
			}
		}()
		_ = g.WithTx(ctx, func(tx Querier) error {
			if err := insertItem(ctx, tx, "panicking"); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	if n := countItems(t, reads); n != 1 {
		t.Fatalf("%d items after a panicking transaction; want its row rolled back", n)
	}
	if err := g.WithTx(ctx, func(Querier) error { return nil }); err != nil {
		t.Fatalf("the writer after a panic: %v", err)
	}
}

// TestSQLiteTransactionsReusePreparedStatements runs the same transaction twice: the first
// notes its statements, the writer prepares them between groups, and the second runs on them.
func TestSQLiteTransactionsReusePreparedStatements(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	writer, reads, _ := openTestPools(t)
	g := startCommitter(t, writer, nil)
	place := func() error {
		return g.WithTx(ctx, func(tx Querier) error { return insertItem(ctx, tx, "prepared") })
	}
	if err := place(); err != nil {
		t.Fatal(err)
	}
	waitPrepared(t, g.stmts)
	if err := place(); err != nil {
		t.Fatal(err)
	}
	if n := countItems(t, reads); n != 3 {
		t.Fatalf("%d items; want the two placed, the second through prepared statements, and the first", n)
	}
}

// waitPrepared waits (at most eventWait) until the writer has prepared what the last group noted.
func waitPrepared(t *testing.T, w *writerStmts) {
	t.Helper()
	deadline := time.Now().Add(eventWait)
	for {
		w.mu.Lock()
		prepared, wanted := len(w.stmts), len(w.wanted)
		w.mu.Unlock()
		if prepared > 0 && wanted == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d statements prepared, %d still wanted", prepared, wanted)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestSQLiteGroupJobRunsToItsEnd: a job whose caller goes away after it started still runs its
// statements (the group's transaction is not interrupted) and commits.
func TestSQLiteGroupJobRunsToItsEnd(t *testing.T) {
	t.Parallel()
	writer, reads, _ := openTestPools(t)
	g := startCommitter(t, writer, nil)
	ctx, cancel := context.WithCancel(context.Background())
	err := g.WithTx(ctx, func(tx Querier) error {
		cancel() // the client went away after the job started
		if err := insertItem(ctx, tx, "abandoned"); err != nil {
			return err
		}
		return insertItem(ctx, tx, "abandoned too")
	})
	if err != nil {
		t.Fatalf("a started job whose caller went away: %v; want it to run to its end", err)
	}
	if n := countItems(t, reads); n != 3 {
		t.Fatalf("%d items after the commit, want the job's two and the first", n)
	}
}
