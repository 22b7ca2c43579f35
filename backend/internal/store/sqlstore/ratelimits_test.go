package sqlstore

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
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
			done, err := q.tryRateLog(ctx, "k", time.Now(), func(times []time.Time) []time.Time {
				return append(times, time.Now())
			})
			if err != nil || !done {
				return fmt.Errorf("tryRateLog: done %t, %w", done, err)
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
