package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// groupRun is one group of orderGroups as observe saw it.
type groupRun struct {
	size int
	err  error
}

// groupBench is a store on a pool of two connections, so one turn (txTurns): a test holds the
// turn while orders queue, then lets go, and the orders queued meanwhile run in one group.
type groupBench struct {
	t       *testing.T
	s       *Store
	fillers []store.Account // one account of each worker, whose orders keep the workers busy
	made    int             // accounts made
	mu      sync.Mutex
	runs    []groupRun
}

func newGroupBench(t *testing.T) *groupBench {
	t.Helper()
	b := &groupBench{t: t, s: openURL(t, withParams(pg.Database(t), "pool_max_conns=2"))}
	for covered := map[chan *groupedOrder]bool{}; len(covered) < orderGroupWorkers; {
		a := b.account()
		if q := b.s.queries.groups.queueOf(a.ID); !covered[q] {
			covered[q] = true
			b.fillers = append(b.fillers, a)
		}
	}
	b.s.queries.groups.observe = func(size int, err error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.runs = append(b.runs, groupRun{size, err})
	}
	return b
}

// account makes a new account.
func (b *groupBench) account() store.Account {
	b.made++
	return newTestAccount(b.t, b.s, fmt.Sprintf("account-%d", b.made), 100)
}

// sameWorker makes accounts until n of them have their orders placed by one worker, and
// returns those.
func (b *groupBench) sameWorker(n int) []store.Account {
	byQueue := map[chan *groupedOrder][]store.Account{}
	for {
		a := b.account()
		q := b.s.queries.groups.queueOf(a.ID)
		if byQueue[q] = append(byQueue[q], a); len(byQueue[q]) == n {
			return byQueue[q]
		}
	}
}

// groupOf runs place for each of n orders of accounts of one worker, the worker of account on,
// while the one turn is held: once each worker has taken an order of its filler account (what
// becomes of those is not checked) and all n are queued, it runs whileQueued and lets the turn
// go. The n orders then run in one group, with their worker's filler order. It returns their
// errors.
func (b *groupBench) groupOf(on int64, n int, place func(i int) error, whileQueued func()) []error {
	b.t.Helper()
	if n+1 > maxOrderGroup {
		b.t.Fatalf("a group of %d orders and a filler is over maxOrderGroup", n)
	}
	g := b.s.queries.groups
	holding, release, released := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		released <- b.s.WithTx(context.Background(), func(store.Tx) error {
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	before := g.taken.Load()
	var wg sync.WaitGroup
	for _, f := range b.fillers { // each worker takes one and waits for the turn
		wg.Go(func() {
			_, _, _ = b.s.PlaceOrder(context.Background(), store.Order{AccountID: f.ID, CreatedAt: time.Now()}, nil)
		})
	}
	eventually(b.t, "every worker to take a filler order", func() bool { return g.taken.Load() == before+orderGroupWorkers })
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { errs[i] = place(i) })
	}
	eventually(b.t, fmt.Sprintf("%d orders to queue", n), func() bool { return len(g.queueOf(on)) == n })
	if whileQueued != nil {
		whileQueued()
	}
	close(release)
	if err := <-released; err != nil {
		b.t.Fatal(err)
	}
	wg.Wait()
	return errs
}

// largest is the largest group run so far.
func (b *groupBench) largest() groupRun {
	b.mu.Lock()
	defer b.mu.Unlock()
	var l groupRun
	for _, r := range b.runs {
		if r.size > l.size {
			l = r
		}
	}
	return l
}

