//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package sqlstore

import (
	"context"
	"database/sql"
	"errors"
)

// openShmWatcher fails where the store does not map SQLite's -shm file (the platforms with no
// syscall.Mmap, and Windows, whose SQLite shares memory differently): the store then watches
// PRAGMA data_version instead.
func openShmWatcher(context.Context, *sql.DB, string) (changeWatcher, error) {
	return nil, errors.New("sqlite: no wal-index mapping on this platform")
}
