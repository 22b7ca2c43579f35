// Package sqlstore is the one store.Store, on database/sql, for both databases the backend
// runs on: an embedded SQLite file (modernc.org/sqlite, pure Go) and a PostgreSQL database
// that several resellerd replicas share (pgx through its database/sql driver). Every query is
// written once, with ? placeholders; a dialect holds only what differs: the placeholder form,
// the row-lock clauses, how a time is stored, and which driver errors mean what. Both pass the
// same suite (storetest).
//
// # Concurrent writers
//
// SQLite serialises every write transaction (BEGIN IMMEDIATE, with a busy timeout so a second
// writer waits instead of failing), so a transaction that reads an account, checks it and
// writes may trust what it read. PostgreSQL runs transactions at once, here at READ
// COMMITTED, and the store gets the same guarantee from row locks rather than from
// SERIALIZABLE with retries:
//
//   - Inside a transaction, reading an account locks its row (SELECT ... FOR NO KEY UPDATE) until
//     the commit. Every wallet debit of the service starts by reading the account, and every
//     new order by PlaceOrder, which locks it too (in its one statement on PostgreSQL), so two
//     of them for one account, from any replica, run one after the other, and the second sees
//     what the first committed: two orders cannot both pass the limit or overdraw the wallet.
//     A repeated Idempotency-Key sent to two replicas at once meets the unique key in the
//     second's transaction, which rolls back its order; the service then replays the first's.
//   - Account first: every other row a transaction reads or writes (instance, order, snapshot,
//     app install, ledger, event) is locked only after the row of the account that owns it, so
//     all the transactions of one account take their locks in the same order and cannot
//     deadlock. A single-row read in a transaction (InstanceByID, Snapshot, Order...) then
//     locks that row too, which makes the read-modify-write of UpdateInstance and UpdateSnapshot
//     safe against writers outside transactions.
//   - FOR NO KEY UPDATE is the lock an UPDATE of the balance takes anyway; unlike FOR UPDATE it
//     does not block the inserts of other transactions whose foreign key points at the account.
//
// The reason for locks over SERIALIZABLE: the service's transactions are read-check-write of one
// account's rows, which a lock on that account makes exact without aborting anybody, whereas
// SERIALIZABLE would abort and retry on every pair of concurrent transactions of one account
// (and on unrelated ones sharing index pages). WithTx still retries a transaction PostgreSQL
// aborts as a deadlock or serialization failure (40P01, 40001), should one happen. No order
// transaction writes another account's rows: expired idempotency keys are purged by
// housekeeping, and a new key overwrites an expired record of its own account
// (AddIdempotencyKey). The one transaction besides the workers' batches that holds several
// accounts' rows at once is a group of new orders (orders_group.go), which places its orders in
// the order of their accounts' ids, as the batches lock theirs (LockAccounts: ORDER BY id). A
// batch takes its accounts all at once or none for a while before it waits in line for them
// (lockedList), so it never holds some accounts, and their new orders, while it waits for another.
//
// Workers claim work with guarded UPDATEs (a lease, a status, a renewal hour): PostgreSQL
// re-evaluates the guard of an UPDATE that waited for a concurrent one, so exactly one claimer
// wins. The lists the workers pick from (due orders, renewals, deliveries, open snapshots,
// machines and images to delete) read with FOR UPDATE SKIP LOCKED, so a replica passes over
// the rows another replica's transaction holds right now instead of queueing behind it to find
// the work done. On SQLite none of these clauses is sent: its one writer at a time already
// gives every guarantee above.
//
// # Migrations
//
// Each dialect has its own embedded migrations (store/migrations), with the same versions,
// applied at Open (migrate.go). On PostgreSQL each step first takes an advisory lock, so
// replicas starting at once migrate one after the other; on SQLite BEGIN IMMEDIATE does the same.
//
// # Where things are
//
// One file per entity (accounts, instances, orders, snapshots, apps, events, webhooks,
// wallets, rate limits, the simulator's state, the workers' WorkDue), each with its column
// list, scan and queries. runner.go runs a query (placeholders, errors, the read hook, lists);
// columns.go encodes and scans the column types; locks.go takes the row locks; dialect.go,
// sqlite.go and postgres.go hold what differs between the databases.
//
// A Store always has two seams, set by its Open: a transaction runner (tx.go) and a row cache
// (cache.go). On PostgreSQL they are plain transactions, retried after a deadlock, and a
// readcache.Cache that the database's change notifications keep current (pgchanges): one that
// names an account drops that account's entries, one that names none empties it. On SQLite they
// are sqlitefast's group committer and a readcache.Cache that any commit to the file empties,
// which with its prepared statements is all that makes SQLite fast and is kept in that
// package. The reads that go through the cache are listed in cache.go and written beside their
// SQL; transactions never read from it.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/secrets"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore/sqlitefast"
)

