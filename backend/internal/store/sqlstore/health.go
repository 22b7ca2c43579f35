package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
)

// Ping checks that the database answers a query, writing nothing (the readiness probe). On
// SQLite it asks the read pool, so it never queues behind the writer's transactions.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	if err := s.probe.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("sqlstore: ping: %w", err)
	}
	return nil
}

// Pools are the connection pools of the store by name, for the metrics of each: "main" (every
// transaction and write) and, on SQLite, "reads".
func (s *Store) Pools() map[string]*sql.DB {
	return s.pools
}
