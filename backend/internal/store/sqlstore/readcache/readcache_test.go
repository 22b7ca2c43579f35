package readcache

import (
	"context"
	"fmt"
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
	keep(r.loads, 0)
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
	keep("stale", 0)
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

// scopedWatcher is a fixedWatcher that tells changes by scope, as pgchanges does.
type scopedWatcher struct {
	fixedWatcher
	scoped uint64
	scopes map[int64]uint64
}

func (w *scopedWatcher) Scoped() uint64           { return w.scoped }
func (w *scopedWatcher) Scope(scope int64) uint64 { return w.scopes[scope] }

// change moves scope as pgchanges does: Scoped first, then the scope's own version to its count.
func (w *scopedWatcher) change(scope int64) {
	w.scoped++
	w.scopes[scope] = w.scoped
}

// TestCacheDropsOnlyTheChangedScope: with a watcher that tells scopes, a change of one account
// drops the entries of that account and those without a scope, and no other account's; a load
// that began before a change of its scope (of any scope, for a load without one) is not kept; a
// change the watcher cannot scope (the version) still empties the cache.
func TestCacheDropsOnlyTheChangedScope(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := &scopedWatcher{scopes: map[int64]uint64{}}
	c := New[string](w)
	loads := 0
	read := func(key string, scope int64) any {
		v, hit, keep := c.Lookup(ctx, key)
		if hit {
			return v
		}
		loads++
		keep(loads, scope)
		return loads
	}
	read("account 1", 1)
	read("account 2", 2)
	read("unscoped", 0)
	before := loads
	read("account 1", 1)
	read("account 2", 2)
	read("unscoped", 0)
	if loads != before {
		t.Fatalf("unchanged entries were loaded again: %d loads, want %d", loads, before)
	}

	w.change(1)
	for _, tc := range []struct {
		key    string
		scope  int64
		reload bool
	}{{"account 1", 1, true}, {"account 2", 2, false}, {"unscoped", 0, true}} {
		before := loads
		read(tc.key, tc.scope)
		if got := loads > before; got != tc.reload {
			t.Errorf("after a change of account 1, %s loaded again: %t, want %t", tc.key, got, tc.reload)
		}
	}

	// A change while a load runs: of the load's own scope, its result may be older than the
	// change; of another scope, it does not matter, except to an entry without a scope.
	for _, tc := range []struct {
		load, changed int64
		kept          bool
	}{{3, 3, false}, {3, 4, true}, {0, 4, false}} {
		key := fmt.Sprintf("loaded for %d while %d changed", tc.load, tc.changed)
		_, _, keep := c.Lookup(ctx, key)
		w.change(tc.changed)
		keep("loaded", tc.load)
		if _, hit, _ := c.Lookup(ctx, key); hit != tc.kept {
			t.Errorf("%s: served afterwards %t, want %t", key, hit, tc.kept)
		}
	}

	w.v++
	before = loads
	read("account 2", 2)
	if loads == before {
		t.Fatal("after a change of version an entry was served")
	}
}
