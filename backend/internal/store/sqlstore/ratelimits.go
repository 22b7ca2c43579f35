package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// UpdateRateLog calls update with the times recorded for key and stores what it returns, in one
// transaction that holds the key's row locked (FOR UPDATE on PostgreSQL; SQLite has one writer),
// so replicas sharing the database count every request of the key once. It is what the API's
// limiter keeps its windows in (api.RateWindows); update may run again when the transaction is
// retried.
func (s *Store) UpdateRateLog(ctx context.Context, key string, now time.Time, update func([]time.Time) []time.Time) error {
	err := s.WithTx(ctx, func(tx store.Tx) error {
		q := tx.(queries) // WithTx always passes the store's own queries
		if _, err := q.exec(ctx, `INSERT INTO rate_logs (key, times, last_used) VALUES (?, '', ?)
			ON CONFLICT (key) DO NOTHING`, key, now); err != nil {
			return err
		}
		var encoded string
		if err := q.queryRow(ctx, `SELECT times FROM rate_logs WHERE key = ?`+q.rowLock(forUpdate), key).Scan(&encoded); err != nil {
			return err
		}
		times, err := decodeRateTimes(encoded)
		if err != nil {
			return err
		}
		_, err = q.exec(ctx, `UPDATE rate_logs SET times = ?, last_used = ? WHERE key = ?`,
			encodeRateTimes(update(times)), now, key)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlstore: rate log: %w", err)
	}
	return nil
}

// DropRateLogsBefore deletes the rate logs of the keys last used before t.
func (s *Store) DropRateLogsBefore(ctx context.Context, t time.Time) error {
	if _, err := s.exec(ctx, `DELETE FROM rate_logs WHERE last_used < ?`, t); err != nil {
		return fmt.Errorf("sqlstore: drop rate logs: %w", err)
	}
	return nil
}

func encodeRateTimes(times []time.Time) string {
	parts := make([]string, len(times))
	for i, t := range times {
		parts[i] = strconv.FormatInt(t.UnixNano(), 10)
	}
	return strings.Join(parts, ",")
}

func decodeRateTimes(s string) ([]time.Time, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	times := make([]time.Time, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("malformed time %q: %w", p, err)
		}
		times[i] = time.Unix(0, n)
	}
	return times, nil
}
