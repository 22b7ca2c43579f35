package sqlstore

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// TestRateLogCountsEveryRequestOnce races many updates of one key, on PostgreSQL from two
// replicas of one database: every update's time must be in the window at the end. An update
// that wrote over another's (a read and a write with another's write between them) loses a
// time, which would let a client past its limit.
func TestRateLogCountsEveryRequestOnce(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		s := mustOpen(t, OpenSQLite, filepath.Join(t.TempDir(), "r.db"))
		raceRateLog(t, s, s)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		s, url := openFresh(t)
		raceRateLog(t, s, openURL(t, url))
	})
}

// raceRateLog sends 8 writers of 25 updates each at one key, alternately through a and b, and
// checks that the window holds all 200 times.
func raceRateLog(t *testing.T, a, b *Store) {
	ctx := context.Background()
	const writers, each = 8, 25
	base := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		s := a
		if w%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				stamp := base.Add(time.Duration(w*each+i) * time.Microsecond)
				if err := s.UpdateRateLog(ctx, "k", stamp, func(times []time.Time) []time.Time {
					return append(times, stamp)
				}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var got []time.Time
	if err := a.UpdateRateLog(ctx, "k", base, func(times []time.Time) []time.Time {
		got = times
		return times
	}); err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for _, tm := range got {
		seen[tm.UnixNano()] = true
	}
	if len(got) != writers*each || len(seen) != writers*each {
		t.Fatalf("the window holds %d times (%d distinct) after %d updates: updates were lost", len(got), len(seen), writers*each)
	}
	// The update under the row's lock, which a key raced often enough takes, builds on the same
	// window (the race above may or may not have reached it).
	if err := a.lockedRateLog(ctx, "k", base, func(times []time.Time) []time.Time {
		return append(times, base.Add(-time.Microsecond))
	}); err != nil {
		t.Fatal(err)
	}
	if err := a.UpdateRateLog(ctx, "k", base, func(times []time.Time) []time.Time {
		got = times
		return times
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != writers*each+1 {
		t.Fatalf("after the locked update the window holds %d times, want %d", len(got), writers*each+1)
	}
}

// TestRateLogWritesOverWhatItRemembers: a key updated again through the same store is written
// without being read (one statement a request), over the times the store remembers writing, and
// a key it does not remember is inserted unread when it has no row; a write by another replica
// in between (or a row the store does not remember) makes that write miss, and the update then
// reads what the other wrote, so its time still counts; a dropped log is forgotten.
func TestRateLogWritesOverWhatItRemembers(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "r.db")
		var reads rateLogReads
		a := mustOpen(t, OpenSQLite, path, WithReadHook(reads.hook))
		checkRememberedRateLog(t, a, mustOpen(t, OpenSQLite, path), &reads)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		_, url := openFresh(t)
		var reads rateLogReads
		a := mustOpen(t, OpenPostgres, url, WithReadHook(reads.hook))
		checkRememberedRateLog(t, a, openURL(t, url), &reads)
	})
}

// rateLogReads counts a store's reads of rate_logs.
type rateLogReads struct{ n atomic.Int64 }

func (r *rateLogReads) hook(query string, _ int) {
	if strings.Contains(query, "FROM rate_logs") {
		r.n.Add(1)
	}
}

