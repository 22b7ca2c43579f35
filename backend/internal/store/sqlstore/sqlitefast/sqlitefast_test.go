package sqlitefast

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// testBusy is the busy timeout of the tests' pools.
const testBusy = BusyTimeout

// openTestPools opens the pools of a new SQLite file with a table of items, closed when the
// test ends.
func openTestPools(t *testing.T) (writer, reads *sql.DB, path string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "fast.db")
	writer, reads, err := OpenPools(context.Background(), path, testBusy)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reads.Close(); _ = writer.Close() })
	if _, err := writer.ExecContext(context.Background(), `CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
		CREATE TABLE item_notes (item_id INTEGER NOT NULL REFERENCES items (id), note TEXT NOT NULL);
		INSERT INTO items (name) VALUES ('first')`); err != nil {
		t.Fatal(err)
	}
	return writer, reads, path
}

// countItems counts the rows of items.
func countItems(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM items`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestOpenPoolsPragmas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	writer, reads, _ := openTestPools(t)
	// Every pooled connection must enforce foreign keys: hold a reader busy and query on
	// another reader, and on the writer.
	conn, err := reads.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, db := range []*sql.DB{reads, writer} {
		for name, want := range map[string]string{"foreign_keys": "1", "journal_mode": "wal", "busy_timeout": "10000"} {
			var got string
			if err := db.QueryRowContext(ctx, "PRAGMA "+name).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("PRAGMA %s = %s, want %s", name, got, want)
			}
		}
	}
	if _, err := writer.ExecContext(ctx, "INSERT INTO item_notes (item_id, note) VALUES (42, 'x')"); err == nil {
		t.Fatal("insert with a dangling item_id succeeded; foreign keys are off")
	}
}
