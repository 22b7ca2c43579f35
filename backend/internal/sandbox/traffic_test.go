package sandbox

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/machines"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// TestAddTraffic: each read adds what the interface's counter moved since the read before; a
// read of a new interface, or of a counter that went back, counts that counter from 0; the same
// read twice adds nothing.
func TestAddTraffic(t *testing.T) {
	t.Parallel()
	var count store.TrafficCount
	for _, step := range []struct {
		name string
		read machines.Traffic
		want int64 // Bytes after the read
	}{
		{"first read of the first interface", machines.Traffic{Link: 7, Bytes: 1_000}, 1_000},
		{"the counter moved", machines.Traffic{Link: 7, Bytes: 1_500}, 1_500},
		{"the same read again", machines.Traffic{Link: 7, Bytes: 1_500}, 1_500},
		{"a new interface (a boot) counts from 0", machines.Traffic{Link: 9, Bytes: 200}, 1_700},
		{"a new interface whose counter is already past the old one's", machines.Traffic{Link: 12, Bytes: 5_000}, 6_700},
		{"the counter went back on the same link", machines.Traffic{Link: 12, Bytes: 300}, 7_000},
		{"and moves on from there", machines.Traffic{Link: 12, Bytes: 1_300}, 8_000},
	} {
		count = addTraffic(count, step.read)
		if count.Bytes != step.want || count.Link != step.read.Link || count.Counter != step.read.Bytes {
			t.Fatalf("%s: got %+v, want %d bytes, link %d, counter %d", step.name, count, step.want, step.read.Link, step.read.Bytes)
		}
	}
}

// TestTrafficCountedAcrossPowerCycles: Live, through the machine's own host or another
// replica, reports every byte its interface moved: what it moved before a power_off is read
// before the interface goes, a new interface after the boot counts from 0, and reading again
// adds nothing. LiveStored reads the machines of its own host only.
func TestTrafficCountedAcrossPowerCycles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, fa, _ := replicas(t)
	ticket, err := a.Build(ctx, datacenter.BuildSpec{OrderID: 21, DatacenterID: 1, PlanID: 102, TemplateID: 1, OSType: "linux", Hostname: "t21"})
	if err != nil {
		t.Fatal(err)
	}
	built := pollDone(t, a, ticket)
	ref := built.Machine.Ref
	setCounter := func(link int, bytes int64) {
		t.Helper()
		if err := fa.with(ref, func(m *fakeMachine) error { m.traffic = machines.Traffic{Link: link, Bytes: bytes}; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	counted := func(d *Datacenter, want int64) {
		t.Helper()
		live, err := d.Live(ctx, ref, built.Machine.CredentialsAt)
		if err != nil || !live.Counted || live.CountedBytes != want {
			t.Fatalf("Live through %s = %+v, %v; want %d bytes counted", d.Host(), live, err, want)
		}
	}
	setCounter(3, 1_200_000_000)
	counted(a, 1_200_000_000)
	counted(b, 1_200_000_000) // read again, by the other replica through an op: nothing added
	setCounter(3, 1_500_000_000)
	if _, err := b.Power(ctx, ref, datacenter.PowerOff); err != nil {
		t.Fatal(err)
	}
	counted(a, 1_500_000_000) // read before the interface went; off, nothing to read now
	if _, err := a.Power(ctx, ref, datacenter.PowerOn); err != nil {
		t.Fatal(err)
	}
	setCounter(4, 100) // the boot's new interface
	counted(b, 1_500_000_100)
	counted(a, 1_500_000_100)

	// The traffic worker's read waits on no other host: through b it is the count a stored
	// last; through a, the machine's host, it is read now.
	setCounter(4, 300)
	stored := func(d *Datacenter, want int64) {
		t.Helper()
		live, err := d.LiveStored(ctx, ref, built.Machine.CredentialsAt)
		if err != nil || !live.Counted || live.CountedBytes != want {
			t.Fatalf("LiveStored through %s = %+v, %v; want %d bytes counted", d.Host(), live, err, want)
		}
	}
	stored(b, 1_500_000_100)
	stored(a, 1_500_000_300)
	stored(b, 1_500_000_300)
}

// TestTrafficWorkerReadsOneRow: the traffic worker's read of a machine of this host
// (LiveStored) reads the machine's row once, whether its counter moved or not, and still counts
// every byte: the worker reads every live machine every TrafficEvery, so its reads are a cost
// per machine the host pays all the time.
func TestTrafficWorkerReadsOneRow(t *testing.T) {
	t.Parallel()
	counting := &rowReads{}
	a, _, fa, _ := replicasOver(t, func(s State) State { counting.State = s; return counting })
	ctx := context.Background()
	ticket, err := a.Build(ctx, datacenter.BuildSpec{OrderID: 22, DatacenterID: 1, PlanID: 102, TemplateID: 1, OSType: "linux", Hostname: "t22"})
	if err != nil {
		t.Fatal(err)
	}
	built := pollDone(t, a, ticket)
	ref := built.Machine.Ref
	for _, step := range []struct {
		name    string
		counter int64 // the interface's counter before the read
		want    int64 // the count after it
	}{
		{"the counter moved", 5_000, 5_000},
		{"it did not", 5_000, 5_000},
		{"it moved again", 7_500, 7_500},
	} {
		if err := fa.with(ref, func(m *fakeMachine) error { m.traffic = machines.Traffic{Link: 3, Bytes: step.counter}; return nil }); err != nil {
			t.Fatal(err)
		}
		counted := context.WithValue(ctx, rowReadsKey{}, true)
		before := counting.n.Load()
		live, err := a.LiveStored(counted, ref, built.Machine.CredentialsAt)
		if err != nil || !live.Counted || live.CountedBytes != step.want {
			t.Fatalf("%s: LiveStored = %+v, %v; want %d bytes counted", step.name, live, err, step.want)
		}
		if reads := counting.n.Load() - before; reads != 1 {
			t.Errorf("%s: LiveStored read the machine's row %d times, want once", step.name, reads)
		}
	}
}

// rowReads counts the machine rows read with a context marked by rowReadsKey (the test's own
// reads, not its reconcilers').
type rowReads struct {
	State
	n atomic.Int64
}

type rowReadsKey struct{}

func (r *rowReads) Machine(ctx context.Context, ref string) (store.Machine, error) {
	if ctx.Value(rowReadsKey{}) != nil {
		r.n.Add(1)
	}
	return r.State.Machine(ctx, ref)
}
