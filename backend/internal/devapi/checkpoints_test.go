package devapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// checkpointAPI is the handler of the checkpoint routes with a fake Save that writes size bytes.
func checkpointAPI(t *testing.T, size, maxCount int, maxBytes int64) (http.Handler, string) {
	t.Helper()
	dir := t.TempDir()
	save := func(_ context.Context, path string) (time.Time, error) {
		return time.Now(), os.WriteFile(path, make([]byte, size), 0o600)
	}
	load := func(context.Context, string) error { return nil }
	return New(Config{Clock: &OffsetClock{}, CheckpointDir: dir, Save: save, Load: load,
		MaxCheckpoints: maxCount, MaxCheckpointBytes: maxBytes}), dir
}

// send serves method path with body and returns the status, the error code and its message.
func send(h http.Handler, method, path, body string) (int, string, string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
	var env struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &env)
	return rec.Code, env.Error.Code, env.Error.Message
}

// TestCheckpointsCappedInNumber: past --max-checkpoints the next save is refused 409
// checkpoint_limit naming the limit, and goes through once a checkpoint is deleted.
func TestCheckpointsCappedInNumber(t *testing.T) {
	t.Parallel()
	h, _ := checkpointAPI(t, 100, 2, 1<<20)
	for _, name := range []string{"a", "b"} {
		if status, code, msg := send(h, "POST", "/_dev/checkpoints", `{"name": "`+name+`"}`); status != 200 {
			t.Fatalf("save %s: %d %s %s", name, status, code, msg)
		}
	}
	status, code, msg := send(h, "POST", "/_dev/checkpoints", `{"name": "c"}`)
	if status != http.StatusConflict || code != CodeCheckpointLimit || !strings.Contains(msg, "--max-checkpoints 2") {
		t.Fatalf("third save: %d %s %q; want 409 %s naming --max-checkpoints 2", status, code, msg, CodeCheckpointLimit)
	}
	if status, _, _ := send(h, "DELETE", "/_dev/checkpoints/a", ""); status != 200 {
		t.Fatalf("delete: %d", status)
	}
	if status, code, msg := send(h, "POST", "/_dev/checkpoints", `{"name": "c"}`); status != 200 {
		t.Fatalf("save after a delete: %d %s %s", status, code, msg)
	}
}

// TestCheckpointsCappedInBytes: a save that would bring the checkpoints over
// --max-checkpoint-bytes is refused 409 checkpoint_limit naming the limit, and its copy is
// removed, so the limit holds on disk.
func TestCheckpointsCappedInBytes(t *testing.T) {
	t.Parallel()
	h, dir := checkpointAPI(t, 1000, 20, 2500)
	for _, name := range []string{"a", "b"} {
		if status, code, msg := send(h, "POST", "/_dev/checkpoints", `{"name": "`+name+`"}`); status != 200 {
			t.Fatalf("save %s: %d %s %s", name, status, code, msg)
		}
	}
	status, code, msg := send(h, "POST", "/_dev/checkpoints", `{"name": "c"}`)
	if status != http.StatusConflict || code != CodeCheckpointLimit || !strings.Contains(msg, "--max-checkpoint-bytes 2500") {
		t.Fatalf("third save: %d %s %q; want 409 %s naming --max-checkpoint-bytes 2500", status, code, msg, CodeCheckpointLimit)
	}
	files, err := os.ReadDir(dir)
	if err != nil || len(files) != 2 {
		t.Fatalf("checkpoint directory holds %d files (%v), want the 2 kept", len(files), err)
	}
}

// TestCheckpointsCountAndDeleteTheirMachines: a checkpoint whose Save keeps machines' disks
// beside its file (MachinesDir) has them counted in its size_bytes (by the blocks they take:
// a sparse disk's hole counts nothing) and deleted with it.
func TestCheckpointsCountAndDeleteTheirMachines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	save := func(_ context.Context, path string) (time.Time, error) {
		disk := filepath.Join(MachinesDir(path), "machines", "vm-1", "disk.img")
		if err := os.MkdirAll(filepath.Dir(disk), 0o700); err != nil {
			return time.Time{}, err
		}
		f, err := os.Create(disk)
		if err != nil {
			return time.Time{}, err
		}
		_, err = f.Write(bytes.Repeat([]byte{1}, 1<<20))
		err = errors.Join(err, f.Truncate(1<<30), f.Close()) // a GiB, of which a MiB is written
		return time.Now(), errors.Join(err, os.WriteFile(path, make([]byte, 100), 0o600))
	}
	h := New(Config{Clock: &OffsetClock{}, CheckpointDir: dir, Save: save, Load: func(context.Context, string) error { return nil }})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/_dev/checkpoints", strings.NewReader(`{"name": "m"}`)))
	var env struct {
		Data Checkpoint `json:"data"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || rec.Code != 200 {
		t.Fatalf("save: %d %s", rec.Code, rec.Body)
	}
	if n := env.Data.SizeBytes; n < 100+1<<20 || n > 100+2<<20 {
		t.Fatalf("size_bytes %d; want the file and the disk's written MiB, not its GiB", n)
	}
	if status, _, _ := send(h, "DELETE", "/_dev/checkpoints/m", ""); status != 200 {
		t.Fatalf("delete: %d", status)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("left after the delete: %v", left)
	}
}
