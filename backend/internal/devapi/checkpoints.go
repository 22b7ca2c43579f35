package devapi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
)

// CodeCheckpointExists is the code of the 409 answer to a save under a name already taken: a
// checkpoint is never overwritten by accident (two jobs choosing the same name, a script run
// twice), so replacing one takes a DELETE first.
const CodeCheckpointExists = "checkpoint_exists"

// CodeCheckpointLimit is the code of the 409 answer to a save past the checkpoint limits (in
// number or in bytes); its message names the limit and its flag. A checkpoint must be deleted
// first: none is dropped on the caller's behalf, as a test may still restore it.
const CodeCheckpointLimit = "checkpoint_limit"

// The default checkpoint limits of `resellerd dev` (--max-checkpoints, --max-checkpoint-bytes):
// a test suite keeps a few checkpoints, each a copy of a small database (40 took 23 MB).
const (
	DefaultMaxCheckpoints     = 20
	DefaultMaxCheckpointBytes = 256 << 20
)

// checkpointName is what a checkpoint may be called: lower-case letters, digits, dots, dashes
// and underscores, starting with a letter or digit, at most 64 characters. Such a name is a file
// name on every system and a path segment that needs no escaping.
var checkpointName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// checkpointFileExt ends the name of each checkpoint's file in the checkpoint directory.
const checkpointFileExt = ".db"

// Checkpoint is one saved copy of the service as the checkpoint routes answer it.
type Checkpoint struct {
	Name string `json:"name"`
	// Time is the service clock's time when it was saved (RFC 3339), as the journal's entries
	// read it; a restore puts the clock back to it, plus the real time passed since.
	Time string `json:"time"`
	// SavedAt is the wall clock's time of the save (RFC 3339).
	SavedAt string `json:"saved_at"`
	// SizeBytes is the size of the copy on disk: its database file, and under --machines
	// sandbox the blocks its machines' disks take (MachinesDir; holes take none).
	SizeBytes int64 `json:"size_bytes"`

	saved time.Time // orders the list, newest first
}

// checkpoints are the named copies of the service, one SQLite file each in dir. Their index is
// kept in memory: dir belongs to this process, which removes it at exit. Errors that are not a
// *service.Error (a full disk) are answered 500 by the Responder, their detail logged.
type checkpoints struct {
	dir      string
	save     func(ctx context.Context, path string) (time.Time, error)
	load     func(ctx context.Context, path string) error
	maxCount int   // checkpoints kept at once
	maxBytes int64 // their bytes on disk together

	mu     sync.Mutex // held through a save, restore or delete, so they never overlap
	byName map[string]Checkpoint
}

func newCheckpoints(cfg Config) *checkpoints {
	c := &checkpoints{dir: cfg.CheckpointDir, save: cfg.Save, load: cfg.Load, byName: map[string]Checkpoint{},
		maxCount: cfg.MaxCheckpoints, maxBytes: cfg.MaxCheckpointBytes}
	if c.maxCount <= 0 {
		c.maxCount = DefaultMaxCheckpoints
	}
	if c.maxBytes <= 0 {
		c.maxBytes = DefaultMaxCheckpointBytes
	}
	return c
}

// totalBytes is the size on disk of every checkpoint kept. Called with mu held.
func (c *checkpoints) totalBytes() int64 {
	var n int64
	for _, cp := range c.byName {
		n += cp.SizeBytes
	}
	return n
}

// checkRoom refuses a save once the checkpoints kept reach a limit. Called with mu held.
func (c *checkpoints) checkRoom() error {
	switch {
	case len(c.byName) >= c.maxCount:
		return service.Conflict(CodeCheckpointLimit, "%d checkpoints are kept, the limit (--max-checkpoints %d); "+
			"DELETE /_dev/checkpoints/{name} one first", len(c.byName), c.maxCount)
	case c.totalBytes() >= c.maxBytes:
		return c.overBytes(c.totalBytes())
	}
	return nil
}

// overBytes is the refusal of a save that brings the checkpoints to total bytes.
func (c *checkpoints) overBytes(total int64) error {
	return service.Conflict(CodeCheckpointLimit, "the checkpoints would take %d bytes, over the limit of %d bytes "+
		"(--max-checkpoint-bytes %d); DELETE /_dev/checkpoints/{name} one first", total, c.maxBytes, c.maxBytes)
}

// path is the file of the checkpoint name (already validated).
func (c *checkpoints) path(name string) string {
	return filepath.Join(c.dir, name+checkpointFileExt)
}

// checkName answers whether name may name a checkpoint, as the validation error naming `name`.
func checkName(name string) error {
	if !checkpointName.MatchString(name) {
		return service.Validation("name", "must be 1 to 64 characters of a-z, 0-9, '.', '_' and '-', "+
			"starting with a letter or a digit, such as \"before-upgrade\"")
	}
	return nil
}

