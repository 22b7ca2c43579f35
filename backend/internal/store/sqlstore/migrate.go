package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store/migrations"
)

// migrate applies, in version order, each embedded migration of the dialect not yet recorded
// in schema_migrations.
func (s *Store) migrate(ctx context.Context) error {
	all, err := s.d.migrations()
	if err != nil {
		return fmt.Errorf("sqlstore: %w", err)
	}
	if err := applyMigrations(ctx, s.db, s.d, all); err != nil {
		return fmt.Errorf("sqlstore: %s: %w", s.d.name, err)
	}
	return nil
}

// applyMigrations brings db up to the last of all (the dialect's migrations in version order),
// after refusing a database that a newer binary migrated beyond all.
// Each migration commits together with its record, so a failure leaves the database at the
// last version that was applied whole, and the next Open resumes from there.
func applyMigrations(ctx context.Context, db *sql.DB, d *dialect, all []migrations.Migration) error {
	createTable := func(tx *sql.Tx) error { _, err := tx.ExecContext(ctx, d.migrationsTable); return err }
	if err := migrationStep(ctx, db, d, createTable); err != nil {
		return fmt.Errorf("migrations: create schema_migrations: %w", err)
	}
	refuseNewer := func(tx *sql.Tx) error {
		var latest int
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&latest); err != nil {
			return fmt.Errorf("migrations: read the database's version: %w", err)
		}
		return migrations.CheckNotNewer(latest, all)
	}
	if err := migrationStep(ctx, db, d, refuseNewer); err != nil {
		return err
	}
	for _, m := range all {
		if err := migrationStep(ctx, db, d, func(tx *sql.Tx) error { return applyMigration(ctx, tx, d, m) }); err != nil {
			return fmt.Errorf("migrations: %s: %w", m.Name, err)
		}
	}
	return nil
}

// migrationStep runs fn in a transaction that keeps other migrators out, and commits it when
// fn succeeds: on SQLite every transaction starts with BEGIN IMMEDIATE and so holds the write
// lock from its first statement; on PostgreSQL the step first takes the dialect's advisory
// lock, so two replicas starting at once queue there and the second then finds the first's
// migrations.
func migrationStep(ctx context.Context, db *sql.DB, d *dialect, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if d.migrationLock != "" {
		if _, err := tx.ExecContext(ctx, d.migrationLock); err != nil {
			return fmt.Errorf("migration lock: %w", err)
		}
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// applyMigration applies m unless it is recorded already, and records it. The check is inside
// the step's transaction: a migrator that waited for another one sees what that one recorded.
// Without arguments both drivers accept a text of several statements (pgx sends it over the
// simple protocol).
func applyMigration(ctx context.Context, tx *sql.Tx, d *dialect, m migrations.Migration) error {
	var n int
	err := tx.QueryRowContext(ctx, d.sql(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`), m.Version).Scan(&n)
	if err != nil || n > 0 {
		return err
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, d.sql(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`),
		d.args([]any{m.Version, m.Name, time.Now()})...)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}
