// Package readcache keeps the rows the busiest requests read outside transactions, so a
// repeated request runs no SQL. The store chooses what (see sqlstore's cache.go): the account
// of each authenticated key (by key hash), instance rows (by account and id) and the app
// installs of an instance (GET /instances/{id}); K is its key.
//
// An entry is used only while the database is unchanged, as a Watcher tells: every read first
// asks it for the database's version and empties the cache when that moved. Each database has
// its watcher: sqlitefast's reads SQLite's wal-index (a few atomic loads) and sees every commit
// to the file; pgchanges's hears PostgreSQL's notifications of changed rows. An entry is kept
// only if the version did not move between the check and the load, so it is never older than
// the version it is filed under. When the watcher cannot tell (a writer halfway through a
// header, a lost connection) the read goes to the database and nothing is kept.
//
// Rows are cached, not answers: whatever depends on the time (a status settling, credentials
// pending, the traffic cycle) is computed from them on every request. Transactions never read
// from the cache. The cache holds at most MaxEntries entries and is emptied when full.
package readcache

import (
	"context"
	"sync"
)

// Watcher tells when a database may have changed. Version returns a value that differs from
// every earlier one once anything the cache keeps may have changed; ok is false when it cannot
// tell right now, and the caller must then read the database and keep nothing.
type Watcher[V comparable] interface {
	// Version is the database's version now; ok is false when the watcher cannot tell.
	Version(ctx context.Context) (v V, ok bool)
	// Close stops watching.
	Close()
}

// MaxEntries bounds the cache: an instance and its installs take about 1 KB, so a few MB.
const MaxEntries = 4096

// Cache is a read cache keyed by K whose watcher's versions are V.
type Cache[K, V comparable] struct {
	watch Watcher[V]

	mu      sync.Mutex
	known   bool // whether version has been read
	version V    // what every entry was read at, or after
	entries map[K]any
}

// New starts an empty cache watched by watch, which it closes in Close.
func New[K, V comparable](watch Watcher[V]) *Cache[K, V] {
	return &Cache[K, V]{watch: watch, entries: map[K]any{}}
}

// Lookup returns the entry of key while the database is unchanged. On a miss it returns keep,
// to which the caller hands what it then reads from the database (never an error's result):
// it is filed under the version the miss was seen at, and only if the database is still at
// that version, so an entry is never older than its version. When the watcher cannot tell the
// version keep drops what it is given. Callers must not change what they get (the store copies
// slices and maps).
func (c *Cache[K, V]) Lookup(ctx context.Context, key K) (v any, hit bool, keep func(any)) {
	version, ok := c.watch.Version(ctx)
	if !ok {
		return nil, false, drop
	}
	if v, hit := c.get(version, key); hit {
		return v, true, nil
	}
	return nil, false, func(v any) { c.put(version, key, v) }
}

// drop keeps nothing.
func drop(any) {}

// Watcher is the cache's watcher.
func (c *Cache[K, V]) Watcher() Watcher[V] { return c.watch }

// get returns the entry of key if the cache is at version, and otherwise empties it and
// moves it to version.
func (c *Cache[K, V]) get(version V, key K) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.known || c.version != version {
		clear(c.entries)
		c.known, c.version = true, version
		return nil, false
	}
	v, hit := c.entries[key]
	return v, hit
}

// put keeps v, read after the database was at version, if the cache is still at version.
func (c *Cache[K, V]) put(version V, key K, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.known || c.version != version {
		return
	}
	if len(c.entries) >= MaxEntries {
		clear(c.entries)
	}
	c.entries[key] = v
}

// Close stops the watcher.
func (c *Cache[K, V]) Close() error {
	c.watch.Close()
	return nil
}
