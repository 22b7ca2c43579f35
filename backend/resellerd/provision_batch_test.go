package resellerd

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
)

// TestDeployBatchIsOneTransaction fills 250 pending orders and has the provisioning worker
// deploy them in batches of 50, crashing while it writes the instances of the third batch (one
// statement a batch): the first two batches are deployed whole, each order with its instance, its
// charge and its order.deployed event, and nothing of the third is (moved one order at a time,
// 149 would be). The next tick, once the claims have run out, deploys every remaining order
// exactly once.
func TestDeployBatchIsOneTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "batch.db")
	var onRead atomic.Pointer[func(string)]
	st, err := sqlstore.OpenSQLite(ctx, path, sqlstore.WithReadHook(func(query string, _ int) {
		if f := onRead.Load(); f != nil {
			(*f)(query)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	clock := NewManualClock(testStart)
	srv := testOnStore(t, ctx, withDefaults(Config{Clock: clock, WorkerInterval: -1}), st)
	t.Cleanup(func() { _ = srv.Close() })
	a, err := srv.CreateAccount(ctx, NewAccount{BalanceMicros: 1_000_000_000, ServerLimit: 1000, OrderLimit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	const orders = 250
	fillPending(t, st, a.ID, orders, clock.Now())

	var instances atomic.Int32
	crash := func(query string) {
		if strings.Contains(query, "INSERT INTO instances") && instances.Add(1) == 3 {
			panic(errCrash)
		}
	}
	onRead.Store(&crash)
	runUntilCrash(t, srv)
	onRead.Store(nil)
	db := openRO(t, path)
	if got := deployCounts(t, db); got != (deployCount{orders: 100, instances: 100, charges: 100, events: 100}) {
		t.Fatalf("after a crash in the third batch: %+v, want the first two batches of 50 whole and nothing of the third", got)
	}

	clock.Advance(2 * time.Minute) // past the claims' lease
	if err := srv.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if got := deployCounts(t, db); got != (deployCount{orders: orders, instances: orders, charges: orders, events: orders}) {
		t.Fatalf("after the next tick: %+v, want all %d deployed once", got, orders)
	}
	var pending int
	var reserved int64
	if err := db.QueryRow(`SELECT orders_pending, orders_reserved_micros FROM accounts WHERE id = ?`, a.ID).Scan(&pending, &reserved); err != nil {
		t.Fatal(err)
	}
	if pending != 0 || reserved != 0 {
		t.Fatalf("account counts %d pending, %d reserved; want none", pending, reserved)
	}
	var unbalanced int
	if err := db.QueryRow(`SELECT COUNT(*) FROM accounts a WHERE balance_micros != (SELECT COALESCE(SUM(amount_micros), 0) FROM ledger WHERE account_id = a.id)`).Scan(&unbalanced); err != nil || unbalanced != 0 {
		t.Fatalf("accounts whose ledger does not sum to the balance: %d, %v", unbalanced, err)
	}
}

// errCrash stands for the process dying in the middle of a transaction: the panic unwinds the
// worker step at once, running none of its error handling, and leaves its claims held.
var errCrash = errors.New("crash")

// TestWorkLeaseIsConfigurable: orders a crashed worker had claimed wait for Config.WorkLease (10 s
// here), not the default minute, before the next tick takes them over; before the lease ends
// they stay claimed.
func TestWorkLeaseIsConfigurable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lease.db")
	var onRead atomic.Pointer[func(string)]
	st, err := sqlstore.OpenSQLite(ctx, path, sqlstore.WithReadHook(func(query string, _ int) {
		if f := onRead.Load(); f != nil {
			(*f)(query)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	clock := NewManualClock(testStart)
	srv := testOnStore(t, ctx, withDefaults(Config{Clock: clock, WorkerInterval: -1, WorkLease: 10 * time.Second}), st)
	t.Cleanup(func() { _ = srv.Close() })
	a, err := srv.CreateAccount(ctx, NewAccount{BalanceMicros: 1_000_000_000, ServerLimit: 100, OrderLimit: 100})
	if err != nil {
		t.Fatal(err)
	}
	const orders = 20
	fillPending(t, st, a.ID, orders, clock.Now())
	crash := func(query string) {
		if strings.Contains(query, "INSERT INTO instances") {
			panic(errCrash)
		}
	}
	onRead.Store(&crash)
	runUntilCrash(t, srv) // every order claimed, none deployed
	onRead.Store(nil)
	db := openRO(t, path)

	clock.Advance(9 * time.Second)
	if err := srv.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if got := deployCounts(t, db); got.orders != 0 {
		t.Fatalf("9 s after the crash, within the 10 s lease: %+v deployed, want none", got)
	}
	clock.Advance(2 * time.Second)
	if err := srv.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if got := deployCounts(t, db); got != (deployCount{orders: orders, instances: orders, charges: orders, events: orders}) {
		t.Fatalf("11 s after the crash, past the 10 s lease: %+v, want all %d deployed once", got, orders)
	}
}

// runUntilCrash runs the workers once and wants them stopped by errCrash.
func runUntilCrash(t *testing.T, srv *Server) {
	t.Helper()
	defer func() {
		if v := recover(); v != errCrash { //nolint:errorlint // the very value panicked
			t.Fatalf("RunDue ended with %v, want the crash", v)
		}
	}()
	_ = srv.RunDue(context.Background())
}

// deployCount is what the deploys wrote: deployed orders, and the instances, order charges and
// order.deployed events of distinct orders.
type deployCount struct{ orders, instances, charges, events int }

func deployCounts(t *testing.T, db *sql.DB) deployCount {
	t.Helper()
	var c deployCount
	err := db.QueryRow(`SELECT
		(SELECT COUNT(*) FROM orders WHERE status = 'deployed'),
		(SELECT COUNT(DISTINCT order_id) FROM instances),
		(SELECT COUNT(DISTINCT reference) FROM ledger WHERE kind = 'order'),
		(SELECT COUNT(*) FROM events WHERE name = 'order.deployed')`).Scan(&c.orders, &c.instances, &c.charges, &c.events)
	if err != nil {
		t.Fatal(err)
	}
	var twice int
	if err := db.QueryRow(`SELECT COUNT(*) FROM (SELECT 1 FROM ledger WHERE kind = 'order' GROUP BY reference HAVING COUNT(*) > 1)`).Scan(&twice); err != nil || twice != 0 {
		t.Fatalf("orders charged twice: %d, %v", twice, err)
	}
	return c
}

// openRO opens the SQLite file read-only beside the store, for checks in plain SQL.
func openRO(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// fillPending writes n pending orders of the account, reserving their price, in one transaction.
func fillPending(t *testing.T, st store.Store, accountID int64, n int, now time.Time) {
	t.Helper()
	ctx := context.Background()
	err := st.WithTx(ctx, func(tx store.Tx) error {
		for range n {
			if _, _, err := tx.PlaceOrder(ctx, store.Order{AccountID: accountID, Status: store.OrderPending, Price: 4_000,
				CreatedAt: now, PlanID: 101, TemplateID: 1}, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("fill: %v", err)
	}
}
