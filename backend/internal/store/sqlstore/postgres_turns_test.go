package sqlstore

import (
	"context"
	"slices"
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
	url := pg.Database(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	s := openURL(t, url+sep+"pool_max_conns=2")
	if got := txTurns(2); got != 1 {
		t.Fatalf("txTurns(2) = %d, want 1", got)
	}
	a := newTestAccount(t, s, "turns", 1)

	holding, release := make(chan struct{}), make(chan struct{})
	go func() {
		_ = s.WithTx(ctx, func(tx store.Tx) error {
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	var mu sync.Mutex
	var ran []int
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
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
		}()
		time.Sleep(20 * time.Millisecond) // so each asks after the one before
	}
	if _, err := s.AccountByKeyHash(ctx, a.KeyHash); err != nil {
		t.Fatalf("a read while every turn is taken: %v", err)
	}
	mu.Lock()
	early := slices.Clone(ran)
	mu.Unlock()
	if len(early) != 0 {
		t.Fatalf("transactions %v ran while the only turn was held, want them to wait", early)
	}
	close(release)
	wg.Wait()
	if want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}; !slices.Equal(ran, want) {
		t.Fatalf("the transactions ran in the order %v, want %v", ran, want)
	}
}
