package tfutil

// The waits for the API's things, one per thing: a server until a condition holds of it
// (WaitServer), an order until it is deployed (WaitOrder) and a snapshot until a condition holds
// of it (WaitSnapshot). Every resource, action and test helper that waits for one of them goes
// through these, so the reads (the client's shared lists where waits can share one request), the
// progress log and the bounds of Poll are the same everywhere.

import (
	"context"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// ServerWait says which server WaitServer polls, how it reads it and when the wait is over.
type ServerWait struct {
	// ID is the instance id.
	ID int64
	// OrderID, when not zero, is the order that built the server: the server is then read from
	// that order in the client's shared GET /orders list (a deployed order carries the full
	// detail, credentials included), so every create waiting at once shares one request per
	// poll. Zero reads the server with GET /instances/{id}.
	OrderID int64
	// What completes "instance <ID> ..." in logs and errors, e.g. "to settle".
	What string
	// Done reports whether the wait is over for one reading.
	Done func(*client.Instance) bool
	// Fail, when set, ends the wait at once with its error for a reading it refuses (a server
	// canceled while a restore runs); nil refuses nothing.
	Fail func(*client.Instance) error
}

// WaitServer polls the server of w until w.Done holds of it, within the bounds of Poll, and
// returns its last reading (nil when none was made). A failed read ends the wait with that error,
// a cut-short wait is a *WaitError.
func WaitServer(ctx context.Context, c *client.Client, w ServerWait) (*client.Instance, error) {
	var last *client.Instance
	err := Poll(ctx, PollOptions{What: fmt.Sprintf("instance %d %s", w.ID, w.What)},
		func(ctx context.Context) (bool, string, error) {
			in, status, err := readServer(ctx, c, w)
			if err != nil || in == nil {
				return false, status, err
			}
			last = in
			status = in.StatusValue()
			if w.Fail != nil {
				if err := w.Fail(in); err != nil {
					return false, status, err
				}
			}
			if in.CredentialsPending() {
				status += ", credentials pending"
			}
			return w.Done(in), status, nil
		})
	return last, err
}

// readServer reads the server of w once: from its order when w names one (nil with the order's
// status while the order has not built it yet), otherwise with GET /instances/{id}.
func readServer(ctx context.Context, c *client.Client, w ServerWait) (*client.Instance, string, error) {
	if w.OrderID == 0 {
		in, err := c.GetInstance(ctx, w.ID, false)
		if err != nil {
			return nil, "", fmt.Errorf("reading instance %d: %w", w.ID, err)
		}
		return in, "", nil
	}
	o, err := c.OrderShared(ctx, w.OrderID)
	if err != nil {
		return nil, "", fmt.Errorf("reading order %d: %w", w.OrderID, err)
	}
	if o.Server == nil {
		return nil, o.Status, nil // a list read before the order was deployed
	}
	if o.Server.ID != w.ID {
		return nil, "", fmt.Errorf("order %d does not name instance %d", w.OrderID, w.ID)
	}
	return o.Server, "", nil
}

// OrderTimedOutError is an order the datacenter did not build within its window: nothing was
// created or charged, and Reference is what support asks for.
type OrderTimedOutError struct {
	OrderID   int64
	Reference string
}

func (e *OrderTimedOutError) Error() string {
	return fmt.Sprintf("order %d timed out: the datacenter did not build the server in time; nothing was "+
		"created or charged (support reference %s)", e.OrderID, e.Reference)
}

// WaitOrder polls order orderID (through the client's shared GET /orders list, so every create
// waiting at once shares one poll) until it is deployed, and returns the instance it built. A
// timed_out order is an *OrderTimedOutError; a cut-short wait a *WaitError.
func WaitOrder(ctx context.Context, c *client.Client, orderID int64) (*client.Instance, error) {
	var built *client.Instance
	err := Poll(ctx, PollOptions{What: fmt.Sprintf("order %d to be deployed", orderID)},
		func(ctx context.Context) (bool, string, error) {
			o, err := c.OrderShared(ctx, orderID)
			if err != nil {
				return false, "", fmt.Errorf("reading order %d: %w", orderID, err)
			}
			switch o.Status {
			case client.OrderDeployed:
				if o.Server == nil {
					return false, o.Status, fmt.Errorf("order %d is deployed but names no server", orderID)
				}
				built = o.Server
				return true, o.Status, nil
			case client.OrderTimedOut:
				ref := ""
				if o.Reference != nil {
					ref = *o.Reference
				}
				return false, o.Status, &OrderTimedOutError{OrderID: orderID, Reference: ref}
			}
			return false, o.Status, nil
		})
	return built, err
}

// SnapshotFailedError is a snapshot whose image the datacenter could not make. A failed snapshot
// is final and never billed; the API deletes what is left of the image by itself.
type SnapshotFailedError struct {
	ID         int64
	InstanceID int64
}

func (e *SnapshotFailedError) Error() string {
	return fmt.Sprintf("the datacenter could not make the image of snapshot %d of instance %d: its status is "+
		"failed. A failed snapshot is final and never billed", e.ID, e.InstanceID)
}

// SnapshotEndedError is a snapshot that ended (deleted or expired) while it was waited for.
type SnapshotEndedError struct {
	ID     int64
	Status string
}

func (e *SnapshotEndedError) Error() string {
	return fmt.Sprintf("snapshot %d is %s: it was deleted outside Terraform, or it expired (a local snapshot ends "+
		"with its server, an unpaid one after 72 hours locked)", e.ID, e.Status)
}

// WaitSnapshot polls snapshot id (through the client's shared snapshot list, so concurrent waits
// share one request per poll) until ready holds of it, and returns its last reading; what
// completes "snapshot <id> ..." in logs and errors. A failed snapshot is a *SnapshotFailedError,
// a deleted or expired one a *SnapshotEndedError, and a cut-short wait a *WaitError.
func WaitSnapshot(ctx context.Context, c *client.Client, id int64, what string, ready func(*client.Snapshot) bool) (*client.Snapshot, error) {
	var last *client.Snapshot
	err := Poll(ctx, PollOptions{What: fmt.Sprintf("snapshot %d %s", id, what)},
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
				return false, s.Status, &SnapshotFailedError{ID: id, InstanceID: instanceID}
			case client.SnapshotDeleted, client.SnapshotExpired:
				return false, s.Status, &SnapshotEndedError{ID: id, Status: s.Status}
			}
			return ready(s), s.Status, nil
		})
	return last, err
}
