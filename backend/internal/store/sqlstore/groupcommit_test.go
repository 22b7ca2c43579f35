package sqlstore

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// TestSQLiteGroupCommit queues 40 orders behind a transaction that holds the writer: they
// commit together, in fewer commits than transactions, every one answered only after it, and
// the one that fails after writing its order rolls back alone.
func TestSQLiteGroupCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var commits atomic.Int64
	s, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "group.db"),
		func(o *options) { o.commitHook = func(int) { commits.Add(1) } })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	a := newTestAccount(t, s, "group", 1_000)
	commits.Store(0)

	release := make(chan struct{})
	holding := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = s.WithTx(ctx, func(store.Tx) error {
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
			errs[i] = s.WithTx(ctx, func(tx store.Tx) error {
				if _, err := tx.CreateOrder(ctx, store.Order{AccountID: a.ID, Status: store.OrderPending, Price: 1,
					CreatedAt: time.Now(), PlanID: 101, TemplateID: 1, Hostname: "h"}); err != nil {
					return err
				}
				if i == 7 {
					return failing
				}
				return nil
			})
		})
	}
	waitQueued(t, s.group, queued)
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
	totals, err := s.OrderTotals(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if totals.Pending != queued-1 {
		t.Fatalf("%d orders pending, want %d: only the failing transaction's order rolled back", totals.Pending, queued-1)
	}
	recent, err := s.RecentOrders(ctx, a.ID, time.Time{}, 1<<62, 100)
	if err != nil || len(recent) != queued-1 {
		t.Fatalf("%d orders stored (%v), want %d", len(recent), err, queued-1)
	}
}

// waitQueued waits (at most 10 s) until n transactions are queued for the writer.
func waitQueued(t *testing.T, g *groupCommitter, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
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
	s := mustOpen(t, OpenSQLite, filepath.Join(t.TempDir(), "panic.db"))
	a := newTestAccount(t, s, "panic", 1_000)
	func() {
		defer func() {
			if v := recover(); v != "boom" {
				t.Fatalf("recovered %v, want the transaction's panic", v)
			}
		}()
		_ = s.WithTx(ctx, func(tx store.Tx) error {
			if _, err := tx.CreateOrder(ctx, store.Order{AccountID: a.ID, Status: store.OrderPending, Price: 1,
				CreatedAt: time.Now(), PlanID: 101, TemplateID: 1}); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	if totals, err := s.OrderTotals(ctx, a.ID); err != nil || totals.Pending != 0 {
		t.Fatalf("totals %+v, %v after a panicking transaction; want nothing pending", totals, err)
	}
	if err := s.WithTx(ctx, func(store.Tx) error { return nil }); err != nil {
		t.Fatalf("the writer after a panic: %v", err)
	}
}

// TestSQLiteTransactionsReusePreparedStatements runs the same transaction twice: the first
// notes its statements, the writer prepares them between groups, and the second runs on them.
func TestSQLiteTransactionsReusePreparedStatements(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := mustOpen(t, OpenSQLite, filepath.Join(t.TempDir(), "prepared.db"))
	a := newTestAccount(t, s, "prepared", 1_000)
	place := func() error {
		return s.WithTx(ctx, func(tx store.Tx) error {
			_, err := tx.CreateOrder(ctx, store.Order{AccountID: a.ID, Status: store.OrderPending, Price: 1,
				CreatedAt: time.Now(), PlanID: 101, TemplateID: 1})
			return err
		})
	}
	if err := place(); err != nil {
		t.Fatal(err)
	}
	waitPrepared(t, s.group.stmts)
	if err := place(); err != nil {
		t.Fatal(err)
	}
	if totals, err := s.OrderTotals(ctx, a.ID); err != nil || totals.Pending != 2 {
		t.Fatalf("totals %+v, %v; want the two orders placed, the second through prepared statements", totals, err)
	}
}

// waitPrepared waits (at most 10 s) until the writer has prepared what the last group noted.
func waitPrepared(t *testing.T, w *writerStmts) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
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
	s := mustOpen(t, OpenSQLite, filepath.Join(t.TempDir(), "end.db"))
	a := newTestAccount(t, s, "end", 1_000)
	ctx, cancel := context.WithCancel(context.Background())
	var orderID int64
	err := s.WithTx(ctx, func(tx store.Tx) error {
		cancel() // the client went away after the job started
		o, err := tx.CreateOrder(ctx, store.Order{AccountID: a.ID, Status: store.OrderPending, Price: 1,
			CreatedAt: time.Now(), PlanID: 101, TemplateID: 1, Hostname: "h"})
		orderID = o.ID
		return err
	})
	if err != nil {
		t.Fatalf("a started job whose caller went away: %v; want it to run to its end", err)
	}
	if _, err := s.OrderByID(context.Background(), orderID); err != nil {
		t.Fatalf("its order after the commit: %v", err)
	}
}