// TestPostgresOrderGroupPlacesOrdersOfSeveralAccounts: orders of three accounts queued at once
// are placed in one group, one transaction, and each is counted on its account in turn: every
// order sees the counts of those of its account placed before it in the group.
func TestPostgresOrderGroupPlacesOrdersOfSeveralAccounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newGroupBench(t)
	accounts := b.sameWorker(3)
	const each = 5                          // 15 orders and a filler: a full group (maxOrderGroup)
	seen := make([]int, len(accounts)*each) // the pending orders each order's counts saw
	errs := b.groupOf(accounts[0].ID, len(seen), func(i int) error {
		placed, c, err := b.s.PlaceOrder(ctx, store.Order{AccountID: accounts[i%len(accounts)].ID, CreatedAt: time.Now()}, nil)
		if err == nil && placed.ID == 0 {
			err = errors.New("placed with no id")
		}
		seen[i] = c.Orders.Pending
		return err
	}, nil)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("order %d: %v", i, err)
		}
	}
	if l := b.largest(); l.size != len(seen)+1 || l.err != nil {
		t.Fatalf("largest group: %d orders (%v), want all %d and a filler in one", l.size, l.err, len(seen))
	}
	for k, a := range accounts {
		var got []int
		for i := k; i < len(seen); i += len(accounts) {
			got = append(got, seen[i])
		}
		slices.Sort(got)
		if want := []int{0, 1, 2, 3, 4}; !slices.Equal(got, want) {
			t.Errorf("account %d: the orders saw %v pending before them, want %v", k, got, want)
		}
		if totals, err := b.s.OrderTotals(ctx, a.ID); err != nil || totals.Pending != each {
			t.Errorf("account %d: %d pending (%v), want %d", k, totals.Pending, err, each)
		}
	}
}

// TestPostgresOrderGroupFailureFailsOneOrder: an order whose idempotency key is taken rolls its
// group back; the others are then placed alone and committed, and it alone fails.
func TestPostgresOrderGroupFailureFailsOneOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newGroupBench(t)
	a := b.account()
	key := func(k string) *store.IdempotencyKey { return &store.IdempotencyKey{Key: k, RequestHash: "h"} }
	if _, _, err := b.s.PlaceOrder(ctx, store.Order{AccountID: a.ID, CreatedAt: time.Now()}, key("taken")); err != nil {
		t.Fatal(err)
	}
	const n, failing = 10, 4
	errs := b.groupOf(a.ID, n, func(i int) error {
		k := key(fmt.Sprintf("k-%d", i))
		if i == failing {
			k = key("taken")
		}
		_, _, err := b.s.PlaceOrder(ctx, store.Order{AccountID: a.ID, CreatedAt: time.Now()}, k)
		return err
	}, nil)
	for i, err := range errs {
		if i == failing && !errors.Is(err, store.ErrConflict) {
			t.Errorf("order with the taken key: %v, want ErrConflict", err)
		}
		if i != failing && err != nil {
			t.Errorf("order %d: %v", i, err)
		}
	}
	var pe *pgconn.PgError
	if l := b.largest(); l.size != n+1 || !errors.As(l.err, &pe) || pe.Code != codeUniqueViolation {
		t.Fatalf("largest group: %d orders, %v; want %d rolled back by the unique key", l.size, l.err, n+1)
	}
	if totals, err := b.s.OrderTotals(ctx, a.ID); err != nil || totals.Pending != n {
		t.Fatalf("%d pending (%v), want %d: the first and the group's but one", totals.Pending, err, n)
	}
}

// TestPostgresOrderGroupAnswersAfterCommit: a group whose COMMIT fails (a deferred constraint
// trigger refuses one of its orders at commit) fails every order of it, and none is stored: a
// caller is answered only with its group's commit.
func TestPostgresOrderGroupAnswersAfterCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newGroupBench(t)
	for _, ddl := range []string{
		`CREATE FUNCTION refuse_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.hostname = 'fail-at-commit' THEN RAISE EXCEPTION 'refused at commit'; END IF;
			RETURN NULL;
		END $$`,
		`CREATE CONSTRAINT TRIGGER refuse_at_commit AFTER INSERT ON orders
			DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_at_commit()`,
	} {
		if _, err := b.s.db.ExecContext(ctx, ddl); err != nil {
			t.Fatal(err)
		}
	}
	accounts := b.sameWorker(2)
	const n = 6
	errs := b.groupOf(accounts[0].ID, n, func(i int) error {
		o := store.Order{AccountID: accounts[i%2].ID, CreatedAt: time.Now()}
		if i == n-1 {
			o.Hostname = "fail-at-commit"
		}
		_, _, err := b.s.PlaceOrder(ctx, o, nil)
		return err
	}, nil)
	for i, err := range errs {
		if err == nil {
			t.Errorf("order %d: placed, want the group's commit error", i)
		}
	}
	if l := b.largest(); l.size != n+1 || l.err == nil {
		t.Fatalf("largest group: %d orders, %v; want %d and its commit's error", l.size, l.err, n+1)
	}
	for _, a := range accounts {
		totals, err := b.s.OrderTotals(ctx, a.ID)
		if err != nil || totals.Pending != 0 {
			t.Errorf("account %d: %d pending (%v), want none", a.ID, totals.Pending, err)
		}
		if written, err := b.s.RecentOrders(ctx, a.ID, time.Time{}, math.MaxInt64, 100); err != nil || len(written) != 0 {
			t.Errorf("account %d: %d orders stored (%v), want none", a.ID, len(written), err)
		}
	}
}