// checkRememberedRateLog updates one key through a (whose reads of rate_logs are counted) and
// b, checking after each update how many times a has read and what the window holds.
func checkRememberedRateLog(t *testing.T, a, b *Store, reads *rateLogReads) {
	ctx := context.Background()
	base := time.Now()
	var window []time.Time
	add := func(s *Store, i int) {
		t.Helper()
		if err := s.UpdateRateLog(ctx, "k", base.Add(time.Duration(i)*time.Second), func(times []time.Time) []time.Time {
			window = append(slices.Clone(times), base.Add(time.Duration(i)*time.Millisecond))
			return window
		}); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name      string
		store     *Store
		wantReads int64 // a's reads of rate_logs so far
		wantTimes int   // in the window after the step
	}{
		{"first update through a: nothing remembered, the row inserted as new, unread", a, 0, 1},
		{"second through a: written over what a wrote, unread", a, 0, 2},
		{"third through a: unread", a, 0, 3},
		{"through b, another replica, which remembers nothing: the insert misses, it reads", b, 0, 4},
		{"through a again: its memory is stale, the write misses, it reads", a, 1, 5},
		{"through a once more: unread", a, 1, 6},
	}
	for i, st := range steps {
		add(st.store, i)
		if got := reads.n.Load(); got != st.wantReads {
			t.Fatalf("%s: a read rate_logs %d times, want %d", st.name, got, st.wantReads)
		}
		if len(window) != st.wantTimes {
			t.Fatalf("%s: the window holds %d times, want %d: an update was lost", st.name, len(window), st.wantTimes)
		}
	}
	// Dropping the idle logs forgets them: the next update inserts the row again, unread.
	if err := a.DropRateLogsBefore(ctx, base.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	add(a, len(steps))
	if got := reads.n.Load(); got != 1 {
		t.Fatalf("after the drop: a read rate_logs %d times, want 1", got)
	}
	if len(window) != 1 {
		t.Fatalf("after the drop the window holds %d times, want 1", len(window))
	}
}

// TestPostgresRateLogCommitsWithoutFlushWait: the rate-log write turns synchronous_commit off
// for its own transaction, so a request does not wait for a WAL flush to be counted. The
// test's server runs with synchronous_commit off for speed, so the transaction turns it on
// first, as a deployment's default has it.
func TestPostgresRateLogCommitsWithoutFlushWait(t *testing.T) {
	t.Parallel()
	s, _ := openFresh(t)
	ctx := context.Background()
	for range 2 { // the first write inserts the key's row, the second updates it
		err := s.WithTx(ctx, func(tx store.Tx) error {
			q := tx.(queries)
			if _, err := q.exec(ctx, `SET LOCAL synchronous_commit TO on`); err != nil {
				return err
			}
			times, err := q.readRateLog(ctx, "k")
			if err != nil {
				return err
			}
			_, done, err := q.writeRateLog(ctx, "k", time.Now(), times, func(times []time.Time) []time.Time {
				return append(times, time.Now())
			})
			if err != nil || !done {
				return fmt.Errorf("writeRateLog: done %t, %w", done, err)
			}
			var setting string
			if err := q.queryRow(ctx, `SHOW synchronous_commit`).Scan(&setting); err != nil {
				return err
			}
			if setting != "off" {
				return fmt.Errorf("synchronous_commit is %q after the rate-log write, want off", setting)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestRateMemoIsBounded fills the memory of rate logs past maxRateMemoBytes with windows of a
// read route's size: it never holds more, keeps its count of bytes exact through rewrites and
// forgetting, and still remembers the key written last.
func TestRateMemoIsBounded(t *testing.T) {
	t.Parallel()
	var m rateMemo
	times := strings.Repeat("1764441600000000000,", 120) // a full minute at 120 a minute
	held := func() int {
		n := 0
		for k, l := range m.logs {
			n += len(k) + len(l.times)
		}
		return n
	}
	now := time.Now()
	for i := range 2 * maxRateMemoBytes / len(times) {
		key := fmt.Sprintf("key-%d", i)
		m.remember(key, times, now)
		m.remember(key, times[:len(times)/2], now) // a rewrite of the same key
		if m.bytes > maxRateMemoBytes || m.bytes != held() {
			t.Fatalf("after %d keys: counted %d bytes, holds %d, bound %d", i+1, m.bytes, held(), maxRateMemoBytes)
		}
		if _, ok := m.recall(key); !ok {
			t.Fatalf("the key written last, %s, is not remembered", key)
		}
	}
	m.forgetBefore(now.Add(time.Second))
	if len(m.logs) != 0 || m.bytes != 0 {
		t.Fatalf("after forgetting every key: %d keys, %d bytes", len(m.logs), m.bytes)
	}
}
