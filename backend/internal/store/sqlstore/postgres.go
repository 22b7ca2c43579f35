package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/migrations"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore/pgchanges"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore/readcache"
)

// PostgreSQL error codes the store tells apart.
const (
	codeUniqueViolation      = "23505"
	codeForeignKeyViolation  = "23503"
	codeSerializationFailure = "40001"
	codeDeadlockDetected     = "40P01"
)

// migrationLock is the key of the advisory lock that serialises migrators. Advisory locks are
// per database, so this only keeps out other resellerd processes migrating the same database.
// The value is arbitrary; it spells "reseller" in ASCII.
const migrationLock int64 = 0x72657365_6c6c6572

// newPostgresDialect is PostgreSQL: $N placeholders, row locks, times as timestamptz (UTC, to
// the microsecond). The migration lock is transaction-scoped, so a migrator that dies never
// leaves it held.
func newPostgresDialect() *dialect {
	return &dialect{
		name:          migrations.DialectPostgres,
		migrations:    migrations.Postgres,
		numbered:      true,
		seqColumn:     "seq",
		rowLocks:      true,
		lockPatience:  defaultLockPatience,
		writableCTEs:  true,
		asyncCommit:   ` RETURNING set_config('synchronous_commit', 'off', true)`,
		encodeTime:    func(t time.Time) any { return t.UTC() },
		mapError:      postgresError,
		retryable:     postgresRetryable,
		migrationLock: fmt.Sprintf(`SELECT pg_advisory_xact_lock(%d)`, migrationLock),
		migrationsTable: `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INTEGER PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at TIMESTAMPTZ NOT NULL)`,
	}
}

// OpenPostgres connects to the database at url (postgres:// or postgresql://) and applies
// every pending migration. Several processes may open one database at once: the migrations
// are serialised by an advisory lock.
func OpenPostgres(ctx context.Context, url string, opts ...Option) (*Store, error) {
	// pgxpool's parser, so the URL's pool_* parameters size database/sql's pool; every
	// connection is kept open when idle, as pgxpool did. Without pool_max_conns the pool holds
	// defaultPoolSize connections.
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse URL: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = defaultPoolSize(runtime.GOMAXPROCS(0))
	}
	db := stdlib.OpenDB(*cfg.ConnConfig)
	db.SetMaxOpenConns(int(cfg.MaxConns))
	db.SetMaxIdleConns(int(cfg.MaxConns))
	db.SetConnMaxLifetime(cfg.MaxConnLifetime)
	db.SetConnMaxIdleTime(cfg.MaxConnIdleTime)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	o, d := collect(opts), newPostgresDialect()
	changes := pgchanges.Start(ctx, cfg.ConnConfig.Copy(), o.log)
	cache, tell := readcache.New[cacheKey](changes), &changeTeller{committed: changes.Changed, committedAccounts: changes.ChangedAccounts}
	turns := newTurns(cfg.MaxConns)
	groups := newOrderGroups(db, tell, turns)
	return open(ctx, &Store{db: db, pools: map[string]*sql.DB{"main": db}, probe: db,
		tx:    plainTx{db: db, d: d, hook: o.hook, keys: o.keys, tell: tell, turns: turns},
		cache: cache, closers: []func() error{groups.Close, cache.Close}, changes: changes.Version,
		queries: queries{q: autocommits{DB: db, tell: tell, turns: turns}, d: d, hook: o.hook, keys: o.keys,
			generic: &genericPlans{db: db, tell: tell, turns: turns}, groups: groups}})
}

// defaultPoolSize is the pool of a process on procs CPUs when the URL does not set
// pool_max_conns: poolPerProc connections a CPU, from minPool to maxPool. Every user of the pool
// waits for its turn in one FIFO line before it asks for a connection (turns.go), so the pool
// need not hold every request in flight, as it had to when database/sql handed a freed
// connection to a random waiter; it needs enough connections to keep the database's CPUs busy
// while some of them wait for a WAL flush. More only add backends that compete for the same
// CPUs and lengthen the queue on an account's row lock: on 2 CPUs 8 connections took about a
// fifth more orders a second than 31 at the spec's limits, with a p99 a third shorter, and one
// account's orders twice as fast (bench/README.md has the figures). A database on other CPUs
// than resellerd's wants pool_max_conns sized to its own. maxPool keeps three replicas, each
// with its pool and the change watcher's connection (pgchanges), within the 97 connections
// PostgreSQL's defaults leave to other users than the superuser (max_connections 100, 3
// reserved).
func defaultPoolSize(procs int) int32 {
	return int32(min(maxPool, max(minPool, poolPerProc*procs)))
}

// The default pool: see defaultPoolSize.
const (
	poolPerProc = 4
	minPool     = 8
	maxPool     = 31
)

// postgresError maps PostgreSQL's constraint violations to the store's errors.
func postgresError(err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err
	}
	switch pe.Code {
	case codeUniqueViolation:
		return fmt.Errorf("%w: %w", store.ErrConflict, err)
	case codeForeignKeyViolation:
		return fmt.Errorf("%w: %w", store.ErrNotFound, err)
	}
	return err
}

// postgresRetryable reports whether err is a deadlock or a serialization failure.
func postgresRetryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == codeDeadlockDetected || pe.Code == codeSerializationFailure)
}