// create saves the whole service under name; a name already taken is 409 checkpoint_exists.
func (c *checkpoints) create(ctx context.Context, name string) (Checkpoint, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byName[name]; ok {
		return Checkpoint{}, service.Conflict(CodeCheckpointExists,
			"checkpoint %q exists; DELETE /_dev/checkpoints/%s first to save another under its name", name, name)
	}
	if err := c.checkRoom(); err != nil {
		return Checkpoint{}, err
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint: %w", err)
	}
	serviceTime, err := c.save(ctx, c.path(name))
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint %s: save: %w", name, err)
	}
	size, err := savedBytes(c.path(name))
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint %s: %w", name, err)
	}
	if total := c.totalBytes() + size; total > c.maxBytes {
		// Its size is known only once written: the copy goes, so the limit holds on disk.
		if err := removeSaved(c.path(name)); err != nil {
			return Checkpoint{}, fmt.Errorf("checkpoint %s: %w", name, err)
		}
		return Checkpoint{}, c.overBytes(total)
	}
	now := time.Now()
	cp := Checkpoint{Name: name, Time: serviceTime.UTC().Format(time.RFC3339), SavedAt: now.UTC().Format(time.RFC3339),
		SizeBytes: size, saved: now}
	c.byName[name] = cp
	return cp, nil
}

// list is every checkpoint, the newest first.
func (c *checkpoints) list() []Checkpoint {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Checkpoint, 0, len(c.byName))
	for _, cp := range c.byName {
		out = append(out, cp)
	}
	slices.SortFunc(out, func(a, b Checkpoint) int {
		return cmp.Or(b.saved.Compare(a.saved), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// restore puts the service back as the checkpoint name saved it.
func (c *checkpoints) restore(ctx context.Context, name string) (Checkpoint, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cp, ok := c.byName[name]
	if !ok {
		return Checkpoint{}, service.NotFound("checkpoint " + name)
	}
	if err := c.load(ctx, c.path(name)); err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint %s: restore: %w", name, err)
	}
	return cp, nil
}

// remove deletes the checkpoint name and its file.
func (c *checkpoints) remove(name string) (Checkpoint, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cp, ok := c.byName[name]
	if !ok {
		return Checkpoint{}, service.NotFound("checkpoint " + name)
	}
	if err := removeSaved(c.path(name)); err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint %s: delete: %w", name, err)
	}
	delete(c.byName, name)
	return cp, nil
}

// saveCheckpoint serves POST /_dev/checkpoints {"name": "..."}.
func (h handler) saveCheckpoint(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Name *string `json:"name"`
	}
	if !h.decode(w, r, &in) {
		return
	}
	if in.Name == nil {
		h.resp.Fail(w, r, service.Validation("name", "is required, such as \"before-upgrade\""))
		return
	}
	if err := checkName(*in.Name); err != nil {
		h.resp.Fail(w, r, err)
		return
	}
	cp, err := h.checkpoints.create(r.Context(), *in.Name)
	if err != nil {
		h.resp.Fail(w, r, err)
		return
	}
	h.resp.OK(w, r, cp)
}

// listCheckpoints serves GET /_dev/checkpoints.
func (h handler) listCheckpoints(w http.ResponseWriter, r *http.Request) {
	h.resp.OK(w, r, h.checkpoints.list())
}

// restoreCheckpoint serves POST /_dev/checkpoints/{name}/restore.
func (h handler) restoreCheckpoint(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if err := checkName(name); err != nil {
		h.resp.Fail(w, r, err)
		return
	}
	if !h.decode(w, r, &struct{}{}) {
		return
	}
	cp, err := h.checkpoints.restore(context.WithoutCancel(r.Context()), name) // see reset
	if err != nil {
		h.resp.Fail(w, r, err)
		return
	}
	h.resp.OK(w, r, map[string]any{"restored": cp, "now": h.cfg.Clock.Now().UTC().Format(time.RFC3339)})
}

// deleteCheckpoint serves DELETE /_dev/checkpoints/{name}.
func (h handler) deleteCheckpoint(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if err := checkName(name); err != nil {
		h.resp.Fail(w, r, err)
		return
	}
	cp, err := h.checkpoints.remove(name)
	if err != nil {
		h.resp.Fail(w, r, err)
		return
	}
	h.resp.OK(w, r, map[string]any{"deleted": cp})
}

// MachinesDir is where Save keeps, beside the saved copy at path, the machines' disks under
// `dev --machines sandbox` (path + ".machines"): a checkpoint's and the --state file's.
func MachinesDir(path string) string { return path + ".machines" }

// savedBytes is the room the saved copy at path takes on disk: its file's size, plus the blocks
// held by the files of its MachinesDir, if any (a sparse disk's holes take none).
func savedBytes(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	n := fi.Size()
	err = filepath.WalkDir(MachinesDir(path), func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == MachinesDir(path) {
			return filepath.SkipAll
		}
		if err != nil {
			return err
		}
		n += allocatedBytes(p)
		return nil
	})
	return n, err
}

// removeSaved removes the saved copy at path and its MachinesDir; either may be missing.
func removeSaved(path string) error {
	err := os.Remove(path)
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	return errors.Join(err, os.RemoveAll(MachinesDir(path)))
}

// allocatedBytes is the room the file at path takes on disk (its blocks), not following a
// symlink; 0 when it cannot be read.
func allocatedBytes(path string) int64 {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil {
		return 0
	}
	return st.Blocks * 512
}
