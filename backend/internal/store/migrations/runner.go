package migrations

import (
	"context"
	"errors"
	"fmt"
)

// Target is a database the runner migrates; each store implements it over its own driver.
type Target interface {
	// Begin starts the transaction of one step. It must keep every other migrator of the same
	// database out until the step ends, so two processes starting at once never apply a
	// migration twice: SQLite's BEGIN IMMEDIATE does, PostgreSQL takes an advisory lock.
	Begin(ctx context.Context) (Step, error)
}

// Step is one transaction of the runner.
type Step interface {
	// EnsureTable creates schema_migrations if it does not exist.
	EnsureTable(ctx context.Context) error
	// Applied reports whether version is recorded in schema_migrations.
	Applied(ctx context.Context, version int) (bool, error)
	// Latest is the highest version recorded in schema_migrations; 0 for none.
	Latest(ctx context.Context) (int, error)
	// Exec runs the text of a migration, which may hold several statements.
	Exec(ctx context.Context, sql string) error
	// Record records m in schema_migrations.
	Record(ctx context.Context, m Migration) error
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// Apply brings the database up to the last of all (one dialect's migrations in version order).
// Each migration commits together with its record, so a failure leaves the database at the
// last version that was applied whole, and the next Apply resumes from there.
func Apply(ctx context.Context, t Target, all []Migration) error {
	if err := inStep(ctx, t, func(s Step) error { return s.EnsureTable(ctx) }); err != nil {
		return fmt.Errorf("migrations: create schema_migrations: %w", err)
	}
	if err := inStep(ctx, t, func(s Step) error { return refuseNewer(ctx, s, all) }); err != nil {
		return err
	}
	for _, m := range all {
		if err := inStep(ctx, t, func(s Step) error { return applyOne(ctx, s, m) }); err != nil {
			return fmt.Errorf("migrations: %s: %w", m.Name, err)
		}
	}
	return nil
}

// ErrNewerDatabase is returned by Apply for a database migrated by a newer binary: its schema has
// versions this binary does not know, and writing to it could corrupt what they added.
var ErrNewerDatabase = errors.New("the database was migrated by a newer resellerd")

// refuseNewer fails with ErrNewerDatabase, naming both versions, when the database records a
// version above the last of all.
func refuseNewer(ctx context.Context, s Step, all []Migration) error {
	latest, err := s.Latest(ctx)
	if err != nil {
		return fmt.Errorf("migrations: read the database's version: %w", err)
	}
	known := 0
	if len(all) > 0 {
		known = all[len(all)-1].Version
	}
	if latest > known {
		return fmt.Errorf("migrations: %w: the database is at schema version %d, this binary knows versions up to %d; "+
			"run a resellerd at least as new as the one that migrated it", ErrNewerDatabase, latest, known)
	}
	return nil
}

// applyOne applies m unless it is recorded already. The check is inside the step's
// transaction: a migrator that waited for another one sees what that one recorded.
func applyOne(ctx context.Context, s Step, m Migration) error {
	done, err := s.Applied(ctx, m.Version)
	if err != nil || done {
		return err
	}
	if err := s.Exec(ctx, m.SQL); err != nil {
		return err
	}
	return s.Record(ctx, m)
}

// inStep runs fn in one step and commits it when fn succeeds.
func inStep(ctx context.Context, t Target, fn func(Step) error) error {
	s, err := t.Begin(ctx)
	if err != nil {
		return err
	}
	if err := fn(s); err != nil {
		_ = s.Rollback(ctx)
		return err
	}
	return s.Commit(ctx)
}
