package sqlstore

import (
	"context"
	"fmt"

	"golang.org/x/sync/semaphore"
)

// turns puts every user of the PostgreSQL pool in one line, first come first served, before
// it asks database/sql for a connection. database/sql hands a freed connection to a random
// waiter, so under a load of orders some requests waited far longer than the others: at the
// spec's limits 8,000 orders made 11,800 waits for a connection, 190 s in all (go_sql_wait_*,
// bench/README.md). With every statement and transaction holding a turn while it uses its
// connection, no more of them ask database/sql at once than the pool holds, and it has no
// waiter to pick from at random.
//
// Two lines, both FIFO (x/sync's semaphore):
//   - conns, the pool's size: held by a statement outside a transaction while it runs, and by a
//     transaction (or an order group, or an order placed alone) until it ends.
//   - tx, three quarters of the pool (txTurns): taken before conns by a transaction, a group or
//     an order placed alone, so that they never hold every connection. The statements outside
//     transactions, among them reads that a transaction's function makes through the store,
//     always have a quarter of the pool, and cannot wait behind a line of transactions that
//     wait for them.
//
// A statement read through rows gives its turn back when it returns, before its rows are read:
// the turn never outlives the call that took it, so a caller holding rows open while it runs
// another statement cannot wait for itself. Its connection goes back to the pool a moment later,
// when the rows are read; that is the only moment at which database/sql can see a waiter.
type turns struct {
	conns, tx *semaphore.Weighted
}

// newTurns is the line for a pool of conns connections.
func newTurns(conns int32) *turns {
	return &turns{conns: semaphore.NewWeighted(int64(conns)), tx: semaphore.NewWeighted(txTurns(conns))}
}

// txTurns is how many transactions hold a connection at once in a pool of size conns: three
// quarters of it, so a quarter stays for the statements outside transactions.
func txTurns(conns int32) int64 {
	return max(1, int64(conns)*3/4)
}

// takeTx waits for a transaction's turn, then for a connection's; release gives both back.
func (t *turns) takeTx(ctx context.Context) (release func(), err error) {
	if err := t.tx.Acquire(ctx, 1); err != nil {
		return nil, fmt.Errorf("sqlstore: wait for a turn: %w", err)
	}
	if err := t.conns.Acquire(ctx, 1); err != nil {
		t.tx.Release(1)
		return nil, fmt.Errorf("sqlstore: wait for a connection's turn: %w", err)
	}
	return func() { t.conns.Release(1); t.tx.Release(1) }, nil
}

// takeStatement waits for a connection's turn for a statement outside a transaction.
func (t *turns) takeStatement(ctx context.Context) (release func(), err error) {
	if err := t.conns.Acquire(ctx, 1); err != nil {
		return nil, fmt.Errorf("sqlstore: wait for a connection's turn: %w", err)
	}
	return func() { t.conns.Release(1) }, nil
}
