package store

import (
	"testing"
	"time"
)

func TestPending(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	in := Instance{Status: "rebooting", Next: PendingTo("online", now)}
	if got := in.Next.StatusAt(in.Status, now.Add(-time.Second)); got != "rebooting" {
		t.Errorf("before it is due: %s", got)
	}
	if got := in.Next.StatusAt(in.Status, now); got != "online" {
		t.Errorf("when due: %s", got)
	}
	in.Next.Settle(&in.Status, now.Add(-time.Second))
	if in.Status != "rebooting" || in.Next.Status != "online" {
		t.Errorf("settled before it is due: %+v", in)
	}
	in.Next.Settle(&in.Status, now)
	if in.Status != "online" || in.Next != (Pending{}) {
		t.Errorf("after Settle: %+v", in)
	}
	if got := in.Next.StatusAt("online", now.Add(time.Hour)); got != "online" {
		t.Errorf("nothing pending: %s", got)
	}
}
