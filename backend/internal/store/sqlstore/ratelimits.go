package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// UpdateRateLog calls update with the times recorded for key and stores what it returns, as one
// step: no other update of key, from any replica sharing the database, comes between the read
// and the write, so every request of the key counts once. It is what the API's limiter keeps its
// windows in on PostgreSQL (api.RateWindows), and every request that a limit covers comes here,
// so it is built for that: two statements outside any transaction, a read and a conditional
// write (tryRateLog), and on PostgreSQL a write whose commit does not wait for the WAL flush
// (dialect.asyncCommit). A key updated by someone else between the two is tried again, and
// after rateLogTries such races it is updated under its row's lock (lockedRateLog), where no
// race is lost. update may run more than once.
func (s *Store) UpdateRateLog(ctx context.Context, key string, now time.Time, update func([]time.Time) []time.Time) error {
	for range rateLogTries {
		done, err := s.queries.tryRateLog(ctx, key, now, update)
		if err != nil {
			return fmt.Errorf("sqlstore: rate log: %w", err)
		}
		if done {
			return nil
		}
	}
	if err := s.lockedRateLog(ctx, key, now, update); err != nil {
		return fmt.Errorf("sqlstore: rate log: %w", err)
	}
	return nil
}

// rateLogTries is how many times UpdateRateLog tries the conditional write before it takes the
// key's row lock: a key raced that often is one many requests update at once, which the lock
// puts in line.
const rateLogTries = 2

// tryRateLog reads key's times and writes update's result only if they are still what it read
// (a compare-and-set on the encoded times, which only grow or expire, so equal text is an
// unchanged window); false when another update came first.
//
// The write's commit does not wait for the WAL flush on PostgreSQL (asyncCommit): a crash of
// the database may forget the last fraction of a second of requests, which only lets a client
// make a few more in that minute, and each request no longer waits for a disk flush. The
// server's other transactions keep their durability.
func (q queries) tryRateLog(ctx context.Context, key string, now time.Time, update func([]time.Time) []time.Time) (bool, error) {
	var encoded string
	err := q.queryRow(ctx, `SELECT times FROM rate_logs WHERE key = ?`, key).Scan(&encoded)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return false, err
	}
	times, err := decodeRateTimes(encoded)
	if err != nil {
		return false, err
	}
	// A missing row reads as no times: the insert stands for the write, and a row that another
	// request inserted meanwhile holds times of its own, so the condition fails.
	res, err := q.exec(ctx, `INSERT INTO rate_logs (key, times, last_used) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET times = excluded.times, last_used = excluded.last_used
		WHERE rate_logs.times = ?`+q.d.asyncCommit, key, encodeRateTimes(update(times)), now, encoded)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// lockedRateLog is UpdateRateLog in a transaction that holds key's row locked (FOR UPDATE on
// PostgreSQL; SQLite has one writer), for a key that many requests update at once.
func (s *Store) lockedRateLog(ctx context.Context, key string, now time.Time, update func([]time.Time) []time.Time) error {
	return s.WithTx(ctx, func(tx store.Tx) error {
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