// Store is a store.Store on a SQLite file or a PostgreSQL database.
type Store struct {
	db      *sql.DB            // every transaction and every write; SQLite's holds one connection
	pools   map[string]*sql.DB // every pool by name, for the metrics: "main" (db) and SQLite's "reads"
	probe   *sql.DB            // the pool the readiness probe asks: one that never queues behind writes
	tx      txRunner           // runs WithTx (see tx.go)
	cache   rowCache           // the rows read outside transactions that may be kept (see cache.go)
	closers []func() error     // what the dialect's Open started besides db, closed first in order
	hashing keyHashing         // how API keys are hashed, set at Open (keyhash.go)
	// changes is the database's change version on PostgreSQL (pgchanges.Watcher.Version); nil
	// on SQLite (see ChangeVersion).
	changes func(context.Context) (uint64, bool)
	rates   rateMemo // what this process last wrote to each rate log (ratelimits.go)
	queries          // the reads and writes outside transactions
}

var _ store.Store = (*Store)(nil)

// open applies every pending migration to the store s of a dialect's Open, checks its keys
// against the database's secrets (checkCanary) and reads how API keys are hashed, the first time
// with a key moving the database to keyed hashes and owner-bound values (openKeyHashing); it
// closes s on failure.
func open(ctx context.Context, s *Store) (*Store, error) {
	if err := s.migrate(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	if err := s.checkCanary(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	if err := s.openKeyHashing(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// Option changes how a Store is opened.
type Option func(*options)

// options are what the Options chose.
type options struct {
	hook        ReadHook
	commitHook  func(jobs int) // SQLite only: told about every group commit (tests)
	busyTimeout time.Duration  // SQLite only
	noShm       bool           // SQLite only: watch PRAGMA data_version, not the -shm file (tests)
	log         *slog.Logger   // PostgreSQL only: where the change watcher reports (pgchanges)
	keys        *secrets.Keyring
}

// collect applies opts to the defaults.
func collect(opts []Option) options {
	o := options{busyTimeout: sqlitefast.BusyTimeout, log: slog.New(slog.DiscardHandler)}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithReadHook has the store tell hook about every read it makes, inside transactions too.
func WithReadHook(hook ReadHook) Option {
	return func(o *options) { o.hook = hook }
}

// WithLogger has the store log there what an operator must know of it: on PostgreSQL, when the
// read cache cannot hear of changes and reads go to the database (see pgchanges).
func WithLogger(log *slog.Logger) Option {
	return func(o *options) { o.log = log }
}

// WithTx runs fn in one transaction, through the store's transaction runner: on PostgreSQL a
// transaction of its own, run again after a deadlock (see plainTx), so fn must touch nothing
// but the transaction and its own results (every caller's fn is so); on SQLite a savepoint of
// a transaction it may share with others (sqlitefast.GroupCommitter). Either way fn's error
// rolls back exactly what it wrote.
func (s *Store) WithTx(ctx context.Context, fn func(tx store.Tx) error) error {
	return s.tx.WithTx(ctx, fn)
}

// Close closes every connection.
func (s *Store) Close() error {
	var errs []error
	for _, c := range s.closers {
		errs = append(errs, c())
	}
	if err := errors.Join(append(errs, s.db.Close())...); err != nil {
		return fmt.Errorf("sqlstore: close: %w", err)
	}
	return nil
}

// Ping checks that the database answers a query, writing nothing (the readiness probe). On
// SQLite it asks the read pool, so it never queues behind the writer's transactions.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	if err := s.probe.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("sqlstore: ping: %w", err)
	}
	return nil
}

// Pools are the connection pools of the store by name, for the metrics of each: "main" (every
// transaction and write) and, on SQLite, "reads".
func (s *Store) Pools() map[string]*sql.DB {
	return s.pools
}
