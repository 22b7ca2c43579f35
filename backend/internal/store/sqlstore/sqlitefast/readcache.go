package sqlitefast

import (
	"context"
	"database/sql"
	"sync"
)

// ReadCache keeps, for SQLite, the rows the busiest requests read outside transactions, so a
// repeated request runs no SQL. The store chooses what (see sqlstore's cache.go): the account
// of each authenticated key (by key hash), instance rows (by account and id) and the app
// installs of an instance (GET /instances/{id}); K is its key.
//
// An entry is used only while the database is unchanged: every read first asks the watcher
// for the database's version (see changeWatcher; with the -shm file mapped, a few atomic loads)
// and empties the cache when it moved. Any commit, by this process or another one on the same
// file (such as `resellerd account rotate-key`), therefore empties the cache before a read
// that starts after it: a rotated key stops at once and a renamed instance shows its new
// name. An entry is kept only if the version did not move between the check and the load, so
// it is never older than the version it is filed under. When the watcher cannot tell (a
// writer halfway through the header, an error) the read goes to the database and nothing is
// kept.
//
// Rows are cached, not answers: whatever depends on the time (a status settling, credentials
// pending, the traffic cycle) is computed from them on every request. Transactions never read
// from the cache (the store's Tx reads the database). The cache holds at most maxCacheEntries
// entries and is emptied when full.
type ReadCache[K comparable] struct {
	watch changeWatcher

	mu      sync.Mutex
	known   bool      // whether version has been read
	version dbVersion // what every entry was read at, or after
	entries map[K]any
}

// maxCacheEntries bounds the cache: an instance and its installs take about 1 KB, so a few MB.
const maxCacheEntries = 4096

// NewReadCache starts an empty cache of the SQLite file at path, whose read pool is reads,
// watched through its mapped wal-index or, with noShm or where that cannot be mapped, through
// PRAGMA data_version (see newChangeWatcher). The watcher holds a connection of reads until
// Close.
func NewReadCache[K comparable](ctx context.Context, reads *sql.DB, path string, noShm bool) *ReadCache[K] {
	return newReadCache[K](newChangeWatcher(ctx, reads, path, noShm))
}

func newReadCache[K comparable](watch changeWatcher) *ReadCache[K] {
	return &ReadCache[K]{watch: watch, entries: map[K]any{}}
}

// Lookup returns the entry of key while the database is unchanged. On a miss it returns keep,
// to which the caller hands what it then reads from the database (never an error's result):
// it is filed under the version the miss was seen at, and only if the database is still at
// that version, so an entry is never older than its version. When the watcher cannot tell the
// version keep drops what it is given. Callers must not change what they get (the store copies
// slices and maps).
func (c *ReadCache[K]) Lookup(ctx context.Context, key K) (v any, hit bool, keep func(any)) {
	version, ok := c.watch.version(ctx)
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

// Mapped reports whether the cache watches the mapped wal-index (false: PRAGMA data_version).
func (c *ReadCache[K]) Mapped() bool {
	_, fallback := c.watch.(*dataVersionWatcher)
	return !fallback
}

// get returns the entry of key if the cache is at version, and otherwise empties it and
// moves it to version.
func (c *ReadCache[K]) get(version dbVersion, key K) (any, bool) {
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
func (c *ReadCache[K]) put(version dbVersion, key K, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.known || c.version != version {
		return
	}
	if len(c.entries) >= maxCacheEntries {
		clear(c.entries)
	}
	c.entries[key] = v
}

// Close releases the watcher's connection (and mapping).
func (c *ReadCache[K]) Close() error {
	c.watch.close()
	return nil
}
