package acctest

import (
	"context"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// EventWait bounds a test's wait for something the backend or a process does in the background
// (a webhook delivered, a provider exiting, a login answered). It only keeps a broken test from
// hanging: a loaded CI host is many times slower than an idle one, and the tests assert no
// speed.
const EventWait = time.Minute

// outsideTimeout bounds each change a test makes outside Terraform (an order, an action, a
// snapshot); the backend of the tests settles within a second or two.
const outsideTimeout = time.Minute

// CreateServer orders a server through the API, as someone working outside Terraform would,
// waits until it is deployed and returns it as GET /instances/{id} shows it then. key is the
// order's Idempotency-Key and must differ between the servers of a test.
func (b *Backend) CreateServer(t *testing.T, key string, req client.CreateInstanceRequest) *client.Instance {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), outsideTimeout)
	defer cancel()
	c := b.Client(t, "en")
	created, err := c.CreateInstance(ctx, req, key)
	if err != nil {
		t.Fatalf("ordering a server outside Terraform: %v", err)
	}
	built, err := tfutil.WaitOrder(ctx, c, created.OrderID)
	if err != nil {
		t.Fatalf("waiting for a server ordered outside Terraform: %v", err)
	}
	return b.WaitServer(t, built.ID)
}

// WaitServer waits until server id has settled (online or offline, credentials delivered) and
// returns it.
func (b *Backend) WaitServer(t *testing.T, id int64) *client.Instance {
	t.Helper()
	return b.WaitServerUntil(t, id, "settle", (*client.Instance).Settled)
}

// WaitServerUntil reads server id until done holds of it, for at most outsideTimeout, and
// returns it then; what names the wait in the failure.
func (b *Backend) WaitServerUntil(t *testing.T, id int64, what string, done func(*client.Instance) bool) *client.Instance {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), outsideTimeout)
	defer cancel()
	in, err := tfutil.WaitServer(ctx, b.Client(t, "en"), tfutil.ServerWait{ID: id, What: "to " + what, Done: done})
	if err != nil {
		t.Fatalf("waiting for server %d to %s: %v", id, what, err)
	}
	return in
}

// ServerAction runs an action (power_off, ...) on server id outside Terraform and waits until
// the server has settled again.
func (b *Backend) ServerAction(t *testing.T, id int64, action string) *client.Instance {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), outsideTimeout)
	defer cancel()
	if _, err := b.Client(t, "en").RunAction(ctx, id, client.ActionRequest{Action: action}); err != nil {
		t.Fatalf("%s on server %d outside Terraform: %v", action, id, err)
	}
	return b.WaitServer(t, id)
}

// CancelServer cancels server id outside Terraform and, unless the answer already says so,
// waits until the API reports it gone.
func (b *Backend) CancelServer(t *testing.T, id int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), outsideTimeout)
	defer cancel()
	canceled, err := b.Client(t, "en").CancelInstance(ctx, id)
	if err != nil {
		t.Fatalf("canceling server %d outside Terraform: %v", id, err)
	}
	if !canceled.Gone() {
		b.WaitServerUntil(t, id, "be canceled", (*client.Instance).Gone)
	}
}

// TakeSnapshot takes a snapshot of server id outside Terraform and waits until it is
// available.
func (b *Backend) TakeSnapshot(t *testing.T, id int64, name string) *client.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), outsideTimeout)
	defer cancel()
	c := b.Client(t, "en")
	s, err := c.CreateSnapshot(ctx, id, client.CreateSnapshotRequest{Name: &name})
	if err != nil {
		t.Fatalf("taking a snapshot of server %d outside Terraform: %v", id, err)
	}
	s, err = tfutil.WaitSnapshot(ctx, c, s.ID, "to be available", func(s *client.Snapshot) bool {
		return s.Status == client.SnapshotAvailable
	})
	if err != nil {
		t.Fatalf("waiting for snapshot of server %d: %v", id, err)
	}
	return s
}