// TestPostgresOrderGroupWithdrawsCanceledOrder: an order whose caller's context ends while it is
// queued is withdrawn: the caller gets the context's error and the order is not placed.
func TestPostgresOrderGroupWithdrawsCanceledOrder(t *testing.T) {
	t.Parallel()
	b := newGroupBench(t)
	a := b.account()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	returned := make(chan struct{})
	errs := b.groupOf(a.ID, 1, func(int) error {
		defer close(returned)
		_, _, err := b.s.PlaceOrder(ctx, store.Order{AccountID: a.ID, CreatedAt: time.Now()}, nil)
		return err
	}, func() {
		cancel()
		<-returned // withdrawn before any worker could take it
	})
	if !errors.Is(errs[0], context.Canceled) {
		t.Fatalf("canceled order: %v, want context.Canceled", errs[0])
	}
	if totals, err := b.s.OrderTotals(context.Background(), a.ID); err != nil || totals.Pending != 0 {
		t.Fatalf("%d pending (%v), want none: a withdrawn order is not placed", totals.Pending, err)
	}
}

// TestPostgresOrderGroupsDoNotDeadlock: orders of two accounts of one worker arrive in every
// order from many callers while transactions lock both accounts as the workers' batches do
// (LockAccounts, in id order). Each group places its orders in account id order, so no group
// meets a deadlock (PostgreSQL would abort one with 40P01) and every order is placed.
func TestPostgresOrderGroupsDoNotDeadlock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openURL(t, pg.Database(t))
	var mu sync.Mutex
	var failed []error
	s.queries.groups.observe = func(_ int, err error) {
		if err != nil {
			mu.Lock()
			failed = append(failed, err)
			mu.Unlock()
		}
	}
	var accounts []store.Account
	for i := 0; len(accounts) < 2; i++ {
		key := fmt.Sprintf("account-%d", i)
		a, err := s.CreateAccount(ctx, store.NewAccount{KeyHash: []byte(key), KeyHint: key, KeyCreatedAt: time.Now(),
			ServerLimit: 10_000, OrderLimit: 10_000, Language: "en", CreatedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		if len(accounts) == 0 || s.queries.groups.queueOf(a.ID) == s.queries.groups.queueOf(accounts[0].ID) {
			accounts = append(accounts, a)
		}
	}
	ids := []int64{accounts[0].ID, accounts[1].ID}
	const callers, each, lockers = 40, 10, 4
	placing := make(chan struct{})
	var lockErr error
	var wg sync.WaitGroup
	for range lockers {
		wg.Go(func() {
			for {
				select {
				case <-placing:
					return
				default:
				}
				err := s.WithTx(ctx, func(tx store.Tx) error {
					_, err := tx.(queries).LockAccounts(ctx, ids)
					return err
				})
				if err != nil {
					mu.Lock()
					lockErr = err
					mu.Unlock()
					return
				}
			}
		})
	}
	errs := runConcurrently([]*Store{s}, callers, func(s *Store, i int) error {
		for j := range each {
			a := accounts[(i+j)%2] // half the callers start with one account, half with the other
			if _, _, err := s.PlaceOrder(ctx, store.Order{AccountID: a.ID, CreatedAt: time.Now()}, nil); err != nil {
				return err
			}
		}
		return nil
	})
	close(placing)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("caller %d: %v", i, err)
		}
	}
	if lockErr != nil {
		t.Fatalf("LockAccounts: %v", lockErr)
	}
	if len(failed) > 0 {
		t.Fatalf("%d groups failed, the first: %v", len(failed), failed[0])
	}
	for _, a := range accounts {
		if totals, err := s.OrderTotals(ctx, a.ID); err != nil || totals.Pending != callers*each/2 {
			t.Fatalf("account %d: %d pending (%v), want %d", a.ID, totals.Pending, err, callers*each/2)
		}
	}
}

