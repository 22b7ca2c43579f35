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
	read := func(key int64) any { // the entry of key, or a new load kept
		v, hit, keep := c.Lookup(ctx, key)
		if hit {
			return v
		}
		loads++
		keep(loads)
		return loads
	}
	for id := range int64(maxCacheEntries + 10) {
		read(id)
		if len(c.entries) > maxCacheEntries {
			t.Fatalf("the cache holds %d entries, want at most %d", len(c.entries), maxCacheEntries)
		}
	}
	last := int64(maxCacheEntries + 9)
	if v := read(last); v != loads {
		t.Fatalf("the last entry read %d, want %d (from the cache)", v, loads)
	}
	w.v[0]++
	if v := read(last); v != loads || len(c.entries) != 1 {
		t.Fatalf("after a change of version: read %d (want a new load, %d) with %d entries, want 1", v, loads, len(c.entries))
	}
}
