package sqlstore

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/storetest"
)

func TestStoreSQLite(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) store.Store {
		return mustOpen(t, OpenSQLite, filepath.Join(t.TempDir(), "test.db"))
	}, uncheckedOrder)
}

// mustOpen opens a store with open (OpenSQLite or OpenPostgres) and opts, closed when the test
// ends.
func mustOpen(t *testing.T, open func(context.Context, string, ...Option) (*Store, error), dsn string, opts ...Option) *Store {
	t.Helper()
	s, err := open(context.Background(), dsn, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestSQLiteMigrationsIdempotentOnReopen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "nested", "dir", "reopen.db")
	s, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.CreateAccount(ctx, store.NewAccount{KeyHash: []byte("h"), KeyHint: "h", ServerLimit: 1, OrderLimit: 1, Language: "fa"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = OpenSQLite(ctx, path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	if _, err := s.Account(ctx, a.ID); err != nil {
		t.Fatalf("account after reopen: %v", err)
	}
	checkAllMigrated(t, s)
}

// TestSQLiteConcurrentWriters checks that writers queue on the lock instead of failing with
// SQLITE_BUSY, which is what BEGIN IMMEDIATE and busy_timeout are for.
func TestSQLiteConcurrentWriters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := mustOpen(t, OpenSQLite, filepath.Join(t.TempDir(), "c.db"))
	a, err := s.CreateAccount(ctx, store.NewAccount{KeyHash: []byte("c"), KeyHint: "c", ServerLimit: 1, OrderLimit: 1, Language: "fa"})
	if err != nil {
		t.Fatal(err)
	}
	const writers = 16
	errs := make(chan error, writers)
	for range writers {
		go func() {
			errs <- s.WithTx(ctx, func(tx store.Tx) error {
				if _, err := tx.Account(ctx, a.ID); err != nil { // read first: a deferred tx would fail to upgrade
					return err
				}
				_, err := tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: a.ID, Amount: 1, Kind: "test"})
				return err
			})
		}()
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Fatalf("concurrent write: %v", err)
		}
	}
	got, _ := s.Account(ctx, a.ID)
	if got.Balance != writers {
		t.Fatalf("balance = %d, want %d", got.Balance, writers)
	}
}

// withBusyTimeout shortens SQLite's busy timeout, so a test can hold the lock longer than it.
func withBusyTimeout(d time.Duration) Option {
	return func(o *options) { o.busyTimeout = d }
}

// TestSQLiteWritersQueueInProcess holds a write transaction open for longer than the busy
// timeout while transactions and single writes of the same process arrive: they wait for the
// one writer connection instead of failing with "database is locked", and every write lands.
func TestSQLiteWritersQueueInProcess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const busy = 50 * time.Millisecond
	s, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "q.db"), withBusyTimeout(busy))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	a, err := s.CreateAccount(ctx, store.NewAccount{KeyHash: []byte("q"), KeyHint: "q", ServerLimit: 1, OrderLimit: 1, Language: "fa"})
	if err != nil {
		t.Fatal(err)
	}
	credit := store.LedgerEntry{AccountID: a.ID, Amount: 1, Kind: "test"}
	held, release := make(chan struct{}), make(chan struct{})
	holder := make(chan error, 1)
	go func() {
		holder <- s.WithTx(ctx, func(tx store.Tx) error {
			if _, err := tx.AddLedgerEntry(ctx, credit); err != nil {
				return err
			}
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	const writers = 8
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				_, err := s.AddLedgerEntry(ctx, credit)
				errs <- err
				return
			}
			errs <- s.WithTx(ctx, func(tx store.Tx) error {
				_, err := tx.AddLedgerEntry(ctx, credit)
				return err
			})
		}()
	}
	time.Sleep(4 * busy) // the lock stays held past every waiter's busy timeout
	close(release)
	wg.Wait()
	close(errs)
	if err := <-holder; err != nil {
		t.Fatal(err)
	}
	for err := range errs {
		if err != nil {
			t.Errorf("a write waiting for the lock failed: %v", err)
		}
	}
	if got, _ := s.Account(ctx, a.ID); got.Balance != writers+1 {
		t.Fatalf("balance = %d, want %d", got.Balance, writers+1)
	}
}

// uncheckedOrder is storetest's fixture: the unchecked write PlaceOrder's SQLite steps end with.
func uncheckedOrder(ctx context.Context, s store.Store, o store.Order) (store.Order, error) {
	return s.(*Store).createOrder(ctx, o)
}
