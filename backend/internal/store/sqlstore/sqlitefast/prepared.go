package sqlitefast

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache prepares each query text once on a pool and keeps the statement, so SQLite does not
// parse the same SQL again on every request. The texts are the store's constants (with at
// most a lock clause appended), so the cache stays small.
type stmtCache struct {
	db    *sql.DB
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, stmts: map[string]*sql.Stmt{}}
}

// get returns the prepared statement of query, preparing it the first time.
func (c *stmtCache) get(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.stmts[query]; ok {
		return st, nil
	}
	st, err := c.db.PrepareContext(ctx, query) //nolint:sqlclosecheck // kept in the cache, closed with the pool
	if err != nil {
		return nil, err
	}
	c.stmts[query] = st
	return st, nil
}

// Reads is the store's Querier outside transactions: reads (SELECT) through prepared
// statements of the read pool, everything else straight on the one writer connection.
// Transactions and writes are not prepared here: preparing needs a connection, and the writer's
// one connection may be held by the transaction that asks. Its statements are closed with the
// read pool.
type Reads struct {
	read  *stmtCache
	write *sql.DB
}

// NewReads runs reads on the pool reads and everything else on writer.
func NewReads(reads, writer *sql.DB) Reads {
	return Reads{read: newStmtCache(reads), write: writer}
}

// ExecContext runs a write on the writer connection.
func (p Reads) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return p.write.ExecContext(ctx, query, args...)
}

// QueryContext runs a read as a prepared statement of the read pool, anything else on the
// writer connection.
func (p Reads) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if !isRead(query) {
		return p.write.QueryContext(ctx, query, args...)
	}
	st, err := p.read.get(ctx, query) //nolint:sqlclosecheck // the cache owns it
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// QueryRowContext is QueryContext for one row.
func (p Reads) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if !isRead(query) {
		return p.write.QueryRowContext(ctx, query, args...)
	}
	st, err := p.read.get(ctx, query) //nolint:sqlclosecheck // the cache owns it
	if err != nil {
		return p.read.db.QueryRowContext(ctx, query, args...) // reports the same error through Scan
	}
	return st.QueryRowContext(ctx, args...)
}

// writerStmts are statements prepared on SQLite's one writer connection, for the transactions
// of the GroupCommitter. A statement cannot be prepared while a transaction holds that
// connection (preparing waits for a free one), so a query first seen in a transaction runs
// unprepared and is only noted; the committer prepares the noted ones between groups, when the
// connection is free, and later transactions run them through tx.StmtContext.
type writerStmts struct {
	db     *sql.DB
	mu     sync.Mutex
	stmts  map[string]*sql.Stmt
	wanted map[string]bool
}

func newWriterStmts(db *sql.DB) *writerStmts {
	return &writerStmts{db: db, stmts: map[string]*sql.Stmt{}, wanted: map[string]bool{}}
}

// get returns the prepared statement of query, or nil after noting it for prepareWanted.
func (w *writerStmts) get(query string) *sql.Stmt {
	w.mu.Lock()
	defer w.mu.Unlock()
	if st, ok := w.stmts[query]; ok {
		return st
	}
	w.wanted[query] = true
	return nil
}

// prepareWanted prepares the noted queries; called with no transaction open. A query that
// fails to prepare stays unprepared (running it reports the error).
func (w *writerStmts) prepareWanted(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for query := range w.wanted {
		if st, err := w.db.PrepareContext(ctx, query); err == nil { //nolint:sqlclosecheck // kept, closed by close
			w.stmts[query] = st
		}
		delete(w.wanted, query)
	}
}

// close closes every prepared statement.
func (w *writerStmts) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for query, st := range w.stmts {
		_ = st.Close()
		delete(w.stmts, query)
	}
}

// preparedTx is a transaction of the group committer that runs every query it can through a
// statement prepared on the writer connection. Its statements ignore the caller's cancellation:
// the transaction is shared by the whole group, and SQLite answers an interrupted write inside
// a transaction by rolling all of it back, so one client going away would fail every job of
// its group. A job that has started runs to its end, as the group committer promises.
type preparedTx struct {
	tx    *sql.Tx
	stmts *writerStmts
}

func (p preparedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ctx = context.WithoutCancel(ctx)
	if st := p.stmts.get(query); st != nil {
		return p.tx.StmtContext(ctx, st).ExecContext(ctx, args...) //nolint:sqlclosecheck // closed when the transaction ends
	}
	return p.tx.ExecContext(ctx, query, args...)
}

func (p preparedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx = context.WithoutCancel(ctx)
	if st := p.stmts.get(query); st != nil {
		return p.tx.StmtContext(ctx, st).QueryContext(ctx, args...) //nolint:sqlclosecheck // closed when the transaction ends
	}
	return p.tx.QueryContext(ctx, query, args...)
}

func (p preparedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	ctx = context.WithoutCancel(ctx)
	if st := p.stmts.get(query); st != nil {
		return p.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...) //nolint:sqlclosecheck // closed when the transaction ends
	}
	return p.tx.QueryRowContext(ctx, query, args...)
}
