package sqlitefast

import (
	"context"
	"database/sql"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore/readcache"
)

// ReadCache is the read cache of a SQLite store (see package readcache), dated by the
// database's version: any commit to the file, by this process or another one (such as
// `resellerd account rotate-key`), empties it before a read that starts after it, so a
// rotated key stops at once and a renamed instance shows its new name.
type ReadCache[K comparable] = readcache.Cache[K, dbVersion]

// NewReadCache starts an empty cache of the SQLite file at path, whose read pool is reads,
// watched through its mapped wal-index or, with noShm or where that cannot be mapped, through
// PRAGMA data_version (see newChangeWatcher). The watcher holds a connection of reads until
// Close.
func NewReadCache[K comparable](ctx context.Context, reads *sql.DB, path string, noShm bool) *ReadCache[K] {
	return readcache.New[K](newChangeWatcher(ctx, reads, path, noShm))
}

// Mapped reports whether c watches the mapped wal-index (false: PRAGMA data_version).
func Mapped[K comparable](c *ReadCache[K]) bool {
	_, fallback := c.Watcher().(*dataVersionWatcher)
	return !fallback
}
