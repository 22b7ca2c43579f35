package snapshot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// failedError is a snapshot whose image the datacenter could not make. A failed snapshot is
// final and never billed; the API deletes what is left of the image by itself.
type failedError struct {
	ID         int64
	InstanceID int64
}

func (e *failedError) Error() string {
	return fmt.Sprintf("the datacenter could not make the image of snapshot %d of instance %d: its status is "+
		"failed. A failed snapshot is final and never billed", e.ID, e.InstanceID)
}

// endedError is a snapshot that ended (deleted or expired) while it was waited for.
type endedError struct {
	ID     int64
	Status string
}

func (e *endedError) Error() string {
	return fmt.Sprintf("snapshot %d is %s: it was deleted outside Terraform, or it expired (a local snapshot ends "+
		"with its server, an unpaid one after 72 hours locked)", e.ID, e.Status)
}

// waitForSnapshot polls the snapshot (through the shared snapshot list, so concurrent waits
// share one request per poll) until ready says it is and returns its last reading. A
// failed snapshot is a *failedError, a deleted or expired one an *endedError, and a cut-short
// wait a *tfutil.WaitError.
func waitForSnapshot(ctx context.Context, c *client.Client, id int64, what string, ready func(*client.Snapshot) bool) (*client.Snapshot, error) {
	var last *client.Snapshot
	err := tfutil.Poll(ctx, tfutil.PollOptions{What: fmt.Sprintf("snapshot %d %s", id, what)},
		func(ctx context.Context) (bool, string, error) {
			s, err := c.SnapshotShared(ctx, id)
			if err != nil {
				return false, "", fmt.Errorf("reading snapshot %d: %w", id, err)
			}
			last = s
			switch s.Status {
			case client.SnapshotFailed:
				instanceID := int64(0)
				if s.InstanceID != nil {
					instanceID = *s.InstanceID
				}
				return false, s.Status, &failedError{ID: id, InstanceID: instanceID}
			case client.SnapshotDeleted, client.SnapshotExpired:
				return false, s.Status, &endedError{ID: id, Status: s.Status}
			}
			return ready(s), s.Status, nil
		})
	return last, err
}

// available is the ready condition of a snapshot that can be used: restored or cloned.
func available(s *client.Snapshot) bool { return s.Status == client.SnapshotAvailable }

// waitForInstanceSettled polls the instance a restore was put onto until the restore has
// settled: the status is a resting one (online or offline; a restore leaves it offline) and the
// credentials of the snapshot are delivered.
func waitForInstanceSettled(ctx context.Context, c *client.Client, id int64) (*client.Instance, error) {
	var last *client.Instance
	err := tfutil.Poll(ctx, tfutil.PollOptions{What: fmt.Sprintf("instance %d to finish restoring", id)},
		func(ctx context.Context) (bool, string, error) {
			in, err := c.GetInstance(ctx, id, false)
			if err != nil {
				return false, "", fmt.Errorf("reading instance %d: %w", id, err)
			}
			last = in
			status := in.StatusValue()
			if in.Gone() {
				return false, status, fmt.Errorf("instance %d is %s: it was canceled during the restore", id, status)
			}
			if in.CredentialsPending() {
				status += ", credentials pending"
			}
			return in.Settled(), status, nil
		})
	return last, err
}

// isGone reports whether err says the snapshot no longer exists for the account.
func isGone(err error) bool {
	var ended *endedError
	return tfutil.IsNotFound(err) || errors.As(err, &ended)
}

// restore runs POST /snapshots/{id}/restore and returns when it was accepted. While the snapshot
// is busy (409 snapshot_unavailable while it is being created, or restored by another run) it
// waits and asks again, within the create timeout; the refused request changed nothing.
func restore(ctx context.Context, c *client.Client, id int64) (time.Time, *client.Snapshot, error) {
	var at time.Time
	var snap *client.Snapshot
	err := tfutil.Poll(ctx, tfutil.PollOptions{What: fmt.Sprintf("snapshot %d to accept the restore", id)},
		func(ctx context.Context) (bool, string, error) {
			at = time.Now().UTC().Truncate(time.Second)
			var err error
			snap, err = c.RestoreSnapshot(ctx, id)
			if tfutil.HasCode(err, client.CodeSnapshotUnavailable) {
				if s, getErr := c.GetSnapshot(ctx, id); getErr == nil && s.Busy() {
					return false, s.Status, nil
				}
			}
			return err == nil, "accepted", err
		})
	return at, snap, err
}
