package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/pgtest"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/storetest"
)

// pg is this test binary's throwaway server, started by the first test that needs it.
var pg pgtest.Shared

func TestMain(m *testing.M) { pg.Main(m) }

// openFresh opens a store on a new database, closed when the test ends.
func openFresh(t *testing.T) (*Store, string) {
	t.Helper()
	url := pg.Database(t)
	return openURL(t, url), url
}

// openURL opens one more store (a replica) on url, closed when the test ends.
func openURL(t *testing.T, url string) *Store {
	t.Helper()
	return mustOpen(t, OpenPostgres, url)
}

func TestStorePostgres(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) store.Store {
		s, _ := openFresh(t)
		return s
	}, uncheckedOrder)
}

// TestPostgresConcurrentMigrators opens one new database from several replicas at once: the advisory
// lock lets one migrate while the others wait and then find every version recorded.
func TestPostgresConcurrentMigrators(t *testing.T) {
	t.Parallel()
	url := pg.Database(t)
	const replicas = 4
	stores := make([]*Store, replicas)
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Go(func() { stores[i], errs[i] = OpenPostgres(context.Background(), url) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		t.Cleanup(func() { _ = stores[i].Close() })
	}
	checkAllMigrated(t, stores[0])
	openURL(t, url) // and a later start finds nothing to do
}

func TestOpenPostgresUnreachable(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, url, want string }{
		{"refused", "postgres://nobody@127.0.0.1:1/reseller?connect_timeout=5", "postgres: connect"},
		{"bad URL", "postgres://%zz", "postgres: parse URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := OpenPostgres(context.Background(), tt.url)
			if err == nil {
				_ = s.Close()
				t.Fatal("got nil error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestOpenPostgresPoolParameters checks that the URL's pool_* parameters, which the server
// would reject as unknown settings, size the connection pool.
func TestOpenPostgresPoolParameters(t *testing.T) {
	t.Parallel()
	url := pg.Database(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	s := openURL(t, url+sep+"pool_max_conns=2")
	if got := s.db.Stats().MaxOpenConnections; got != 2 {
		t.Fatalf("MaxOpenConnections = %d, want 2", got)
	}
	if _, err := s.Account(context.Background(), 1); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("read on the pool: %v, want ErrNotFound", err)
	}
}

// TestOpenPostgresDefaultPool checks the pool of a URL without pool_max_conns: four connections
// a CPU, at least 8 and at most 31.
func TestOpenPostgresDefaultPool(t *testing.T) {
	t.Parallel()
	s := openURL(t, pg.Database(t))
	want := defaultPoolSize(runtime.GOMAXPROCS(0))
	if got := s.db.Stats().MaxOpenConnections; got != int(want) || want < minPool {
		t.Fatalf("MaxOpenConnections = %d, want %d (at least %d)", got, want, minPool)
	}
	for procs, want := range map[int]int32{1: 8, 2: 8, 3: 12, 4: 16, 7: 28, 8: 31, 64: 31} {
		if got := defaultPoolSize(procs); got != want {
			t.Fatalf("defaultPoolSize(%d) = %d, want %d", procs, got, want)
		}
	}
}

func newTestAccount(t *testing.T, s store.Queries, key string, orderLimit int) store.Account {
	t.Helper()
	now := time.Now().UTC()
	a, err := s.CreateAccount(context.Background(), store.NewAccount{KeyHash: []byte(key), KeyHint: key, KeyCreatedAt: now,
		ServerLimit: 100, OrderLimit: orderLimit, Language: "en", CreatedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// runConcurrently runs fn n times at once, spread over the replicas, and returns the errors.
func runConcurrently(replicas []*Store, n int, fn func(s *Store, i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = fn(replicas[i%len(replicas)], i)
		})
	}
	close(start)
	wg.Wait()
	return errs
}

// TestWalletDebitsAcrossReplicas debits one account from two replicas at once, each debit
// checking the balance first as the service's charge does. The account lock makes the checks
// exact: exactly as many debits pass as the balance covers, and the balance never goes below 0.
func TestWalletDebitsAcrossReplicas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	first, url := openFresh(t)
	replicas := []*Store{first, openURL(t, url)}
	a := newTestAccount(t, first, "wallet", 5)
	if _, err := first.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: a.ID, Amount: money.USD(10), Kind: store.LedgerPayment}); err != nil {
		t.Fatal(err)
	}
	errInsufficient := errors.New("insufficient")
	errs := runConcurrently(replicas, 40, func(s *Store, _ int) error {
		return s.WithTx(ctx, func(tx store.Tx) error {
			acct, err := tx.Account(ctx, a.ID)
			if err != nil {
				return err
			}
			if acct.Balance < money.USD(1) {
				return errInsufficient
			}
			_, err = tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: a.ID, Amount: -money.USD(1), Kind: store.LedgerRenewal})
			return err
		})
	})
	passed := 0
	for _, err := range errs {
		switch {
		case err == nil:
			passed++
		case !errors.Is(err, errInsufficient):
			t.Fatalf("debit: %v", err)
		}
	}
	got, _ := first.Account(ctx, a.ID)
	sum, _ := first.LedgerSum(ctx, a.ID)
	if passed != 10 || got.Balance != 0 || sum != 0 {
		t.Fatalf("%d debits passed, balance %v, ledger sum %v; want 10, 0 and 0", passed, got.Balance, sum)
	}
}

// TestOrderLimitAcrossReplicas places orders for one account from two replicas at once, as
// the service does (PlaceOrder, alone or in a transaction with an idempotency key): no more
// than api_order_limit are ever pending, and a refused order writes nothing.
func TestOrderLimitAcrossReplicas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	first, url := openFresh(t)
	replicas := []*Store{first, openURL(t, url)}
	const limit = 3
	a := newTestAccount(t, first, "limits", limit)
	errs := runConcurrently(replicas, 20, func(s *Store, i int) error {
		o := store.Order{AccountID: a.ID, CreatedAt: time.Now()} // free: the wallet is empty
		if i%2 == 0 {
			_, _, err := s.PlaceOrder(ctx, o, nil)
			return err
		}
		return s.WithTx(ctx, func(tx store.Tx) error {
			_, _, err := tx.PlaceOrder(ctx, o, nil)
			return err
		})
	})
	for _, err := range errs {
		if err != nil && !errors.Is(err, store.ErrNotAdmitted) {
			t.Fatalf("place order: %v", err)
		}
	}
	if totals, _ := first.OrderTotals(ctx, a.ID); totals.Pending != limit {
		t.Fatalf("%d orders pending, want the limit %d", totals.Pending, limit)
	}
	if written, _ := first.RecentOrders(ctx, a.ID, time.Time{}, math.MaxInt64, 100); len(written) != limit {
		t.Fatalf("%d orders written, want the limit %d", len(written), limit)
	}
}

