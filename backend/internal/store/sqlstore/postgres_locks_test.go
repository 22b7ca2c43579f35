package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// TestPostgresBatchLockHoldsNoAccountWhileWaiting: a transaction holds account b, as an order
// group does until its commit, and a batch then locks accounts a and b, through each of the two
// ways a batch locks several accounts (LockAccounts, which a batch of deploys reads them with,
// and lockAccounts, which claims, charges and deliveries use). While the batch waits for b, a
// stays free: another transaction locks it and commits. Waiting in line (PostgreSQL's own lock of
// a statement's rows, one by one) would keep a until b came free, and every order of a's would
// queue behind the batch. Once b's holder commits the batch has both.
func TestPostgresBatchLockHoldsNoAccountWhileWaiting(t *testing.T) {
	t.Parallel()
	for name, lock := range map[string]func(ctx context.Context, tx store.Tx, ids []int64) error{
		"LockAccounts": func(ctx context.Context, tx store.Tx, ids []int64) error {
			got, err := tx.LockAccounts(ctx, ids)
			if err == nil && len(got) != len(ids) {
				err = errors.New("the batch did not read every account")
			}
			return err
		},
		"lockAccounts": func(ctx context.Context, tx store.Tx, ids []int64) error {
			return tx.(queries).lockAccounts(ctx, ids)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testBatchLockHoldsNoAccountWhileWaiting(t, lock)
		})
	}
}

func testBatchLockHoldsNoAccountWhileWaiting(t *testing.T, lock func(ctx context.Context, tx store.Tx, ids []int64) error) {
	ctx := context.Background()
	url := pg.Database(t)
	s := openURL(t, url)
	s.d.lockPatience = lockPatience{first: time.Millisecond, total: time.Minute} // patient for the whole test
	a, b := newTestAccount(t, s, "first", 1), newTestAccount(t, s, "second", 1)
	if a.ID > b.ID {
		a, b = b, a
	}

	holding, release, held := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		held <- s.WithTx(ctx, func(tx store.Tx) error {
			if _, err := tx.Account(ctx, b.ID); err != nil { // locks b
				return err
			}
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	batch := make(chan error, 1)
	go func() {
		batch <- s.WithTx(ctx, func(tx store.Tx) error { return lock(ctx, tx, []int64{a.ID, b.ID}) })
	}()

	probe, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	waitForBatch(t, probe)
	if err := lockWithin(ctx, probe, a.ID, 20*time.Second); err != nil {
		t.Fatalf("account %d stayed locked while the batch waited for account %d: %v", a.ID, b.ID, err)
	}
	select {
	case err := <-batch:
		t.Fatalf("the batch ended (%v) while account %d was still held", err, b.ID)
	default:
	}

	close(release)
	for name, done := range map[string]chan error{"holder": held, "batch": batch} {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s did not end once account %d was free", name, b.ID)
		}
	}
}

// waitForBatch waits until a session of this test's database has asked for the batch's
// accounts (pg_stat_activity shows a session's last statement: the lock itself while it waits
// in line, or a try's savepoint around it), so the probe that follows runs while the batch
// waits. Other tests' databases on the shared server are left out: their batches would match.
func waitForBatch(t *testing.T, probe *sql.DB) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		err := probe.QueryRow(`SELECT count(*) FROM pg_stat_activity
			WHERE pid <> pg_backend_pid() AND datname = current_database()
				AND (query LIKE '%FROM accounts WHERE id IN%' OR query LIKE '%SAVEPOINT lock_rows%')`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the batch never asked for its accounts")
}

// lockWithin tries to lock account id without waiting in line (NOWAIT), again and again, for at
// most within, committing at once when it gets it.
func lockWithin(ctx context.Context, probe *sql.DB, id int64, within time.Duration) error {
	deadline := time.Now().Add(within)
	var last error
	for time.Now().Before(deadline) {
		tx, err := probe.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		var got int64
		last = tx.QueryRowContext(ctx, `SELECT id FROM accounts WHERE id = $1 FOR NO KEY UPDATE NOWAIT`, id).Scan(&got)
		if last == nil {
			return tx.Commit()
		}
		_ = tx.Rollback()
		if !strings.Contains(last.Error(), codeLockNotAvailable) {
			return last
		}
		time.Sleep(2 * time.Millisecond)
	}
	return last
}
