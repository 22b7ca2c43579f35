package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// UpdateRateLog calls update with the times recorded for key and stores what it returns, as one
// step: no other update of key, from any replica sharing the database, comes between the read
// and the write, so every request of the key counts once. It is what the API's limiter keeps its
// windows in on PostgreSQL (api.RateWindows), and every request that a limit covers comes here,
// so it is built for that: outside any transaction, a conditional write (writeRateLog) of the
// times this process last wrote for key (rateMemo), which is one statement whenever no other
// replica wrote since; else a read and a conditional write, tried again after a lost race; and
// after rateLogTries lost races, the update under the row's lock (lockedRateLog), where no race
// is lost. On PostgreSQL the writes' commits do not wait for the WAL flush (dialect.asyncCommit).
// update may run more than once.
func (s *Store) UpdateRateLog(ctx context.Context, key string, now time.Time, update func([]time.Time) []time.Time) error {
	written, err := s.updateRateLog(ctx, key, now, update)
	if err != nil {
		return fmt.Errorf("sqlstore: rate log: %w", err)
	}
	s.rateMemo.remember(key, written, now)
	return nil
}

// updateRateLog is UpdateRateLog; it returns the times written, encoded.
func (s *Store) updateRateLog(ctx context.Context, key string, now time.Time, update func([]time.Time) []time.Time) (string, error) {
	written, ok, err := s.queries.writeRateLog(ctx, key, now, s.rateMemo.recall(key), update)
	if err != nil || ok {
		return written, err
	}
	for range rateLogTries {
		var stored string
		err := s.queryRow(ctx, `SELECT times FROM rate_logs WHERE key = ?`, key).Scan(&stored)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return "", err
		}
		written, ok, err := s.queries.writeRateLog(ctx, key, now, stored, update)
		if err != nil || ok {
			return written, err
		}
	}
	return s.lockedRateLog(ctx, key, now, update)
}

// rateLogTries is how many times UpdateRateLog reads a key and tries the conditional write
// before it takes the key's row lock: a key raced that often is one many requests update at
// once, which the lock puts in line.
const rateLogTries = 2

// writeRateLog writes update's result for the times old (encoded; "" for none, and for a key
// with no row) only if key's stored times are still old, a compare-and-set on the encoded
// times, which only grow or expire, so equal text is an unchanged window. It returns what it
// wrote and whether it did: false when the stored times are not old (another update came first,
// or old was a stale guess).
//
// The write's commit does not wait for the WAL flush on PostgreSQL (asyncCommit): a crash of
// the database may forget the last fraction of a second of requests, which only lets a client
// make a few more in that minute, and each request no longer waits for a disk flush. The
// server's other transactions keep their durability.
func (q queries) writeRateLog(ctx context.Context, key string, now time.Time, old string, update func([]time.Time) []time.Time) (string, bool, error) {
	times, err := decodeRateTimes(old)
	if err != nil {
		return "", false, err
	}
	next := encodeRateTimes(update(times))
	var res sql.Result
	if old == "" {
		// No row reads as no times: the insert stands for the write, and a row that another
		// request inserted meanwhile holds times of its own, so the condition fails.
		res, err = q.exec(ctx, `INSERT INTO rate_logs (key, times, last_used) VALUES (?, ?, ?)
			ON CONFLICT (key) DO UPDATE SET times = excluded.times, last_used = excluded.last_used
			WHERE rate_logs.times = ''`+q.d.asyncCommit, key, next, now)
	} else {
		res, err = q.exec(ctx, `UPDATE rate_logs SET times = ?, last_used = ? WHERE key = ? AND times = ?`+
			q.d.asyncCommit, next, now, key, old)
	}
	if err != nil {
		return "", false, err
	}
	n, err := res.RowsAffected()
	return next, n == 1, err
}

// rateMemo remembers the times this process last wrote for each key: its guess of what the row
// holds, right unless another replica wrote the key since (then the write misses and
// UpdateRateLog reads the row). DropRateLogsBefore forgets the keys the table forgets, so it
// holds the keys used in the last minute. The zero value is ready to use.
type rateMemo struct {
	mu   sync.Mutex
	keys map[string]rateWritten
}

// rateWritten is what a process last wrote for a key, and when.
type rateWritten struct {
	times string
	at    time.Time
}

// recall returns the times last written for key; "" when none are remembered.
func (m *rateMemo) recall(key string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.keys[key].times
}

// remember notes that times were written for key at now.
func (m *rateMemo) remember(key, times string, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.keys == nil {
		m.keys = map[string]rateWritten{}
	}
	m.keys[key] = rateWritten{times: times, at: now}
}

// forget drops the keys last written before t.
func (m *rateMemo) forget(t time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, w := range m.keys {
		if w.at.Before(t) {
			delete(m.keys, k)
		}
	}
}

// lockedRateLog is UpdateRateLog in a transaction that holds key's row locked (FOR UPDATE on
// PostgreSQL; SQLite has one writer), for a key that many requests update at once.
func (s *Store) lockedRateLog(ctx context.Context, key string, now time.Time, update func([]time.Time) []time.Time) (string, error) {
	var written string
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
		written = encodeRateTimes(update(times))
		_, err = q.exec(ctx, `UPDATE rate_logs SET times = ?, last_used = ? WHERE key = ?`, written, now, key)
		return err
	})
	return written, err
}

// DropRateLogsBefore deletes the rate logs of the keys last used before t.
func (s *Store) DropRateLogsBefore(ctx context.Context, t time.Time) error {
	s.rateMemo.forget(t)
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
