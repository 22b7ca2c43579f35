package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// The SQLite file header (https://www.sqlite.org/fileformat2.html#the_database_header): the
// first 100 bytes of a database file, starting with sqliteMagic; the application_id (PRAGMA
// application_id) is a big-endian 32-bit integer at applicationIDOffset.
const (
	sqliteHeaderSize    = 100
	applicationIDOffset = 68
	sqliteMagic         = "SQLite format 3\x00"
)

// ErrNotSQLite is the error of SQLiteApplicationID for a file that is not a SQLite database.
var ErrNotSQLite = errors.New("not a SQLite database")

// SQLiteApplicationID reads the application_id of the SQLite database file at path from its
// header, without opening it through SQLite: nothing is written (no journal, WAL or shared-memory
// file, no lock), so the file keeps its bytes and its modification time. A file that is not a
// SQLite database (too short for a header, another magic string) is ErrNotSQLite.
func SQLiteApplicationID(path string) (uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	header := make([]byte, sqliteHeaderSize)
	if _, err := io.ReadFull(f, header); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, ErrNotSQLite
		}
		return 0, err
	}
	if !bytes.HasPrefix(header, []byte(sqliteMagic)) {
		return 0, ErrNotSQLite
	}
	return binary.BigEndian.Uint32(header[applicationIDOffset:]), nil
}

// CreateSQLite creates the SQLite database at path (and its directory), which must be missing
// or an empty file, with id as its application_id. The id is written while the database is
// still in rollback-journal mode, so it is in the main file's header before OpenSQLite turns WAL
// on; every later write of the header (a WAL checkpoint copies page 1 whole) keeps it, so
// SQLiteApplicationID reads it from the file whatever state a process left the database in.
func CreateSQLite(ctx context.Context, path string, id uint32) error {
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
		return fmt.Errorf("sqlite: create %s: the file exists and is not empty", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return fmt.Errorf("sqlite: create directory: %w", err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return fmt.Errorf("sqlite: create %s: %w", path, err)
	}
	defer db.Close()
	// A PRAGMA takes no bound parameter; id is an integer, printed as one.
	if _, err := db.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", int32(id))); err != nil {
		return fmt.Errorf("sqlite: create %s: set application_id: %w", path, err)
	}
	if err := db.Close(); err != nil {
		return fmt.Errorf("sqlite: create %s: %w", path, err)
	}
	if got, err := SQLiteApplicationID(path); err != nil || got != id {
		return fmt.Errorf("sqlite: create %s: application_id reads back as %#x (%v), want %#x", path, got, err, id)
	}
	return nil
}
