package sqlstore

import (
	"context"
	"sync"
)

// readCache keeps, for SQLite, the rows the busiest requests read outside transactions, so a
// repeated request runs no SQL: the account of each authenticated key (by key hash), instance
// rows (by account and id) and the app installs of an instance (GET /instances/{id}).
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
type readCache struct {
	watch changeWatcher

	mu      sync.Mutex
	known   bool      // whether version has been read
	version dbVersion // what every entry was read at, or after
	entries map[cacheKey]any
}

// maxCacheEntries bounds the cache: an instance and its installs take about 1 KB, so a few MB.
const maxCacheEntries = 4096

// cacheKey names an entry: a kind, and the key hash or ids that find the row.
type cacheKey struct {
	kind      cacheKind
	hash      string // cachedAccount
	accountID int64  // cachedInstance
	id        int64  // the instance's id (cachedInstance, cachedInstalls)
}

type cacheKind uint8

const (
	cachedAccount  cacheKind = iota + 1 // store.Account by key hash
	cachedInstance                      // store.Instance by account and id
	cachedInstalls                      // []store.AppInstall by instance id
)

func newReadCache(watch changeWatcher) *readCache {
	return &readCache{watch: watch, entries: map[cacheKey]any{}}
}

// cachedRead returns the entry of key while the database is unchanged, and otherwise what load
// reads, keeping it. Callers must not change what it returns (see the Store's methods, which
// copy slices and maps).
func cachedRead[V any](ctx context.Context, c *readCache, key cacheKey, load func() (V, error)) (V, error) {
	version, ok := c.watch.version(ctx)
	if !ok {
		return load()
	}
	if v, hit := c.get(version, key); hit {
		return v.(V), nil
	}
	v, err := load()
	if err != nil {
		return v, err
	}
	c.put(version, key, v)
	return v, nil
}

// get returns the entry of key if the cache is at version, and otherwise empties it and
// moves it to version.
func (c *readCache) get(version dbVersion, key cacheKey) (any, bool) {
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
func (c *readCache) put(version dbVersion, key cacheKey, v any) {
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

// close releases the watcher's connection (and mapping).
func (c *readCache) close() {
	c.watch.close()
}
