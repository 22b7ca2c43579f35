package sqlstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// TestSQLiteApplicationID: CreateSQLite's id is in the main file's header at once, while the
// store then works in WAL mode on it (a process killed then leaves it there), and after the store
// is closed; a database the store created alone reads 0; a file that is no database is
// ErrNotSQLite; CreateSQLite refuses a file with content and leaves it as it was.
func TestSQLiteApplicationID(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	const id uint32 = 0x52534456
	marked := filepath.Join(dir, "sub", "marked.db")
	if err := CreateSQLite(ctx, marked, id); err != nil {
		t.Fatal(err)
	}
	s, err := OpenSQLite(ctx, marked)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 { // enough writes for page 1 to be in the WAL, not yet checkpointed
		if _, err := s.CreateAccount(ctx, store.NewAccount{KeyHash: fmt.Appendf(nil, "hash-%d", i), Language: "en"}); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := SQLiteApplicationID(marked); err != nil || got != id {
		t.Fatalf("while the store is open: %#x, %v; want %#x", got, err, id)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := SQLiteApplicationID(marked); err != nil || got != id {
		t.Fatalf("after Close: %#x, %v; want %#x", got, err, id)
	}

	plain := filepath.Join(dir, "plain.db")
	mustOpen(t, OpenSQLite, plain)
	if got, err := SQLiteApplicationID(plain); err != nil || got != 0 {
		t.Fatalf("a store's own database: %#x, %v; want 0", got, err)
	}

	text := filepath.Join(dir, "notes.txt")
	content := []byte("SQLite format 2, not quite\n")
	if err := os.WriteFile(text, content, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := SQLiteApplicationID(text); !errors.Is(err, ErrNotSQLite) {
		t.Fatalf("a text file: %v, want ErrNotSQLite", err)
	}
	if err := CreateSQLite(ctx, text, id); err == nil {
		t.Fatal("CreateSQLite on a file with content: no error")
	}
	if got, _ := os.ReadFile(text); string(got) != string(content) {
		t.Fatalf("CreateSQLite changed a file it refused: %q", got)
	}
}
