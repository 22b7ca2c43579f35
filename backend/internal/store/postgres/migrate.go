package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store/migrations"
)

// migrationLock is the key of the advisory lock that serialises migrators. Advisory locks are
// per database, so this only keeps out other resellerd processes migrating the same database.
// The value is arbitrary; it spells "reseller" in ASCII.
const migrationLock int64 = 0x72657365_6c6c6572

// migrate applies, in version order, each embedded migration not yet recorded in
// schema_migrations; each one commits together with its record.
func (s *Store) migrate(ctx context.Context) error {
	all, err := migrations.Postgres()
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if err := migrations.Apply(ctx, migrationTarget{pool: s.pool}, all); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}

// migrationTarget runs each migration step in a transaction that first takes the advisory
// lock: two replicas starting at once queue there, and the second then finds the first's
// migrations recorded. pg_advisory_xact_lock ends with the transaction, so a migrator that dies
// never leaves the lock held.
type migrationTarget struct{ pool *pgxpool.Pool }

func (t migrationTarget) Begin(ctx context.Context) (migrations.Step, error) {
	tx, err := t.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
		_ = tx.Rollback(ctx)
		return nil, fmt.Errorf("migration lock: %w", err)
	}
	return migrationStep{tx: tx}, nil
}

type migrationStep struct{ tx pgx.Tx }

func (s migrationStep) EnsureTable(ctx context.Context) error {
	_, err := s.tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TIMESTAMPTZ NOT NULL)`)
	return err
}

func (s migrationStep) Applied(ctx context.Context, version int) (bool, error) {
	var done bool
	err := s.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, version).Scan(&done)
	return done, err
}

// Exec runs a migration's text. Without arguments pgx sends it over the simple protocol, which
// accepts several statements at once.
func (s migrationStep) Exec(ctx context.Context, text string) error {
	_, err := s.tx.Exec(ctx, text)
	return err
}

func (s migrationStep) Record(ctx context.Context, m migrations.Migration) error {
	_, err := s.tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
		m.Version, m.Name, time.Now().UTC())
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

func (s migrationStep) Commit(ctx context.Context) error { return s.tx.Commit(ctx) }

func (s migrationStep) Rollback(ctx context.Context) error { return s.tx.Rollback(ctx) }
