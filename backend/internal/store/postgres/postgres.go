// Package postgres is the store for several resellerd replicas sharing one PostgreSQL database,
// on pgx (pgxpool). It passes the same suite as the SQLite store (storetest) and keeps the same
// semantics; what differs is how concurrent writers are kept apart.
//
// SQLite serialises every write transaction (BEGIN IMMEDIATE), so a transaction that reads an
// account, checks it and writes may trust what it read. PostgreSQL runs transactions at once,
// here at READ COMMITTED, and this store gets the same guarantee from row locks rather than from
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
// Workers claim work exactly as on SQLite, with guarded UPDATEs (a lease, a status, a renewal
// hour): PostgreSQL re-evaluates the guard of an UPDATE that waited for a concurrent one, so
// exactly one claimer wins. The lists the workers pick from (due orders, renewals, deliveries,
// open snapshots, machines and images to delete) read with FOR UPDATE SKIP LOCKED, so a replica
// passes over the rows another replica's transaction holds right now instead of queueing behind
// it to find the work done.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// PostgreSQL error codes the store tells apart.
const (
	codeUniqueViolation      = "23505"
	codeForeignKeyViolation  = "23503"
	codeSerializationFailure = "40001"
	codeDeadlockDetected     = "40P01"
)

// txAttempts bounds how often WithTx runs a transaction that PostgreSQL aborted as a deadlock or
// a serialization failure.
const txAttempts = 5

// retryBackoff is the wait before the second attempt; it doubles each time.
const retryBackoff = 5 * time.Millisecond

// Store is a store.Store on a PostgreSQL database.
type Store struct {
	pool *pgxpool.Pool
	queries
}

var _ store.Store = (*Store)(nil)

// Open connects to the database at url (postgres:// or postgresql://) and applies every pending
// migration. Several processes may open one database at once: the migrations are serialised
// by an advisory lock.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse URL: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	s := &Store{pool: pool, queries: queries{q: pool}}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// WithTx runs fn in one READ COMMITTED transaction. A transaction PostgreSQL aborts as a
// deadlock or a serialization failure is run again from the start, up to txAttempts times, so
// fn must touch nothing but the transaction and its own results (every caller's fn is so).
func (s *Store) WithTx(ctx context.Context, fn func(tx store.Tx) error) error {
	backoff := retryBackoff
	for attempt := 1; ; attempt++ {
		err := s.runTx(ctx, fn)
		if err == nil || !retryable(err) || attempt == txAttempts {
			return err
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("postgres: retry transaction: %w (after %w)", ctx.Err(), err)
		case <-t.C:
		}
		backoff *= 2
	}
}

// runTx runs fn once in a transaction of its own.
func (s *Store) runTx(ctx context.Context, fn func(tx store.Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("postgres: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if err := fn(queries{q: tx, locks: newLocks()}); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres: commit: %w", err)
	}
	return nil
}

// retryable reports whether err aborted a transaction that may simply be run again.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == codeDeadlockDetected || pe.Code == codeSerializationFailure)
}

// Close closes every connection of the pool.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// mapError turns driver errors the service must tell apart into the store's own errors.
func mapError(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ErrNotFound
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case codeUniqueViolation:
			return fmt.Errorf("%w: %w", store.ErrConflict, err)
		case codeForeignKeyViolation:
			return fmt.Errorf("%w: %w", store.ErrNotFound, err)
		}
	}
	return err
}
