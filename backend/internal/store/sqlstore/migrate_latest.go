package sqlstore

import "context"

// Latest is the highest version recorded in schema_migrations (0 for none), so the runner can
// refuse a database migrated by a newer binary.
func (s migrationStep) Latest(ctx context.Context) (int, error) {
	var v int
	err := s.tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v)
	return v, err
}
