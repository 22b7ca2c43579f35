package machines

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// A snapshot is a copy of a machine's disk (its overlay upper layer: what differs from the
// image) and of its password hash, in snapshots/<image>/. It is taken while the machine runs,
// without freezing it, as a crash-consistent copy of a live disk would be: a file being written
// at that very moment may be copied half-written. The copy (copyTree) keeps what `cp -a` keeps,
// overlayfs's whiteouts and opaque directories included, and never follows a symlink the
// machine's root puts in the disk while it is copied.

// Snapshot copies ref's disk and password hash as snapshot image (replacing one of that name,
// so a retried snapshot is the same) and returns its size in bytes.
func (m *Manager) Snapshot(ctx context.Context, ref, image string) (int64, error) {
	mc, err := m.existing(ref)
	if err != nil {
		return 0, err
	}
	defer mc.mu.Unlock()
	dir, err := m.snapshotDir(image)
	if err != nil {
		return 0, err
	}
	// A hidden name: names (refPattern) never start with a dot, so it is never another image.
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return 0, fmt.Errorf("snapshot %s: %w", image, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+image+"-*")
	if err != nil {
		return 0, fmt.Errorf("snapshot %s: %w", image, err)
	}
	if err := withDisk(ctx, mc, func() error { return copyTree(ctx, disk(mc.dir).upper, filepath.Join(tmp, "upper")) }); err != nil {
		_ = os.RemoveAll(tmp)
		return 0, fmt.Errorf("snapshot %s of %s: %w", image, ref, err)
	}
	hash, err := os.ReadFile(mc.passwordPath())
	if err == nil {
		err = os.WriteFile(filepath.Join(tmp, "password"), hash, 0o600)
	}
	if err == nil { // the image under the copy: a disk is only readable over its own
		err = os.WriteFile(filepath.Join(tmp, "image"), []byte(m.lower(mc.rec)), 0o600)
	}
	if err == nil {
		err = os.RemoveAll(dir)
	}
	if err == nil {
		err = os.Rename(tmp, dir)
	}
	if err != nil {
		_ = os.RemoveAll(tmp)
		return 0, fmt.Errorf("snapshot %s of %s: %w", image, ref, err)
	}
	size := treeSize(filepath.Join(dir, "upper"))
	m.log.Info("machine snapshot taken", "ref", ref, "image", image, "bytes", size)
	return size, nil
}

// Restore powers ref's machine off and makes its disk and password hash the snapshot's. The
// machine stays off (the API's restore leaves the server powered off).
func (m *Manager) Restore(ctx context.Context, ref, image string) error {
	mc, err := m.existing(ref)
	if err != nil {
		return err
	}
	defer mc.mu.Unlock()
	dir, err := m.snapshotDir(image)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, "upper")); err != nil {
		return fmt.Errorf("snapshot %s: %w", image, ErrNotFound)
	}
	if err := m.halt(ctx, mc); err != nil {
		return err
	}
	snapImage, err := m.resetDisk(ctx, mc, mc.rec.Limits, image)
	if err := errors.Join(err, releaseDisk(mc)); err != nil {
		return err
	}
	if snapImage != "" && snapImage != mc.rec.Image {
		r := *mc.rec
		r.Image = snapImage
		if err := mc.save(r); err != nil {
			return err
		}
	}
	m.log.Info("machine restored", "ref", ref, "image", image)
	return nil
}

// DeleteSnapshot removes snapshot image; one this host does not have is not an error.
func (m *Manager) DeleteSnapshot(ctx context.Context, image string) error {
	dir, err := m.snapshotDir(image)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("snapshot %s: %w", image, err)
	}
	return nil
}

func (m *Manager) snapshotDir(image string) (string, error) {
	if !refPattern.MatchString(image) {
		return "", fmt.Errorf("machines: snapshot image %q: letters, digits, '.', '_' and '-' only, at most 64", image)
	}
	return filepath.Join(m.o.Dir, "snapshots", image), nil
}

// treeSize is the total size of the regular files under dir.
func treeSize(dir string) int64 {
	var size int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				size += info.Size()
			}
		}
		return nil
	})
	return size
}
