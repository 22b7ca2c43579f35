package sandbox

import (
	"context"
	"errors"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// gigabyte is what an image's size is counted in.
const gigabyte = 1 << 30

// CreateSnapshot starts a copy of the machine's disk on its host, under the simulator's image
// id (which holds the image's fate). Asked twice for one snapshot it answers the first image.
func (d *Datacenter) CreateSnapshot(ctx context.Context, spec datacenter.SnapshotSpec) (string, error) {
	row, ok, err := d.machine(ctx, spec.Ref)
	if err != nil {
		return "", err
	}
	if ok {
		if img, err := d.state.SnapshotMachineImage(ctx, spec.SnapshotID); err == nil {
			return img.Image, nil
		} else if !errors.Is(err, store.ErrNotFound) {
			return "", fmt.Errorf("sandbox: snapshot: %w", err)
		}
	}
	image, err := d.sim.CreateSnapshot(ctx, spec)
	if err != nil || !ok {
		return image, err
	}
	img, err := d.state.AddMachineImage(ctx, store.MachineImage{Image: image, SnapshotID: spec.SnapshotID, Ref: spec.Ref, Host: row.Host})
	if err != nil {
		return "", fmt.Errorf("sandbox: snapshot: %w", err)
	}
	if _, err := d.do(ctx, row.Host, store.MachineOp{Ref: spec.Ref, Kind: opSnapshot, Args: map[string]string{"image": img.Image}}); err != nil {
		d.log.WarnContext(ctx, "snapshot copy failed; the image is reported failed", "image", img.Image, "error", err)
	}
	return img.Image, nil
}

// PollSnapshot reports an image done when the simulator's time has passed and the copy is
// made, its size the copy's in whole GB (at least 1).
func (d *Datacenter) PollSnapshot(ctx context.Context, image string) (datacenter.SnapshotImage, error) {
	s, err := d.sim.PollSnapshot(ctx, image)
	if err != nil || !s.Done || s.Failed {
		return s, err
	}
	img, err := d.state.MachineImage(ctx, image)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return s, nil // a simulated server's image
	case err != nil:
		return datacenter.SnapshotImage{}, fmt.Errorf("sandbox: poll snapshot: %w", err)
	case !img.Done:
		return datacenter.SnapshotImage{}, nil
	case img.Failed:
		return datacenter.SnapshotImage{Done: true, Failed: true, ReadyAt: s.ReadyAt}, nil
	}
	s.SizeGB = sizeGB(img.SizeBytes)
	return s, nil
}

// sizeGB is a size in bytes in whole GB, rounded up, at least 1.
func sizeGB(bytes int64) int {
	return max(1, int((bytes+gigabyte-1)/gigabyte))
}

// RestoreSnapshot puts the image back onto the machine, which is off after: its disk and its
// password are the snapshot's (the service restores the snapshot's password too).
func (d *Datacenter) RestoreSnapshot(ctx context.Context, ref, image string) (datacenter.Transition, error) {
	tr, err := d.sim.RestoreSnapshot(ctx, ref, image)
	if err != nil {
		return tr, err
	}
	return tr, d.change(ctx, ref, opRestore, map[string]string{"image": image}, func(m *store.Machine) {
		m.Power = datacenter.StatusOffline
	})
}

// DeleteSnapshot removes the image from its host.
func (d *Datacenter) DeleteSnapshot(ctx context.Context, image string) error {
	if err := d.sim.DeleteSnapshot(ctx, image); err != nil {
		return err
	}
	img, err := d.state.MachineImage(ctx, image)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil
	case err != nil:
		return fmt.Errorf("sandbox: delete snapshot: %w", err)
	}
	op := store.MachineOp{Ref: img.Ref, Kind: opDeleteSnapshot, Args: map[string]string{"image": image}}
	if _, err := d.do(ctx, img.Host, op); err != nil {
		return d.failure(ctx, "delete snapshot", img.Ref, err)
	}
	return nil
}
