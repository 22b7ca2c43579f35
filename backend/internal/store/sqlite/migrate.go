package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store/migrations"
)

// migrate applies, in version order, each embedded migration not yet recorded in
// schema_migrations; each one commits together with its record.
func (s *Store) migrate(ctx context.Context) error {
	all, err := migrations.SQLite()
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	if err := migrations.Apply(ctx, migrationTarget{db: s.db}, all); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	return nil
}

// migrationTarget runs the migration steps. Every transaction of this store starts with BEGIN
// IMMEDIATE, so a step holds the write lock from its first statement and two processes opening
// one file never interleave their steps.
type migrationTarget struct{ db *sql.DB }

func (t migrationTarget) Begin(ctx context.Context) (migrations.Step, error) {
	tx, err := t.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	return migrationStep{tx: tx}, nil
}

type migrationStep struct{ tx *sql.Tx }

func (s migrationStep) EnsureTable(ctx context.Context) error {
	_, err := s.tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TEXT NOT NULL)`)
	return err
}

func (s migrationStep) Applied(ctx context.Context, version int) (bool, error) {
	var n int
	if err := s.tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM schema_migrations WHERE version = ?", version).Scan(&n); err != nil {
		return false, err
	}
	return n > 0, nil
}

func (s migrationStep) Exec(ctx context.Context, text string) error {
	_, err := s.tx.ExecContext(ctx, text)
	return err
}

func (s migrationStep) Record(ctx context.Context, m migrations.Migration) error {
	_, err := s.tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
		m.Version, m.Name, formatTime(time.Now()))
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

func (s migrationStep) Commit(context.Context) error { return s.tx.Commit() }

func (s migrationStep) Rollback(context.Context) error { return s.tx.Rollback() }
