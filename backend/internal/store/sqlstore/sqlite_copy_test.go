package sqlstore

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"
)

// TestCopySQLite: the copy of a WAL database still open holds what is only in its WAL yet (a
// copy of the main file would not), keeps the application_id, and is one file in
// rollback-journal mode: no -wal beside it, and its header says so (bytes 18 and 19 are 1).
func TestCopySQLite(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src.db"), filepath.Join(dir, "copy.db")
	const id uint32 = 0x52534456
	if err := CreateSQLite(ctx, src, id); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+src+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"CREATE TABLE t (v TEXT)", "INSERT INTO t VALUES ('in the wal')"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Stat(src + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("the source has no WAL content (%v): the test proves nothing", err)
	}

	if err := CopySQLite(ctx, src, dst); err != nil {
		t.Fatal(err)
	}
	if got, err := SQLiteApplicationID(dst); err != nil || got != id {
		t.Fatalf("copy's application_id %#x (%v), want %#x", got, err, id)
	}
	header := make([]byte, 20)
	f, err := os.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Read(header)
	_ = f.Close()
	if err != nil || header[18] != 1 || header[19] != 1 {
		t.Fatalf("copy's header versions %v (%v), want rollback-journal mode (1, 1)", header[18:20], err)
	}
	if _, err := os.Stat(dst + "-wal"); !os.IsNotExist(err) {
		t.Fatalf("a -wal beside the copy: %v", err)
	}
	cp, err := sql.Open("sqlite", "file:"+dst+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	var v string
	if err := cp.QueryRowContext(ctx, "SELECT v FROM t").Scan(&v); err != nil || v != "in the wal" {
		t.Fatalf("copy holds %q (%v), want the row written to the WAL", v, err)
	}
}
