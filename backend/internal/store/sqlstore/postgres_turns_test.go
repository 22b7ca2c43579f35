package sqlstore

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// TestPostgresTransactionsTakeTurnsInOrder queues ten transactions behind one that holds the
// only turn of a pool of two (txTurns: one turn, and a connection left for reads): none runs
// while the turn is held, though a connection is free and a read outside transactions is
// served meanwhile, and then they run in the order they asked (database/sql alone hands a
// freed connection to a random waiter).
func TestPostgresTransactionsTakeTurnsInOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openPool(t, 2)
	if got := txTurns(2); got != 1 {
		t.Fatalf("txTurns(2) = %d, want 1", got)
	}
	a := newTestAccount(t, s, "turns", 1)

	release := holdATransaction(t, s)
	var mu sync.Mutex
	var ran []int
	wait := askInOrder(10, func(i int) {
		err := s.WithTx(ctx, func(tx store.Tx) error {
			mu.Lock()
			ran = append(ran, i)
			mu.Unlock()
			_, err := tx.Account(ctx, a.ID)
			return err
		})
		if err != nil {
			t.Error(err)
		}
	})
	if _, err := s.AccountByKeyHash(ctx, a.KeyHash); err != nil {
		t.Fatalf("a read while every turn is taken: %v", err)
	}
	mu.Lock()
	early := slices.Clone(ran)
	mu.Unlock()
	if len(early) != 0 {
		t.Fatalf("transactions %v ran while the only turn was held, want them to wait", early)
	}
	release()
	wait()
	checkRanInOrder(t, "transactions", ran)
}

// TestPostgresStatementsTakeTurnsInOrder queues ten statements outside transactions behind a
// transaction that holds the only connection of a pool of one: they run in the order they
// asked, as the sequence of the rows they insert shows (database/sql alone hands the freed
// connection to a random waiter).
func TestPostgresStatementsTakeTurnsInOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openPool(t, 1)
	if _, err := s.queries.exec(ctx, `CREATE TABLE turn_order (seq BIGSERIAL PRIMARY KEY, asked INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	release := holdATransaction(t, s)
	wait := askInOrder(10, func(i int) {
		if _, err := s.queries.exec(ctx, `INSERT INTO turn_order (asked) VALUES (?)`, i); err != nil {
			t.Error(err)
		}
	})
	release()
	wait()
	ran, err := list(ctx, s.queries, "turn order", func(r rowScanner) (int, error) {
		var asked int
		return asked, r.Scan(&asked)
	}, `SELECT asked FROM turn_order ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	checkRanInOrder(t, "statements", ran)
}

// TestPostgresPoolHasNoWaiter runs transactions and statements outside them, 32 at once, on a
// pool of three connections: every one waits in the store's line (turns), none in
// database/sql's, whose waiters get a freed connection in a random order.
func TestPostgresPoolHasNoWaiter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openPool(t, 3)
	a := newTestAccount(t, s, "no-waiter", 1)
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			for range 10 {
				var err error
				if i%2 == 0 {
					_, err = s.queries.exec(ctx, `SELECT pg_sleep(0.002)`)
				} else {
					err = s.WithTx(ctx, func(tx store.Tx) error {
						_, err := tx.Account(ctx, a.ID)
						return err
					})
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if st := s.db.Stats(); st.WaitCount != 0 || st.OpenConnections > 3 {
		t.Fatalf("database/sql had %d waiters (%v in all) and %d connections, want none and at most 3", st.WaitCount, st.WaitDuration, st.OpenConnections)
	}
}

// openPool opens a store on a fresh database with a pool of conns connections.
func openPool(t *testing.T, conns int) *Store {
	t.Helper()
	url := pg.Database(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	return openURL(t, url+sep+"pool_max_conns="+strconv.Itoa(conns))
}

// holdATransaction starts a transaction on s that holds its turn, and its connection, until
// release, which waits for it to end.
func holdATransaction(t *testing.T, s *Store) (release func()) {
	t.Helper()
	holding, end := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- s.WithTx(context.Background(), func(tx store.Tx) error {
			close(holding)
			<-end
			return nil
		})
	}()
	<-holding
	return func() {
		close(end)
		if err := <-held; err != nil {
			t.Error(err)
		}
	}
}

// askInOrder runs ask(0) to ask(n-1) at once, each started 20 ms after the one before so that
// each asks for its turn after it; wait waits for them all.
func askInOrder(n int, ask func(i int)) (wait func()) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { ask(i) })
		time.Sleep(20 * time.Millisecond)
	}
	return wg.Wait
}

// checkRanInOrder fails unless ran is 0 to 9, the order askInOrder asked in.
func checkRanInOrder(t *testing.T, what string, ran []int) {
	t.Helper()
	if want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}; !slices.Equal(ran, want) {
		t.Fatalf("the %s ran in the order %v, want %v", what, ran, want)
	}
}
