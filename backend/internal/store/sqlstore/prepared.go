package sqlstore

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache prepares each query text once on a pool and keeps the statement, so SQLite does not
// parse the same SQL again on every request. The texts are the package's constants (with at
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
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.stmts[query] = st
	return st, nil
}

// preparedReads is SQLite's querier outside transactions: reads (SELECT) through prepared
// statements of the read pool, everything else straight on the one writer connection.
// Transactions and writes are not prepared here: preparing needs a connection, and the writer's
// one connection may be held by the transaction that asks.
type preparedReads struct {
	read  *stmtCache
	write *sql.DB
}

func (p preparedReads) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return p.write.ExecContext(ctx, query, args...)
}

func (p preparedReads) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if !isRead(query) {
		return p.write.QueryContext(ctx, query, args...)
	}
	st, err := p.read.get(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (p preparedReads) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if !isRead(query) {
		return p.write.QueryRowContext(ctx, query, args...)
	}
	st, err := p.read.get(ctx, query)
	if err != nil {
		return p.read.db.QueryRowContext(ctx, query, args...) // reports the same error through Scan
	}
	return st.QueryRowContext(ctx, args...)
}
