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
}

// TestPostgresRateLogCommitsWithoutFlushWait: the rate-log write turns synchronous_commit off
// for its own transaction, so a request does not wait for a WAL flush to be counted. The
// test's server runs with synchronous_commit off for speed, so the transaction turns it on
// first, as a deployment's default has it.
func TestPostgresRateLogCommitsWithoutFlushWait(t *testing.T) {
	t.Parallel()
	s, _ := openFresh(t)
	ctx := context.Background()
	for _, old := range []string{"", "1"} { // an insert, then an update of the row
		err := s.WithTx(ctx, func(tx store.Tx) error {
			q := tx.(queries)
			if _, err := q.exec(ctx, `SET LOCAL synchronous_commit TO on`); err != nil {
				return err
			}
			written, done, err := q.writeRateLog(ctx, "k", time.Now(), old, func([]time.Time) []time.Time {
				return []time.Time{time.Unix(0, 1)}
			})
			if err != nil || !done || written != "1" {
				return fmt.Errorf("writeRateLog of %q: wrote %q, done %t, %v", old, written, done, err)
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

// TestPostgresRateLogSeesOtherReplicasWrites alternates one key's updates between two replicas,
// so each finds its own last write overwritten by the other's: each update must still build on
// the stored window, not on what its replica wrote last, and so must one after the table
// dropped the key.
func TestPostgresRateLogSeesOtherReplicasWrites(t *testing.T) {
	t.Parallel()
	a, url := openFresh(t)
	b := openURL(t, url)
	ctx := context.Background()
	base := time.Now()
	count := func(s *Store, i int) int {
		t.Helper()
		n := 0
		if err := s.UpdateRateLog(ctx, "k", base, func(times []time.Time) []time.Time {
			n = len(times)
			return append(times, base.Add(time.Duration(i)))
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i := range 10 {
		s := map[bool]*Store{true: a, false: b}[i%2 == 0]
		if n := count(s, i); n != i {
			t.Fatalf("update %d found %d times in the window, want %d", i, n, i)
		}
	}
	if err := b.DropRateLogsBefore(ctx, base.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n := count(a, 0); n != 0 {
		t.Fatalf("after the key was dropped, an update found %d times, want 0", n)
	}
}