// TestPostgresOrderGroupsCloseAnswersEveryOrder: Close, with every worker waiting for a turn and
// orders queued, returns once the workers have, and every caller is answered errOrdersClosed,
// its order not placed; an order after Close is refused the same way.
func TestPostgresOrderGroupsCloseAnswersEveryOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newGroupBench(t)
	a := b.account()
	g := b.s.queries.groups
	errs := b.groupOf(a.ID, 3, func(int) error {
		_, _, err := b.s.PlaceOrder(ctx, store.Order{AccountID: a.ID, CreatedAt: time.Now()}, nil)
		return err
	}, func() {
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
	})
	for i, err := range errs {
		if !errors.Is(err, errOrdersClosed) {
			t.Errorf("order %d: %v, want errOrdersClosed", i, err)
		}
	}
	if _, _, err := b.s.PlaceOrder(ctx, store.Order{AccountID: a.ID, CreatedAt: time.Now()}, nil); !errors.Is(err, errOrdersClosed) {
		t.Errorf("order after Close: %v, want errOrdersClosed", err)
	}
	for _, acct := range append(b.fillers, a) {
		if totals, err := b.s.OrderTotals(ctx, acct.ID); err != nil || totals.Pending != 0 {
			t.Errorf("account %d: %d pending (%v), want none", acct.ID, totals.Pending, err)
		}
	}
}

// TestPostgresOrderGroupPassesOverAHeldAccount: while another transaction holds an account's row
// (as a deploy batch holds its accounts' until its commit), that account's order waits, alone,
// and the orders of the other accounts of its worker, queued behind it, are placed meanwhile: a
// group that waited for the account would hold them all. Once the row is free the held order is
// placed too, once.
func TestPostgresOrderGroupPassesOverAHeldAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openFresh(t) // the default pool: the holder, the held order and a group each have a connection
	held := newTestAccount(t, s, "held", 100)
	free := newTestAccount(t, s, "free", 100)
	for i := 0; s.queries.groups.queueOf(free.ID) != s.queries.groups.queueOf(held.ID); i++ {
		free = newTestAccount(t, s, fmt.Sprintf("free-%d", i), 100)
	}

	tx, err := s.db.BeginTx(ctx, nil) // the holder, as a deploy batch
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `SELECT id FROM accounts WHERE id = $1`+forUpdate, held.ID); err != nil {
		t.Fatal(err)
	}
	heldDone := make(chan error, 1)
	taken := s.queries.groups.taken.Load()
	go func() {
		_, _, err := s.PlaceOrder(ctx, store.Order{AccountID: held.ID, CreatedAt: time.Now()}, nil)
		heldDone <- err
	}()
	eventually(t, "a group to take the held account's order", func() bool { return s.queries.groups.taken.Load() > taken })
	for i := range 3 { // each waits for the worker, which a waiting group would keep
		placeCtx, cancel := context.WithTimeout(ctx, eventWait)
		_, _, err := s.PlaceOrder(placeCtx, store.Order{AccountID: free.ID, CreatedAt: time.Now()}, nil)
		cancel()
		if err != nil {
			t.Fatalf("order %d of another account of the worker while the account is held: %v", i, err)
		}
	}
	select {
	case err := <-heldDone:
		t.Fatalf("the held account's order ended while its account was held: %v", err)
	default:
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-heldDone; err != nil {
		t.Fatalf("the held account's order, once free: %v", err)
	}
	for _, want := range []struct {
		a       store.Account
		pending int
	}{{held, 1}, {free, 3}} {
		if totals, err := s.OrderTotals(ctx, want.a.ID); err != nil || totals.Pending != want.pending {
			t.Errorf("account %d: %d pending (%v), want %d", want.a.ID, totals.Pending, err, want.pending)
		}
	}
}
