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
//     the commit. Every wallet debit, order-limit check and idempotency-key lookup of the service
//     starts by reading the account, so two of them for one account, from any replica, run one
//     after the other, and the second sees what the first committed: two orders cannot both pass
//     the limit or overdraw the wallet, and a repeated Idempotency-Key finds the first request's
//     row and replays it instead of failing on the unique key.
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
// aborts as a deadlock or serialization failure (40P01, 40001): the cross-account purge of
// expired idempotency keys can, rarely, meet another purge.
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
// applied by the one runner at Open. On PostgreSQL each step first takes an advisory lock, so
// replicas starting at once migrate one after the other; on SQLite BEGIN IMMEDIATE does the same.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// txAttempts bounds how often WithTx runs a transaction the database aborted as a deadlock or
// a serialization failure.
const txAttempts = 5

// retryBackoff is the wait before the second attempt; it doubles each time.
const retryBackoff = 5 * time.Millisecond

// Store is a store.Store on a SQLite file or a PostgreSQL database.
type Store struct {
	db    *sql.DB         // every transaction and every write; SQLite's holds one connection
	reads *sql.DB         // SQLite's reads outside transactions; nil when db serves them too
	cache *readCache      // SQLite's cached rows; nil on PostgreSQL (see readCache)
	group *groupCommitter // SQLite's write transactions; nil on PostgreSQL
	queries
}

var _ store.Store = (*Store)(nil)

// open wraps db in a Store and applies every pending migration; it closes the pools on
// failure. reads, when not nil, serves the reads made outside transactions (see preparedReads).
func open(ctx context.Context, db, reads *sql.DB, d *dialect, o options) (*Store, error) {
	s := &Store{db: db, reads: reads, queries: queries{q: db, d: d, hook: o.hook}}
	if reads != nil {
		s.q = preparedReads{read: newStmtCache(reads), write: db}
		stmts := newWriterStmts(db)
		s.group = newGroupCommitter(db, stmts, func(tx *sql.Tx) store.Tx {
			return queries{q: preparedTx{tx: tx, stmts: stmts}, d: d, locks: d.newLocks(), hook: o.hook}
		}, o.commitHook)
	}
	if err := s.migrate(ctx); err != nil {
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
}

// collect applies opts to the defaults.
func collect(opts []Option) options {
	o := options{busyTimeout: busyTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithReadHook has the store tell hook about every read it makes, inside transactions too.
func WithReadHook(hook ReadHook) Option {
	return func(o *options) { o.hook = hook }
}

// WithTx runs fn in one transaction. A transaction the database aborts as a deadlock or a
// serialization failure (PostgreSQL only) is run again from the start, up to txAttempts times,
// so fn must touch nothing but the transaction and its own results (every caller's fn is so).
//
// On SQLite the transaction may share its commit with others queued at the same time (see
// groupCommitter); fn runs alone in a savepoint and, as everywhere, its error rolls back
// exactly what it wrote.
func (s *Store) WithTx(ctx context.Context, fn func(tx store.Tx) error) error {
	if s.group != nil {
		return s.group.withTx(ctx, fn)
	}
	backoff := retryBackoff
	for attempt := 1; ; attempt++ {
		err := s.runTx(ctx, fn)
		if err == nil || !s.d.retryable(err) || attempt == txAttempts {
			return err
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("sqlstore: retry transaction: %w (after %w)", ctx.Err(), err)
		case <-t.C:
		}
		backoff *= 2
	}
}

// runTx runs fn once in a transaction of its own.
func (s *Store) runTx(ctx context.Context, fn func(tx store.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlstore: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := fn(s.txQueries(tx)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlstore: commit: %w", err)
	}
	return nil
}

// AccountByKeyHash authenticates a request, from the read cache on SQLite.
func (s *Store) AccountByKeyHash(ctx context.Context, hash []byte) (store.Account, error) {
	if s.cache == nil {
		return s.queries.AccountByKeyHash(ctx, hash)
	}
	return cachedRead(ctx, s.cache, cacheKey{kind: cachedAccount, hash: string(hash)}, func() (store.Account, error) {
		return s.queries.AccountByKeyHash(ctx, hash)
	})
}

// Instance reads an instance of the account, from the read cache on SQLite (GET
// /instances/{id}). Transactions read theirs from the database (queries.Instance).
func (s *Store) Instance(ctx context.Context, accountID, id int64) (store.Instance, error) {
	if s.cache == nil {
		return s.queries.Instance(ctx, accountID, id)
	}
	in, err := cachedRead(ctx, s.cache, cacheKey{kind: cachedInstance, accountID: accountID, id: id}, func() (store.Instance, error) {
		return s.queries.Instance(ctx, accountID, id)
	})
	in.Features = slices.Clone(in.Features)
	return in, err
}

// AppInstalls reads the app installs of an instance, from the read cache on SQLite.
// Transactions read theirs from the database (queries.AppInstalls).
func (s *Store) AppInstalls(ctx context.Context, instanceID int64) ([]store.AppInstall, error) {
	if s.cache == nil {
		return s.queries.AppInstalls(ctx, instanceID)
	}
	installs, err := cachedRead(ctx, s.cache, cacheKey{kind: cachedInstalls, id: instanceID}, func() ([]store.AppInstall, error) {
		return s.queries.AppInstalls(ctx, instanceID)
	})
	return cloneInstalls(installs), err
}

// cloneInstalls copies installs and their maps, so a caller's changes stay out of the cache.
func cloneInstalls(installs []store.AppInstall) []store.AppInstall {
	if installs == nil {
		return nil
	}
	out := make([]store.AppInstall, len(installs))
	for i, a := range installs {
		a.Inputs, a.Result = maps.Clone(a.Inputs), maps.Clone(a.Result)
		out[i] = a
	}
	return out
}

// txQueries is the store's view of the transaction tx.
func (s *Store) txQueries(tx *sql.Tx) store.Tx {
	return queries{q: tx, d: s.d, locks: s.d.newLocks(), hook: s.hook}
}

// Close closes every connection.
func (s *Store) Close() error {
	var readsErr error
	if s.cache != nil {
		s.cache.close()
	}
	if s.group != nil {
		s.group.stop()
		s.group.stmts.close()
	}
	if s.reads != nil {
		readsErr = s.reads.Close()
	}
	if err := errors.Join(s.db.Close(), readsErr); err != nil {
		return fmt.Errorf("sqlstore: close: %w", err)
	}
	return nil
}
