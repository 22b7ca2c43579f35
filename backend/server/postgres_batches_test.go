package server

import (
	"context"
	"database/sql"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
)

// TestPostgresBatchesAtOnce shows that on PostgreSQL the provisioning worker moves several
// batches at once, and that they still deploy each order exactly once. Two accounts have 50
// pending orders each, so one tick moves two batches of one account each. The first instance
// insert waits (in the store's read hook) until another one arrives: only a second batch running
// beside the blocked one can send it. One after the other, the first would wait out its bound and
// the test fails.
func TestPostgresBatchesAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pg.Database(t)
	var inserts atomic.Int32
	var overlapped atomic.Bool // the second insert came while the first waited
	met := make(chan struct{})
	st, err := sqlstore.OpenPostgres(ctx, url, sqlstore.WithReadHook(func(query string, _ int) {
		if !strings.Contains(query, "INSERT INTO instances") {
			return
		}
		switch inserts.Add(1) {
		case 1:
			select {
			case <-met:
				overlapped.Store(true)
			case <-time.After(20 * time.Second): // bounded: the batches ran one after the other
			}
		case 2:
			close(met)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	clock := NewManualClock(testStart)
	srv := newOnStore(ctx, withDefaults(Config{DB: url, Clock: clock, WorkerInterval: -1}), st)
	t.Cleanup(func() { _ = srv.Close() })
	const perAccount = 50 // provisionBatchSize: one batch per account
	var accounts []int64
	for range 2 {
		a, err := srv.CreateAccount(ctx, NewAccount{BalanceMicros: 1_000_000_000, ServerLimit: 1000, OrderLimit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		fillPending(t, st, a.ID, perAccount, clock.Now())
		accounts = append(accounts, a.ID)
	}
	if err := srv.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if !overlapped.Load() {
		t.Fatal("the two batches never wrote at the same time; want them moved at once on PostgreSQL")
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	const orders = 2 * perAccount
	if got := deployCounts(t, db); got != (deployCount{orders: orders, instances: orders, charges: orders, events: orders}) {
		t.Fatalf("after one tick: %+v, want all %d deployed once", got, orders)
	}
	for _, id := range accounts {
		var pending int
		var reserved int64
		if err := db.QueryRow(`SELECT orders_pending, orders_reserved_micros FROM accounts WHERE id = $1`, id).Scan(&pending, &reserved); err != nil {
			t.Fatal(err)
		}
		if pending != 0 || reserved != 0 {
			t.Fatalf("account %d counts %d pending, %d reserved; want none", id, pending, reserved)
		}
	}
}