// TestIdempotencyKeyAcrossReplicas sends one Idempotency-Key from two replicas at once, as the
// service's placeOrder does: look the key up, else place the order with its key in one
// statement, and when the key turns out to be taken look again. Every request gets the one
// order the first wrote; the others' statements write nothing.
func TestIdempotencyKeyAcrossReplicas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	first, url := openFresh(t)
	replicas := []*Store{first, openURL(t, url)}
	a := newTestAccount(t, first, "idempotency", 50)
	orderIDs := make([]int64, 12)
	lookUp := func(s *Store, i int) (bool, error) {
		k, err := s.IdempotencyKey(ctx, a.ID, "same-key")
		if errors.Is(err, store.ErrNotFound) {
			return false, nil
		}
		orderIDs[i] = k.OrderID
		return err == nil, err
	}
	errs := runConcurrently(replicas, len(orderIDs), func(s *Store, i int) error {
		if found, err := lookUp(s, i); found || err != nil {
			return err
		}
		o, _, err := s.PlaceOrder(ctx, store.Order{AccountID: a.ID, CreatedAt: time.Now()}, // free: the wallet is empty
			&store.IdempotencyKey{AccountID: a.ID, Key: "same-key", RequestHash: "h"})
		if errors.Is(err, store.ErrConflict) {
			if found, err := lookUp(s, i); !found {
				return fmt.Errorf("the key was taken, and then not found: %w", err)
			}
			return nil
		}
		orderIDs[i] = o.ID
		return err
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if orderIDs[i] != orderIDs[0] {
			t.Fatalf("request %d got order %d, request 0 order %d; want one order for one key", i, orderIDs[i], orderIDs[0])
		}
	}
	if totals, _ := first.OrderTotals(ctx, a.ID); totals.Pending != 1 {
		t.Fatalf("%d orders written for one key, want 1", totals.Pending)
	}
}

