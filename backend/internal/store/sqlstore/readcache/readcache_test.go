package readcache

import (
	"context"
	"testing"
)

// fixedWatcher is a watcher whose version and whether it can tell a test sets.
type fixedWatcher struct {
	v      int
	cannot bool
}

func (w *fixedWatcher) Version(context.Context) (int, bool) { return w.v, !w.cannot }
func (w *fixedWatcher) Close()                              {}

// size is how many entries c holds.
func (c *Cache[K, V]) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// reader reads keys through c, counting the loads a miss makes.
type reader struct {
	c     *Cache[int64, int]
	loads int
}

// read returns the entry of key, or a new load, kept.
func (r *reader) read(key int64) any {
	v, hit, keep := r.c.Lookup(context.Background(), key)
	if hit {
		return v
	}
	r.loads++
	keep(r.loads)
	return r.loads
}

// TestCacheIsBounded fills the cache past MaxEntries: it never holds more, and a change of
// version empties it.
func TestCacheIsBounded(t *testing.T) {
	t.Parallel()
	w := &fixedWatcher{}
	r := &reader{c: New[int64](w)}
	for id := range int64(MaxEntries + 10) {
		r.read(id)
		if n := r.c.size(); n > MaxEntries {
			t.Fatalf("the cache holds %d entries, want at most %d", n, MaxEntries)
		}
	}
	last := int64(MaxEntries + 9)
	if v := r.read(last); v != r.loads {
		t.Fatalf("the last entry read %d, want %d (from the cache)", v, r.loads)
	}
	w.v++
	if v := r.read(last); v != r.loads || r.c.size() != 1 {
		t.Fatalf("after a change of version: read %d (want a new load, %d) with %d entries, want 1", v, r.loads, r.c.size())
	}
}

// TestCacheKeepsNothingItCannotDate shows that a load is dropped when the version moved while
// it ran, and that nothing is served or kept while the watcher cannot tell the version.
func TestCacheKeepsNothingItCannotDate(t *testing.T) {
	t.Parallel()
	w := &fixedWatcher{}
	c := New[int64](w)
	_, _, keep := c.Lookup(context.Background(), 1)
	w.v++                              // a commit between the miss and the load's end,
	c.Lookup(context.Background(), 99) // seen by another read before the load ends
	keep("stale")
	if v, hit, _ := c.Lookup(context.Background(), 1); hit {
		t.Fatalf("a load that began before a change was served: %v", v)
	}

	r := &reader{c: c}
	r.read(2)
	w.cannot = true
	if v := r.read(2); v != r.loads || r.loads != 2 {
		t.Fatalf("with the watcher unable to tell: read %v after %d loads, want a new load", v, r.loads)
	}
	if n := c.size(); n != 1 {
		t.Fatalf("the cache holds %d entries while the watcher cannot tell, want 1 (kept from before)", n)
	}
}
