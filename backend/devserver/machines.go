package devserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/devapi"
	"github.com/reseller/terraform-provider-reseller/backend/internal/machines"
	"github.com/reseller/terraform-provider-reseller/backend/internal/sandbox"
)

// Under --machines sandbox the service is its database and its machines: the disk set of
// --machines-dir (package machines: every machine's disk, spec and password hash, and the
// snapshots). A reset, a checkpoint, a restore and the --state file treat the two as one: each
// stops the backend (server.Close stops every machine cleanly: no process, mount, veth or
// cgroup of them is left, and their disks are unmounted), moves or copies the database and the
// disk set while nothing runs, then starts a backend again, which boots the machines its
// database says are online from their disks (sandbox.Boot), at their addresses and with their
// passwords. Stopping rather than freezing the machines costs each one a boot (its processes
// start again) but leaves its disk as a clean shutdown left it, with every write on it.

// machinesDir is --machines-dir under --machines sandbox (dev's temporary one unless given),
// "" with simulated servers.
func (b *backend) machinesDir() string {
	if !b.cfg.Machines.Sandbox() {
		return ""
	}
	return b.cfg.Machines.Dir
}

// disksAside is where replace keeps the disk set of the service it replaces until the new one
// serves: a directory of --machines-dir, so a rename moves it.
func (b *backend) disksAside(op string) string {
	return filepath.Join(b.machinesDir(), ".before-"+op)
}

// stopForCopy closes the backend, so its machines stop and its database is closed, and returns
// what starts it again as it was (the fail rate PUT /_dev/fail-rate left included); a failed
// start leaves dev down (errDown), and so does a failed close (stop), which copies nothing.
// Called with mu held for writing.
func (b *backend) stopForCopy() (resume func(ctx context.Context) error, err error) {
	if b.srv == nil {
		return func(context.Context) error { return nil }, nil
	}
	if err := b.stop("save"); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		cfg := b.cfg
		cfg.KeepFailRate = true
		srv, err := b.start(ctx, cfg)
		if err != nil {
			b.down = fmt.Errorf("dev: starting the service again after the save: %w", err)
			return b.errDown()
		}
		b.srv, b.down = srv, nil
		return nil
	}, nil
}

// saveDisks copies the disk set of the stopped service to MachinesDir(path), replacing the one
// a previous save left there (the --state file's): the copy is made beside it first, so until
// it is complete the old one stays whole.
func (b *backend) saveDisks(ctx context.Context, path string) error {
	dst := devapi.MachinesDir(path)
	tmp, err := os.MkdirTemp(filepath.Dir(dst), ".resellerd-machines-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	next := filepath.Join(tmp, "next")
	if err := machines.CopyDiskSet(ctx, b.machinesDir(), next); err != nil {
		return err
	}
	if err := copyHostID(b.machinesDir(), next); err != nil {
		return err
	}
	old := filepath.Join(tmp, "old")
	if err := os.Rename(dst, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Rename(next, dst); err != nil {
		_ = os.Rename(old, dst)
		return err
	}
	return nil
}

// stageDisks copies the disk set saved beside path (MachinesDir) into a new directory of
// --machines-dir, ready to take the place of the live one by a rename; "" with simulated
// servers. A saved copy without one (a --state file written with simulated servers) stages an
// empty disk set.
func (b *backend) stageDisks(ctx context.Context, path string) (string, error) {
	dir := b.machinesDir()
	if dir == "" {
		return "", nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dir, ".restore-")
	if err != nil {
		return "", err
	}
	staged := filepath.Join(tmp, "disks")
	src := devapi.MachinesDir(path)
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		return staged, os.Mkdir(staged, 0o700)
	}
	if err := machines.CopyDiskSet(ctx, src, staged); err != nil {
		_ = os.RemoveAll(tmp)
		return "", err
	}
	return staged, nil
}

// dropStaged removes what stageDisks made, once used or given up.
func dropStaged(staged string) {
	if staged == "" {
		return
	}
	if machines.RemoveDiskSet(staged) == nil {
		_ = os.RemoveAll(filepath.Dir(staged))
	}
}

// moveDisks moves the disk set of from to to (machines.MoveDiskSet); nothing with simulated
// servers.
func (b *backend) moveDisks(from, to string) error {
	if b.machinesDir() == "" {
		return nil
	}
	return machines.MoveDiskSet(from, to)
}

// dropDisks removes the disk set replace kept aside at dir, and dir; nothing with simulated
// servers. A failure leaves it for dev's exit, which removes its temporary directory.
func (b *backend) dropDisks(dir string) {
	if b.machinesDir() == "" {
		return
	}
	if machines.RemoveDiskSet(dir) == nil {
		_ = os.Remove(dir)
	}
}

// ioTimeout bounds a reset, a save or a restore of the whole service: stateIOTimeout, or
// machinesIOTimeout under --machines sandbox.
func (b *backend) ioTimeout() time.Duration {
	if b.machinesDir() != "" {
		return machinesIOTimeout
	}
	return stateIOTimeout
}

// copyHostID copies the host id of the machines' directory from (sandbox.HostIDFile) to the
// directory to, when from has one: the machine rows of a saved database name the host their
// machines run on, so a --state file's machines boot on the next run's host only under the same
// id (loadStateDisks).
func copyHostID(from, to string) error {
	id, err := os.ReadFile(filepath.Join(from, sandbox.HostIDFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(to, sandbox.HostIDFile), id, 0o600)
}

// loadStateDisks puts the disk set saved beside the --state file at path in the place of the
// one --machines-dir holds (the state's machines win, as its database does), with the host id
// it was saved under; nothing with simulated servers. Called before any backend starts.
func (b *backend) loadStateDisks(ctx context.Context, path string) error {
	dir := b.machinesDir()
	if dir == "" {
		return nil
	}
	staged, err := b.stageDisks(ctx, path)
	if err != nil {
		return err
	}
	defer dropStaged(staged)
	if err := machines.MoveDiskSet(staged, dir); err != nil {
		return err
	}
	return copyHostID(devapi.MachinesDir(path), dir)
}

// defaultMachinesDir is where dev keeps its machines without --machines-dir: beside a --db
// file (db + ".machines"), so that dev started again on the file finds the machines its rows
// name and boots them, as it finds its accounts (keptAccounts); else in dev's temporary
// directory tmp, removed at exit with the temporary database.
func defaultMachinesDir(db string, keepDB bool, tmp string) string {
	if path, ok := SQLitePath(db); ok && keepDB {
		return devapi.MachinesDir(path)
	}
	return filepath.Join(tmp, "machines")
}
