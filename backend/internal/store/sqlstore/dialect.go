package sqlstore

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store/migrations"
)

// dialect is what differs between the databases; everything else is shared.
type dialect struct {
	// name is the migrations directory of the dialect.
	name string
	// migrations returns the dialect's embedded migrations in version order.
	migrations func() ([]migrations.Migration, error)
	// numbered asks for $1, $2... placeholders (PostgreSQL) instead of ? (SQLite).
	numbered bool
	// castLimits writes every "LIMIT ?" as "LIMIT CAST(? AS INTEGER)" (SQLite). SQLite (3.53,
	// which modernc.org/sqlite 1.59 embeds) plans a statement whose LIMIT is a bare parameter
	// for the value bound to it, and so marks the statement to be compiled again whenever that
	// parameter is bound, even to the same value: every run of every paged read and worker poll
	// was parsed and planned anew (the dispatcher's poll that finds nothing took 25-30 µs
	// instead of 6-7: BenchmarkSQLiteEmptyPoll). A parameter inside an expression is not taken
	// for a constant, and no plan of this package depends on the LIMIT's value.
	castLimits bool
	// seqColumn is the column that orders rows written in the same instant (events and
	// deliveries): SQLite's rowid, PostgreSQL's identity column seq.
	seqColumn string
	// lockPatience is how long a transaction tries to lock several accounts at once before it
	// waits in line for them (lockedList).
	lockPatience lockPatience
	// rowLocks enables the lock clauses and the account-first locking (see the package comment);
	// SQLite, which runs one writer at a time, needs neither.
	rowLocks bool
	// writableCTEs: INSERT and UPDATE may run inside WITH (PostgreSQL), so two writes of one
	// step are sent as one statement, one round trip.
	writableCTEs bool
	// asyncCommit, appended to a statement that writes rows and commits on its own, lets its
	// commit return before the WAL is flushed (PostgreSQL: synchronous_commit off for that
	// transaction alone, set as each row is returned, which is before the commit); empty on
	// SQLite. Only for rows whose last fraction of a second may be lost to a database crash
	// (the rate-limit windows).
	asyncCommit string
	// encodeTime turns a time argument into what the database stores.
	encodeTime func(time.Time) any
	// mapError turns the driver's errors the service must tell apart into the store's own.
	mapError func(error) error
	// retryable reports whether err aborted a transaction that may simply be run again.
	retryable func(error) bool
	// migrationLock, when set, is run first in every migration step to keep other processes out.
	migrationLock string
	// migrationsTable creates the table of applied migrations.
	migrationsTable string

	// rebound caches each query's text in this dialect, so a query is rebound once.
	rebound sync.Map
}

// seqToken stands in a query for the dialect's seqColumn.
const seqToken = "{seq}"

// castLimit is a query's "LIMIT ?" where the dialect casts its limits (castLimits).
const castLimit = "LIMIT CAST(? AS INTEGER)"

// sql returns query in this dialect: placeholders numbered and limits cast if asked, {seq}
// replaced. The result is cached, keyed by the text, which is always one of the package's
// constants (with at most a lock clause appended) or a list or batch statement of one of a
// bounded number of rows (an id list of a page, a batch of deploys), so the cache stays small.
func (d *dialect) sql(query string) string {
	if v, ok := d.rebound.Load(query); ok {
		return v.(string)
	}
	out := strings.ReplaceAll(query, seqToken, d.seqColumn)
	if d.castLimits {
		out = strings.ReplaceAll(out, "LIMIT ?", castLimit)
	}
	if d.numbered {
		out = numberPlaceholders(out)
	}
	d.rebound.Store(query, out)
	return out
}

// numberPlaceholders replaces each ? with $1, $2... in order. No query of this package has a ?
// inside a string literal.
func numberPlaceholders(query string) string {
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	for _, r := range query {
		if r != '?' {
			b.WriteRune(r)
			continue
		}
		n++
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

// args encodes the time arguments of a query in place; every other value passes as it is.
func (d *dialect) args(args []any) []any {
	for i, a := range args {
		if t, ok := a.(time.Time); ok {
			args[i] = d.encodeTime(t)
		}
	}
	return args
}

// newLocks returns the lock bookkeeping of a new transaction; nil where rows are not locked.
func (d *dialect) newLocks() *txLocks {
	if !d.rowLocks {
		return nil
	}
	return &txLocks{accounts: map[int64]bool{}, patience: d.lockPatience}
}
