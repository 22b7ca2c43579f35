package devserver

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReplaceFileAtomic: the state file is replaced by renaming a complete temporary file over
// it, never rewritten in place: a hard link to the old file keeps the old bytes, and a write that
// fails halfway leaves the old file whole and no temporary file behind.
func TestReplaceFileAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, old := filepath.Join(dir, "reseller.state"), filepath.Join(dir, "old-link")
	writeFile(t, path, "old complete state")
	if err := os.Link(path, old); err != nil {
		t.Fatal(err)
	}
	failing := func(tmp string) error {
		if err := os.WriteFile(tmp, []byte("half a"), 0o600); err != nil {
			return err
		}
		return errors.New("disk full")
	}
	if err := replaceFileAtomic(path, failing); err == nil {
		t.Fatal("a failed write reported success")
	}
	if b, _ := os.ReadFile(path); string(b) != "old complete state" {
		t.Fatalf("after a failed write the file holds %q, want the old state whole", b)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"old-link", "reseller.state"}) {
		t.Fatalf("after a failed write the directory holds %v", names)
	}

	err := replaceFileAtomic(path, func(tmp string) error { return os.WriteFile(tmp, []byte("new complete state"), 0o600) })
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new complete state" {
		t.Fatalf("the file holds %q after the write", b)
	}
	if b, _ := os.ReadFile(old); string(b) != "old complete state" {
		t.Fatalf("the old file's link holds %q: the file was rewritten in place, not renamed over", b)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("state file mode %v (%v), want 0600: it holds keys", fi.Mode(), err)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"old-link", "reseller.state"}) {
		t.Fatalf("after the write the directory holds %v", names)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
