package sqlstore

import (
	"context"
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
// so it is built for that: outside any transaction, a conditional write (writeRateLog) that lands
// only if the key's times are still those update was given, and on PostgreSQL a write whose
// commit does not wait for the WAL flush (dialect.asyncCommit).
//
// Where the times come from: what this process last wrote for key (rateMemo), so that a key
// used again from the same replica costs one statement, not a read and a write. A key it does
// not remember is first written as one with no times: its row is then inserted by that one
// statement when it has none, as is the case of a key unused for the window (DropRateLogsBefore
// deletes those rows), which is every key's first request. At the spec's limits on PostgreSQL
// a first request was the slowest of all, most of the p99 of POST /instances (bench/README.md).
// When someone else wrote the key since (the condition fails, also for a stored row with times
// that this process does not remember), a read. A key updated by someone else
// between the read and the write is tried again, and after rateLogTries such races it is updated
// under its row's lock (lockedRateLog), where no race is lost. update may run more than once.
func (s *Store) UpdateRateLog(ctx context.Context, key string, now time.Time, update func([]time.Time) []time.Time) error {
	times, _ := s.rates.recall(key) // "" (no times) for a key it does not remember
	done, err := s.writeAndRemember(ctx, key, now, times, update)
	if err != nil {
		return fmt.Errorf("sqlstore: rate log: %w", err)
	}
	if done {
		return nil
	}
	for range rateLogTries {
		times, err := s.readRateLog(ctx, key)
		if err != nil {
			return fmt.Errorf("sqlstore: rate log: %w", err)
		}
		done, err := s.writeAndRemember(ctx, key, now, times, update)
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

// writeAndRemember is writeRateLog that remembers what it wrote (rateMemo), and forgets the
// key when the write did not land.
func (s *Store) writeAndRemember(ctx context.Context, key string, now time.Time, times string,
	update func([]time.Time) []time.Time) (bool, error) {
	next, done, err := s.queries.writeRateLog(ctx, key, now, times, update)
	if err != nil || !done {
		s.rates.forget(key)
		return false, err
	}
	s.rates.remember(key, next, now)
	return true, nil
}

// rateLogTries is how many times UpdateRateLog reads and tries the conditional write before it
// takes the key's row lock: a key raced that often is one many requests update at once, which
// the lock puts in line.
const rateLogTries = 2

// readRateLog reads key's times as stored (encodeRateTimes), "" for a key with none.
func (q queries) readRateLog(ctx context.Context, key string) (string, error) {
	var encoded string
	err := q.queryRow(ctx, `SELECT times FROM rate_logs WHERE key = ?`, key).Scan(&encoded)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	return encoded, nil
}

// writeRateLog writes update's result for key, and returns it, only if key's times are still
// encoded (a compare-and-set on the encoded times, which only grow or expire, so equal text is
// an unchanged window); done is false when another update came first.
//
// A missing row reads as no times: the insert stands for the write, and a row that another
// request inserted meanwhile holds times of its own, so the condition fails. A row dropped since
// encoded was read or remembered (DropRateLogsBefore) held only times older than the window,
// which update drops anyway, so the insert writes what it would have written over the row.
//
// The write's commit does not wait for the WAL flush on PostgreSQL (asyncCommit): a crash of
// the database may forget the last fraction of a second of requests, which only lets a client
// make a few more in that minute, and each request no longer waits for a disk flush. The
// server's other transactions keep their durability.
func (q queries) writeRateLog(ctx context.Context, key string, now time.Time, encoded string,
	update func([]time.Time) []time.Time) (next string, done bool, err error) {
	times, err := decodeRateTimes(encoded)
	if err != nil {
		return "", false, err
	}
	next = encodeRateTimes(update(times))
	res, err := q.exec(ctx, `INSERT INTO rate_logs (key, times, last_used) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET times = excluded.times, last_used = excluded.last_used
		WHERE rate_logs.times = ?`+q.d.asyncCommit, key, next, now, encoded)
	if err != nil {
		return "", false, err
	}
	n, err := res.RowsAffected()
	return next, err == nil && n == 1, err
}

// lockedRateLog is UpdateRateLog in a transaction that holds key's row locked (FOR UPDATE on
// PostgreSQL; SQLite has one writer), for a key that many requests update at once.
func (s *Store) lockedRateLog(ctx context.Context, key string, now time.Time, update func([]time.Time) []time.Time) error {
	var next string
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
		next = encodeRateTimes(update(times))
		_, err = q.exec(ctx, `UPDATE rate_logs SET times = ?, last_used = ? WHERE key = ?`, next, now, key)
		return err
	})
	if err == nil {
		s.rates.remember(key, next, now)
	}
	return err
}

// DropRateLogsBefore deletes the rate logs of the keys last used before t, and forgets what
// this process wrote to them.
func (s *Store) DropRateLogsBefore(ctx context.Context, t time.Time) error {
	s.rates.forgetBefore(t)
	if _, err := s.exec(ctx, `DELETE FROM rate_logs WHERE last_used < ?`, t); err != nil {
		return fmt.Errorf("sqlstore: drop rate logs: %w", err)
	}
	return nil
}

// rateMemo remembers, for each key this process updated, the times it last wrote, so that the
// next update of the key can write without reading first (UpdateRateLog). What it holds is only
// ever a guess: the write's condition checks it against the row, and a wrong guess costs the
// read it would have taken anyway. It holds the keys used within the window that
// DropRateLogsBefore keeps (the limiter drops the idle ones every sweepEvery calls), and at most
// maxRateMemoBytes of their times.
type rateMemo struct {
	mu    sync.Mutex
	logs  map[string]rememberedLog
	bytes int // of the keys and times held
}

// rememberedLog is what this process last wrote to one key's rate log.
type rememberedLog struct {
	times    string // as stored (encodeRateTimes)
	lastUsed time.Time
}

// maxRateMemoBytes bounds the keys and times remembered. A key holds up to its limit's times in
// a minute, 20 bytes each: 200 bytes for POST /instances, 2.4 KB for a read route at 120 a
// minute. Past the bound the memo starts again empty, which costs each key one read.
const maxRateMemoBytes = 4 << 20

func (m *rateMemo) recall(key string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.logs[key]
	return l.times, ok
}

func (m *rateMemo) remember(key, times string, lastUsed time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dropLocked(key)
	if m.logs == nil || m.bytes+len(key)+len(times) > maxRateMemoBytes {
		m.logs, m.bytes = map[string]rememberedLog{}, 0
	}
	m.logs[key] = rememberedLog{times: times, lastUsed: lastUsed}
	m.bytes += len(key) + len(times)
}

func (m *rateMemo) forget(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dropLocked(key)
}

// forgetBefore forgets the keys last used before t.
func (m *rateMemo) forgetBefore(t time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key, l := range m.logs {
		if l.lastUsed.Before(t) {
			m.dropLocked(key)
		}
	}
}

// dropLocked forgets key; m.mu is held.
func (m *rateMemo) dropLocked(key string) {
	if l, ok := m.logs[key]; ok {
		delete(m.logs, key)
		m.bytes -= len(key) + len(l.times)
	}
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
