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
// A watcher may also tell which account a change was to (Scopes, on PostgreSQL): an entry that
// depends on one account's rows only (its scope) is then dropped by that account's changes, not
// by every change, so a write load on some accounts leaves the others' entries in place. An entry
// without a scope is dropped by any change.
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

// Scopes is what a watcher adds that tells changes by scope: the account whose rows changed. The
// database's version (Watcher.Version) then moves only at a change whose scope it cannot tell.
type Scopes interface {
	// Scoped counts the changes of scopes: each change takes the next count as its stamp.
	Scoped() uint64
	// Scope is the version of scope (an account's id, above 0): the stamp of a change of it at
	// least as late as its latest one, set after Scoped moved to that stamp. It never goes back.
	Scope(scope int64) uint64
}

// noScopes is the Scopes of a watcher that tells none: every change moves the version.
type noScopes struct{}

func (noScopes) Scoped() uint64     { return 0 }
func (noScopes) Scope(int64) uint64 { return 0 }

// MaxEntries bounds the cache: an instance and its installs take about 1 KB, so a few MB.
const MaxEntries = 4096

// Cache is a read cache keyed by K whose watcher's versions are V.
type Cache[K, V comparable] struct {
	watch  Watcher[V]
	scopes Scopes // watch's, or noScopes

	mu      sync.Mutex
	known   bool // whether version has been read
	version V    // what every entry was read at, or after
	entries map[K]entry
}

// entry is a kept value and the scope version it was read at, or after: Scope(scope)'s, or
// Scoped's for an entry without a scope (0).
type entry struct {
	v     any
	scope int64
	at    uint64
}

// New starts an empty cache watched by watch, which it closes in Close. If watch tells scopes
// (Scopes), entries with a scope are dropped by their scope's changes only.
func New[K, V comparable](watch Watcher[V]) *Cache[K, V] {
	scopes, ok := watch.(Scopes)
	if !ok {
		scopes = noScopes{}
	}
	return &Cache[K, V]{watch: watch, scopes: scopes, entries: map[K]entry{}}
}

// Lookup returns the entry of key while the database is unchanged (or, for an entry with a
// scope, the scope). On a miss it returns keep, to which the caller hands what it then reads from
// the database (never an error's result) and its scope (0 for none): it is filed under the
// versions the miss was seen at, and only if no change came since, so an entry is never older
// than its versions. When the watcher cannot tell the version keep drops what it is given.
// Callers must not change what they get (the store copies slices and maps).
func (c *Cache[K, V]) Lookup(ctx context.Context, key K) (v any, hit bool, keep func(v any, scope int64)) {
	version, ok := c.watch.Version(ctx)
	if !ok {
		return nil, false, drop
	}
	if v, hit := c.get(version, key); hit {
		return v, true, nil
	}
	scoped := c.scopes.Scoped()
	return nil, false, func(v any, scope int64) { c.put(version, scoped, key, v, scope) }
}

// drop keeps nothing.
func drop(any, int64) {}

// Watcher is the cache's watcher.
func (c *Cache[K, V]) Watcher() Watcher[V] { return c.watch }

// get returns the entry of key if the cache is at version and the entry's scope has not changed
// since it was kept, and otherwise empties the cache and moves it to version.
func (c *Cache[K, V]) get(version V, key K) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.known || c.version != version {
		clear(c.entries)
		c.known, c.version = true, version
		return nil, false
	}
	e, hit := c.entries[key]
	if hit && c.scopeAt(e.scope) != e.at {
		delete(c.entries, key)
		return nil, false
	}
	return e.v, hit
}

// scopeAt is the version an entry of scope is dated by: the scope's own, or for an entry
// without one (0) the count of every scope's changes.
func (c *Cache[K, V]) scopeAt(scope int64) uint64 {
	if scope == 0 {
		return c.scopes.Scoped()
	}
	return c.scopes.Scope(scope)
}

// put keeps v of scope, read after the database was at version and the scopes at scoped, if
// the cache is still at version and v's scope has not changed since. Every change takes a stamp
// above scoped once the miss has read it; one that has raised v's scope is seen here (at above
// scoped) and v is dropped, and one that has not yet will raise the scope past at and drop v
// at its next read. A change of another scope leaves v be: under load some account (every deploy
// charges one) changes all the time, and an entry read then would otherwise rarely be kept. An
// entry without a scope is dated by Scoped, so any change since the miss drops it.
func (c *Cache[K, V]) put(version V, scoped uint64, key K, v any, scope int64) {
	at := c.scopeAt(scope)
	if at > scoped {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.known || c.version != version {
		return
	}
	if len(c.entries) >= MaxEntries {
		clear(c.entries)
	}
	c.entries[key] = entry{v: v, scope: scope, at: at}
}

// Close stops the watcher.
func (c *Cache[K, V]) Close() error {
	c.watch.Close()
	return nil
}
