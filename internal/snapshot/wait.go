package snapshot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// available is the ready condition of a snapshot that can be used: restored or cloned.
func available(s *client.Snapshot) bool { return s.Status == client.SnapshotAvailable }

// waitForInstanceSettled polls the instance a restore was put onto until the restore has
// settled: the status is a resting one (online or offline; a restore leaves it offline) and the
// credentials of the snapshot are delivered. A server canceled meanwhile ends the wait.
func waitForInstanceSettled(ctx context.Context, c *client.Client, id int64) (*client.Instance, error) {
	return tfutil.WaitServer(ctx, c, tfutil.ServerWait{ID: id, What: "to finish restoring", Done: (*client.Instance).Settled,
		Fail: func(in *client.Instance) error {
			if in.Gone() {
				return fmt.Errorf("instance %d is %s: it was canceled during the restore", id, in.StatusValue())
			}
			return nil
		}})
}

// isGone reports whether err says the snapshot no longer exists for the account.
func isGone(err error) bool {
	var ended *tfutil.SnapshotEndedError
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
