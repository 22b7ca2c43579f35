package snapshot

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// takeSnapshot asks the API for a snapshot of instanceID and returns it in creating.
//
// The POST has no Idempotency-Key, so the client does not repeat it when its answer is lost (a
// connection reset, or a 502/503/504 from a gateway in front of the API): the API may or may not
// have taken the snapshot. takeSnapshot then looks for it among the instance's snapshots that
// were not there before the first attempt, and asks again only when it is not there, so a lost
// answer neither fails the apply nor takes a second, billed snapshot. It asks at most the
// client's retry budget again (max_retries), and it looks after the last lost answer too, so a
// snapshot that the last attempt took reaches the state rather than being orphaned (CI once
// found one left after three lost answers, when the attempts were three). A request cut short
// by the apply's interrupt or the create timeout is not asked again: takeSnapshot only looks for
// what it took (findCutShort), so the snapshot reaches the state rather than being orphaned.
func takeSnapshot(ctx context.Context, c *client.Client, instanceID int64, req client.CreateSnapshotRequest) (*client.Snapshot, error) {
	before, err := c.ListInstanceSnapshots(ctx, instanceID)
	if err != nil {
		return nil, fmt.Errorf("listing the snapshots the instance has before taking one: %w", err)
	}
	attempts := c.MaxRetries() + 1
	for attempt := 1; ; attempt++ {
		snap, err := c.CreateSnapshot(ctx, instanceID, req)
		if err != nil && cutShort(ctx, err) {
			return findCutShort(ctx, c, instanceID, req.Name, before.Snapshots, err)
		}
		if err == nil || !answerLost(ctx, err) {
			return snap, err
		}
		tflog.Warn(ctx, "the answer to a snapshot create was lost; looking for the snapshot it may have taken",
			map[string]any{"instance_id": instanceID, "attempt": attempt, "attempts": attempts, "error": err.Error()})
		found, findErr := findLostSnapshot(ctx, c, instanceID, req.Name, before.Snapshots)
		if findErr != nil {
			return nil, fmt.Errorf("%w; looking for the snapshot it may have taken: %w", err, findErr)
		}
		if found != nil {
			tflog.Info(ctx, "found the snapshot whose answer was lost", map[string]any{"snapshot_id": found.ID})
			return found, nil
		}
		if attempt >= attempts {
			return nil, fmt.Errorf("%w (%d attempts, each answer lost, and the instance shows no snapshot taken)", err, attempt)
		}
	}
}

// cutShortLookups and cutShortPause bound findCutShort: the API may still be committing the
// snapshot when the client gives up on its request, and a user who pressed Ctrl-C should not
// wait long.
const (
	cutShortLookups = 3
	cutShortPause   = 500 * time.Millisecond
	cutShortTimeout = 15 * time.Second
)

// cutShort reports whether err is the request's own end by ctx (the apply's interrupt or the
// create timeout) before the API answered: whether the API took the snapshot is unknown.
func cutShort(ctx context.Context, err error) bool {
	_, answered := client.AsAPIError(err)
	return ctx.Err() != nil && !answered
}

// findCutShort looks, on a context free of ctx's end, for the snapshot a create cut short may
// have taken, so that it reaches the state (to be deleted, or kept, by the next apply) instead
// of becoming an orphan that is billed once available. It returns that snapshot, or err when the
// API shows none.
func findCutShort(ctx context.Context, c *client.Client, instanceID int64, name *string, before []client.Snapshot, err error) (*client.Snapshot, error) {
	look, cancel := context.WithTimeout(context.WithoutCancel(ctx), cutShortTimeout)
	defer cancel()
	for i := 1; i <= cutShortLookups; i++ {
		found, findErr := findLostSnapshot(look, c, instanceID, name, before)
		switch {
		case findErr != nil:
			tflog.Warn(ctx, "looking for the snapshot a cut-short create may have taken failed", map[string]any{"error": findErr.Error()})
			return nil, fmt.Errorf("%w; looking for the snapshot it may have taken: %w", err, findErr)
		case found != nil:
			tflog.Info(ctx, "found the snapshot a cut-short create took", map[string]any{"snapshot_id": found.ID})
			return found, nil
		case i < cutShortLookups:
			if sleepErr := client.Sleep(look, cutShortPause); sleepErr != nil {
				return nil, err
			}
		}
	}
	return nil, err
}

// answerLost reports whether err leaves open whether the API processed the request: no answer
// came (a network error other than the caller's own cancellation), or a gateway answered 502, 503
// or 504 without the API's error envelope. An error from the API itself is a real answer.
func answerLost(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	apiErr, ok := client.AsAPIError(err)
	if !ok {
		return true
	}
	switch apiErr.Status {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return apiErr.Code == ""
	}
	return false
}

// findLostSnapshot returns the snapshot of instanceID that a lost create took, or nil when the
// API shows none: an active snapshot not in before and named name (any name when name is nil, since
// the API then names it). More than one such unnamed snapshot is an error rather than a guess,
// since another may belong to a create running at the same time.
func findLostSnapshot(ctx context.Context, c *client.Client, instanceID int64, name *string, before []client.Snapshot) (*client.Snapshot, error) {
	now, err := c.ListInstanceSnapshots(ctx, instanceID)
	if err != nil {
		return nil, err
	}
	var found []client.Snapshot
	for _, s := range now.Snapshots {
		if !slices.ContainsFunc(before, func(b client.Snapshot) bool { return b.ID == s.ID }) &&
			(name == nil || s.Name == *name) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return &found[0], nil
	}
	ids := make([]string, len(found))
	for i, s := range found {
		ids[i] = fmt.Sprint(s.ID)
	}
	return nil, errors.New("instance has several new snapshots (" + strings.Join(ids, ", ") + ") and the lost " +
		"answer does not say which is this one: import the right one with `terraform import` and delete the others, " +
		"or give the snapshot a name so it can be told apart")
}
