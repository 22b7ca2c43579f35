package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/secrets"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// txRunner runs a function in one transaction; every Store has one. It is plainTx on
// PostgreSQL and sqlitefast.GroupCommitter on SQLite, which runs the transactions queued at
// the same time in one commit, each in a savepoint of its own.
type txRunner interface {
	WithTx(ctx context.Context, fn func(store.Tx) error) error
}

// txAttempts bounds how often plainTx runs a transaction the database aborted as a deadlock or
// a serialization failure.
const txAttempts = 5

// retryBackoff is the wait before the second attempt; it doubles each time.
const retryBackoff = 5 * time.Millisecond

// plainTx runs each transaction alone on the pool db, as PostgreSQL's many connections allow,
// and runs again, up to txAttempts times, one the database aborted as a deadlock or a
// serialization failure (the dialect's retryable): see the package comment for when.
type plainTx struct {
	db   *sql.DB
	d    *dialect
	hook ReadHook
	keys *secrets.Keyring
	// tell is told of every commit that changed rows the read cache keeps (see
	// cachedwrites.go), so the cache serves nothing older to a read that starts after it.
	tell *changeTeller
	// turns puts the transaction in the pool's line (turns.takeTx) before it takes a
	// connection.
	turns *turns
}

func (p plainTx) WithTx(ctx context.Context, fn func(tx store.Tx) error) error {
	backoff := retryBackoff
	for attempt := 1; ; attempt++ {
		err := p.runTx(ctx, fn)
		if err == nil || !p.d.retryable(err) || attempt == txAttempts {
			return err
		}
		if serr := sleep(ctx, backoff); serr != nil {
			return fmt.Errorf("sqlstore: retry transaction: %w (after %w)", serr, err)
		}
		backoff *= 2
	}
}

// runTx runs fn once in a transaction of its own.
func (p plainTx) runTx(ctx context.Context, fn func(tx store.Tx) error) error {
	release, err := p.turns.takeTx(ctx)
	if err != nil {
		return err
	}
	defer release()
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlstore: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	w := &watchedTx{Tx: tx, tell: p.tell}
	q := txQueries(w, p.d, p.hook, p.keys)
	if err := fn(q); err != nil {
		return err
	}
	err = tx.Commit()
	w.committed(q.locks) // even after an error: the commit may have happened
	if err != nil {
		return fmt.Errorf("sqlstore: commit: %w", err)
	}
	return nil
}

// txQueries is the store's view of the transaction tx: its reads lock rows where the dialect
// does, and it seals and opens secrets with keys.
func txQueries(tx querier, d *dialect, hook ReadHook, keys *secrets.Keyring) queries {
	return queries{q: tx, d: d, locks: d.newLocks(), hook: hook, keys: keys}
}
