package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// genericPlans runs a statement that commits on its own on PostgreSQL under the generic plan
// of its prepared statement. pgx prepares each statement once per connection, but under
// PostgreSQL's default plan_cache_mode (auto) the server kept planning PlaceOrder's statement
// (placeOrder) afresh for each execution's values: its estimate of the generic plan never came
// below the custom plans', though both are the same lookups by key. That planning (and the
// copying of the query tree it starts with) was a large part of PostgreSQL's CPU per order
// (bench/README.md, issue 44). The setting applies to this statement only: the workers' lists
// (a status among several, a LIMIT) are left to PostgreSQL's own choice, which sees the values.
type genericPlans struct {
	db    *sql.DB
	tell  *changeTeller
	turns *turns // a statement waits for a turn as a transaction does (turns.takeTx)
}

// useGenericPlan asks for generic plans until the end of the current transaction. Sent with the
// statement in one pipeline, it and the statement run in the same implicit transaction, which
// the pipeline's Sync ends (committing, or rolling back on an error): the setting is undone
// either way, so the connection goes back to the pool as it came. (SET LOCAL would do the same
// but logs a warning outside BEGIN on every order.)
const useGenericPlan = `SELECT set_config('plan_cache_mode', 'force_generic_plan', true)`

// scanRow runs query (in PostgreSQL's form: numbered placeholders, encoded args) alone under
// its generic plan and scans its one row into dest: one round trip, as a plain query is. It tells
// the read cache of the commit as autocommits does.
func (g *genericPlans) scanRow(ctx context.Context, query string, args []any, dest []any) error {
	release, err := g.turns.takeTx(ctx)
	if err != nil {
		return err
	}
	defer release()
	conn, err := g.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close() }()
	if g.tell.changes(query) {
		defer g.tell.committed() // even after an error: the commit may have happened
	}
	return conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("sqlstore: generic plan: connection %T is not pgx's", driverConn)
		}
		return pipelineGeneric(ctx, c.Conn(), query, args, dest)
	})
}

// pipelineGeneric sends useGenericPlan and query in one pipeline on c and scans query's row.
func pipelineGeneric(ctx context.Context, c *pgx.Conn, query string, args []any, dest []any) error {
	var b pgx.Batch
	b.Queue(useGenericPlan)
	b.Queue(query, args...)
	res := c.SendBatch(ctx, &b)
	_, err := res.Exec()
	if err == nil {
		err = res.QueryRow().Scan(dest...)
	}
	if closeErr := res.Close(); err == nil {
		err = closeErr
	}
	return err
}
