package sqlitefast

import (
	"context"
	"testing"
)

// fixedWatcher is a watcher whose version a test sets.
type fixedWatcher struct{ v dbVersion }

func (w *fixedWatcher) version(context.Context) (dbVersion, bool) { return w.v, true }
func (w *fixedWatcher) close()                                    {}

// TestReadCacheIsBounded fills the cache past maxCacheEntries: it never holds more, and a
// change of version empties it.
func TestReadCacheIsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := &fixedWatcher{}
	c := newReadCache[int64](w)
	loads := 0
	load := func() (any, error) { loads++; return loads, nil }
	for id := range int64(maxCacheEntries + 10) {
		if _, err := c.Read(ctx, id, load); err != nil {
			t.Fatal(err)
		}
		if len(c.entries) > maxCacheEntries {
			t.Fatalf("the cache holds %d entries, want at most %d", len(c.entries), maxCacheEntries)
		}
	}
	last := int64(maxCacheEntries + 9)
	if v, _ := c.Read(ctx, last, load); v != loads {
		t.Fatalf("the last entry read %d, want %d (from the cache)", v, loads)
	}
	w.v[0]++
	if v, _ := c.Read(ctx, last, load); v != loads || len(c.entries) != 1 {
		t.Fatalf("after a change of version: read %d (want a new load, %d) with %d entries, want 1", v, loads, len(c.entries))
	}
}