// TestAccountFirstAvoidsDeadlocks runs, from two replicas at once, the two lock orders the
// service has: a renewal (the instance, then the account it charges) and a top-up (the account,
// then the instances it unlocks). Taking the account first in both means PostgreSQL never has a
// deadlock to break, which pg_stat_database counts.
func TestAccountFirstAvoidsDeadlocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	first, url := openFresh(t)
	replicas := []*Store{first, openURL(t, url)}
	a := newTestAccount(t, first, "deadlock", 5)
	o, err := first.createOrder(ctx, store.Order{AccountID: a.ID, Status: store.OrderDeployed, CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	due := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	in, err := first.CreateInstance(ctx, store.Instance{AccountID: a.ID, OrderID: o.ID, Name: "x", Hostname: "x", Status: "online",
		Active: true, Renew: true, Locked: true, LockReason: store.LockDebt, LockedAt: due, MachineRef: "m", RenewalDue: due})
	if err != nil {
		t.Fatal(err)
	}
	const rounds = 30
	errs := runConcurrently(replicas, 2*rounds, func(s *Store, i int) error {
		if i%2 == 0 {
			return s.WithTx(ctx, func(tx store.Tx) error { return renewOnce(ctx, tx, in.ID) })
		}
		return s.WithTx(ctx, func(tx store.Tx) error { return topUpOnce(ctx, tx, a.ID) })
	})
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var deadlocks int64
	if err := first.db.QueryRowContext(ctx, `SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`).Scan(&deadlocks); err != nil {
		t.Fatal(err)
	}
	got, _ := first.InstanceByID(ctx, in.ID)
	acct, _ := first.Account(ctx, a.ID)
	sum, _ := first.LedgerSum(ctx, a.ID)
	if deadlocks != 0 || !got.RenewalDue.Equal(due.Add(rounds*time.Hour)) || acct.Balance != sum || acct.Balance != 0 {
		t.Fatalf("deadlocks %d, renewal_due %v, balance %v, ledger sum %v; want 0, %v, 0 and 0",
			deadlocks, got.RenewalDue, acct.Balance, sum, due.Add(rounds*time.Hour))
	}
}

// renewOnce bills one hour of an instance the way the billing worker does.
func renewOnce(ctx context.Context, tx store.Tx, id int64) error {
	in, err := tx.InstanceByID(ctx, id)
	if err != nil {
		return err
	}
	if err := tx.AdvanceRenewal(ctx, in.ID, in.RenewalDue, in.RenewalDue.Add(time.Hour)); err != nil {
		return err
	}
	if _, err := tx.Account(ctx, in.AccountID); err != nil {
		return err
	}
	if _, err := tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: in.AccountID, Amount: -1, Kind: store.LedgerRenewal}); err != nil {
		return err
	}
	in.RenewalDue, in.Locked, in.LockReason = in.RenewalDue.Add(time.Hour), true, store.LockDebt
	return tx.UpdateInstance(ctx, in)
}

// topUpOnce credits the wallet and unlocks the instances locked for debt, as a top-up does.
func topUpOnce(ctx context.Context, tx store.Tx, accountID int64) error {
	if _, err := tx.AddPayment(ctx, store.Payment{AccountID: accountID, Amount: 1, Type: "card", PaidAt: time.Now()}); err != nil {
		return err
	}
	if _, err := tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: accountID, Amount: 1, Kind: store.LedgerPayment}); err != nil {
		return err
	}
	return tx.UnlockInstances(ctx, accountID, store.LockDebt)
}

// TestWorkerListsSkipLockedRows holds an order in one replica's open transaction: the other
// replica's list of due orders passes over it instead of waiting, and lists it again once the
// transaction ends.
func TestWorkerListsSkipLockedRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	first, url := openFresh(t)
	second := openURL(t, url)
	a := newTestAccount(t, first, "skip", 5)
	o, err := first.createOrder(ctx, store.Order{AccountID: a.ID, Status: store.OrderPending, CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	held, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- first.WithTx(ctx, func(tx store.Tx) error {
			if _, err := tx.OrderByID(ctx, o.ID); err != nil {
				return err
			}
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	listCtx, cancel := context.WithTimeout(ctx, eventWait) // a list blocked by the lock would wait for ever
	defer cancel()
	due, err := second.DueOrders(listCtx, time.Now(), 10)
	close(release)
	if err != nil || len(due) != 0 {
		t.Fatalf("while held: due %d orders, %v; want none, at once", len(due), err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if due, err := second.DueOrders(ctx, time.Now(), 10); err != nil || len(due) != 1 {
		t.Fatalf("after the commit: due %d orders, %v; want 1", len(due), err)
	}
}
