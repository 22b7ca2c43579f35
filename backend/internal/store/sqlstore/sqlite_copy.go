package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"time"
)

// copyBusyTimeout bounds how long CopySQLite waits for a lock on the source (a writer checkpointing
// the WAL of a live database).
const copyBusyTimeout = 10 * time.Second

// CopySQLite writes a consistent copy of the SQLite database at src to dst (a missing or empty
// file) with VACUUM INTO, and flushes it to disk. The copy is one read transaction, so a backend
// may go on writing to src meanwhile and the copy is all of one moment; it is compact, in
// rollback-journal mode (one file, no -wal), and keeps the header's application_id, so a dev
// database's copy is a dev database. VACUUM INTO does not fsync its output; CopySQLite does, so a
// caller that renames dst into place afterwards publishes a complete file.
func CopySQLite(ctx context.Context, src, dst string) error {
	db, err := sql.Open("sqlite", fmt.Sprintf("file:%s?_pragma=busy_timeout(%d)", src, copyBusyTimeout.Milliseconds()))
	if err != nil {
		return fmt.Errorf("sqlite: copy %s: %w", src, err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
		return fmt.Errorf("sqlite: copy %s: %w", src, err)
	}
	if err := db.Close(); err != nil {
		return fmt.Errorf("sqlite: copy %s: %w", src, err)
	}
	return syncFile(dst)
}

// syncFile flushes the file at path to disk.
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("sqlite: sync %s: %w", path, err)
	}
	return f.Close()
}
