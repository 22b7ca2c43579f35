package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store/migrations"
)

// migrate applies, in version order, each embedded migration of the dialect not yet recorded
// in schema_migrations; each one commits together with its record.
func (s *Store) migrate(ctx context.Context) error {
	all, err := s.d.migrations()
	if err != nil {
		return fmt.Errorf("sqlstore: %w", err)
	}
	if err := migrations.Apply(ctx, migrationTarget{db: s.db, d: s.d}, all); err != nil {
		return fmt.Errorf("sqlstore: %s: %w", s.d.name, err)
	}
	return nil
}

// migrationTarget runs each migration step in a transaction that keeps other migrators out:
// on SQLite every transaction starts with BEGIN IMMEDIATE and so holds the write lock from its
// first statement; on PostgreSQL the step first takes the dialect's advisory lock, so two
// replicas starting at once queue there and the second then finds the first's migrations.
type migrationTarget struct {
	db *sql.DB
	d  *dialect
}

func (t migrationTarget) Begin(ctx context.Context) (migrations.Step, error) {
	tx, err := t.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	if t.d.migrationLock != "" {
		if _, err := tx.ExecContext(ctx, t.d.migrationLock); err != nil {
			_ = tx.Rollback()
			return nil, fmt.Errorf("migration lock: %w", err)
		}
	}
	return migrationStep{tx: tx, d: t.d}, nil
}

type migrationStep struct {
	tx *sql.Tx
	d  *dialect
}

func (s migrationStep) EnsureTable(ctx context.Context) error {
	_, err := s.tx.ExecContext(ctx, s.d.migrationsTable)
	return err
}

func (s migrationStep) Applied(ctx context.Context, version int) (bool, error) {
	var n int
	err := s.tx.QueryRowContext(ctx, s.d.sql(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`), version).Scan(&n)
	return n > 0, err
}

// Exec runs a migration's text. Without arguments both drivers accept several statements at
// once (pgx sends it over the simple protocol).
func (s migrationStep) Exec(ctx context.Context, text string) error {
	_, err := s.tx.ExecContext(ctx, text)
	return err
}

func (s migrationStep) Record(ctx context.Context, m migrations.Migration) error {
	_, err := s.tx.ExecContext(ctx, s.d.sql(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`),
		s.d.args([]any{m.Version, m.Name, time.Now()})...)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

func (s migrationStep) Commit(context.Context) error { return s.tx.Commit() }

func (s migrationStep) Rollback(context.Context) error { return s.tx.Rollback() }
