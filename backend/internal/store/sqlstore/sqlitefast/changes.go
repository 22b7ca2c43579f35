package sqlitefast

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore/readcache"
)

// dbVersion stands for the state of a SQLite database: while it is the same, no connection of
// any process has committed. It is the wal-index header (walHeaderWords words) when the
// shared memory is mapped, and otherwise PRAGMA data_version and a connection generation.
type dbVersion [walHeaderWords]uint32

// walHeaderWords is the size of one copy of the wal-index header in 32-bit words, and
// walHeaderBytes that of both copies (see shmWatcher).
const (
	walHeaderWords = 12
	walHeaderBytes = 2 * 4 * walHeaderWords
)

// changeWatcher tells when a SQLite database may have changed: its Version differs from every
// earlier one once any connection, of this process or another, has committed (see
// readcache.Watcher).
type changeWatcher = readcache.Watcher[dbVersion]

// newChangeWatcher watches the SQLite file at path through its wal-index in shared memory
// (see shmWatcher), and falls back to PRAGMA data_version (see dataVersionWatcher) when the
// shared memory cannot be mapped (a system other than Linux, a path that is not a plain file,
// any mapping error) or when noShm asks it to. Both hold a connection of reads for their life.
func newChangeWatcher(ctx context.Context, reads *sql.DB, path string, noShm bool) changeWatcher {
	if !noShm {
		if w, err := openShmWatcher(ctx, reads, path); err == nil {
			return w
		}
	}
	return &dataVersionWatcher{db: reads}
}

// shmPath is the name SQLite gives the wal-index of the database at path: the file's real
// name (SQLite follows symbolic links) with "-shm" appended.
func shmPath(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("sqlite: resolve %s: %w", path, err)
	}
	return real + "-shm", nil
}

// openWALConn takes a connection of reads and has it read the database, which opens the WAL
// and its wal-index: from then on, while the connection stays open, SQLite neither truncates
// nor deletes the -shm file (see shmWatcher).
func openWALConn(ctx context.Context, reads *sql.DB) (*sql.Conn, error) {
	conn, err := reads.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite: watcher connection: %w", err)
	}
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
		return nil, errors.Join(fmt.Errorf("sqlite: watcher read: %w", err), conn.Close())
	}
	return conn, nil
}

// dataVersionWatcher reads PRAGMA data_version on a connection of its own, which SQLite changes
// whenever any other connection, of this process or another, commits. A query per version, so
// slower than shmWatcher, but it needs no shared memory. After an error the connection is
// dropped and the next one opened with a new generation, since a new connection's data
// versions say nothing about the old one's.
type dataVersionWatcher struct {
	db *sql.DB

	mu         sync.Mutex
	conn       *sql.Conn // nil until the first version, and after an error
	generation uint32
	closed     bool // Close was called: no connection is taken again
}

func (w *dataVersionWatcher) Version(ctx context.Context) (dbVersion, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return dbVersion{}, false
	}
	if w.conn == nil {
		conn, err := w.db.Conn(ctx)
		if err != nil {
			return dbVersion{}, false
		}
		w.conn = conn
		w.generation++
	}
	var v int64
	if err := w.conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		w.drop()
		return dbVersion{}, false
	}
	return dbVersion{w.generation, uint32(v), uint32(v >> 32)}, true
}

// drop closes the connection. Called with mu held.
func (w *dataVersionWatcher) drop() {
	if w.conn != nil {
		_ = w.conn.Close()
		w.conn = nil
	}
}

func (w *dataVersionWatcher) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	w.drop()
}
