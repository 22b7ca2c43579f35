//go:build !linux

package sqlitefast

import (
	"context"
	"database/sql"
	"errors"
)

// openShmWatcher fails where the store does not map SQLite's -shm file: it maps the descriptor
// SQLite holds, which it finds in /proc/self/fd (see shmWatcher), so on Linux only. The store
// then watches PRAGMA data_version instead.
func openShmWatcher(context.Context, *sql.DB, string) (changeWatcher, error) {
	return nil, errors.New("sqlite: the wal-index is mapped on Linux only")
}
