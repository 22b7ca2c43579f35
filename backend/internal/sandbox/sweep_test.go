package sandbox

import (
	"context"
	"net/netip"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/sim"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
)

// orderStatuses are the orders' statuses, set by the test, which the service's answer to
// Options.GivenUp (service.GivenUpBuilds) reads: it reads nothing else of an order.
type orderStatuses struct {
	mu     sync.Mutex
	status map[int64]string
}

func (o *orderStatuses) set(id int64, status string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.status[id] = status
}

func (o *orderStatuses) OrderByID(_ context.Context, id int64) (store.Order, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s, ok := o.status[id]
	if !ok {
		return store.Order{}, store.ErrNotFound
	}
	return store.Order{ID: id, Status: s}, nil
}

// TestMachinesOfTimedOutOrdersAreRemoved: a build given up when its order timed out leaves no
// machine and no row, whichever step it had reached: a create asked of a host that was down, to
// be applied when it came back, or a machine created before the order timed out, or one whose
// timed-out order has been purged since. Machines of deployed and pending orders are kept. Each
// step is followed by what host b then holds.
func TestMachinesOfTimedOutOrdersAreRemoved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "sandbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	orders := &orderStatuses{status: map[int64]string{}}
	s := sim.New(sim.Options{Clock: fixedClock{time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}, State: st})
	open := func(host, cidr string, every time.Duration) (*Datacenter, *fakeMachines) {
		f := newFake()
		d, err := New(Options{Sim: s, State: st, GivenUp: service.GivenUpBuilds(orders), Machines: f, Catalog: catalog.New(), Host: host,
			CIDR: netip.MustParsePrefix(cidr), LookEvery: 10 * time.Millisecond, SweepEvery: every})
		if err != nil {
			t.Fatal(err)
		}
		return d, f
	}
	a, _ := open("host-a", "198.18.0.0/16", 0)
	b, fb := open("host-b", "10.99.0.0/24", 20*time.Millisecond)
	// build asks d for order's machine. The order is pending before the build is asked, as an
	// order placed before its build is: marked after, a sweep that ran in between would find
	// a machine without an order and rightly remove it (a CI run failed so on vm-6).
	build := func(d *Datacenter, order int64) string {
		orders.set(order, store.OrderPending)
		ticket, err := d.Build(ctx, datacenter.BuildSpec{OrderID: order, DatacenterID: 1, PlanID: 102, TemplateID: 1, OSType: "linux", Hostname: "web"})
		if err != nil {
			t.Fatal(err)
		}
		return ticket
	}
	var stopRun context.CancelFunc
	var running sync.WaitGroup
	t.Cleanup(func() {
		if stopRun != nil {
			stopRun()
		}
		running.Wait()
	})

	type want struct{ machine, row bool }
	steps := []struct {
		name   string
		do     func()
		expect map[string]want // ref → on host b
	}{
		{"b builds vm-1, and vm-3 whose order is deployed", func() {
			build(b, 1)
			build(b, 3)
			b.pass(ctx) // what b's reconciler does
			orders.set(3, store.OrderDeployed)
		}, map[string]want{"vm-1": {true, true}, "vm-3": {true, true}}},
		{"b goes down; vm-2's build is asked of it, and polled through a", func() {
			ticket := build(b, 2)
			if built, err := a.Poll(ctx, ticket); err != nil || built.Done {
				t.Fatalf("Poll through a while b is down = %+v, %v; want not done", built, err)
			}
		}, map[string]want{"vm-2": {false, true}}},
		{"orders 1 and 2 time out while b is down, vm-1 running; b comes back (Boot)", func() {
			orders.set(1, store.OrderTimedOut)
			orders.set(2, store.OrderTimedOut)
			if err := b.Boot(ctx); err != nil {
				t.Fatal(err)
			}
		}, map[string]want{"vm-1": {false, false}, "vm-2": {false, false}, "vm-3": {true, true}}},
		{"b's reconciler runs; vm-4 is built; order 4 times out", func() {
			rctx, cancel := context.WithCancel(ctx)
			stopRun = cancel
			running.Add(1)
			go func() {
				defer running.Done()
				b.Run(rctx)
			}()
			pollDone(t, b, build(b, 4))
			orders.set(4, store.OrderTimedOut)
		}, map[string]want{"vm-3": {true, true}, "vm-4": {false, false}}},
		{"vm-5's timed-out order is purged; vm-6's is pending", func() {
			pollDone(t, b, build(b, 5))
			orders.mu.Lock()
			delete(orders.status, 5)
			orders.mu.Unlock()
			pollDone(t, b, build(b, 6))
			time.Sleep(100 * time.Millisecond) // several sweeps, so what is kept was swept over
		}, map[string]want{"vm-3": {true, true}, "vm-5": {false, false}, "vm-6": {true, true}}},
	}
	for _, step := range steps {
		step.do()
		for ref, w := range step.expect {
			eventually(t, step.name+": "+ref, func() bool {
				_, machine := fb.get(ref)
				_, row, err := b.machine(ctx, ref)
				return err == nil && machine == w.machine && row == w.row
			})
		}
	}
	if ops, err := st.PendingMachineOps(ctx, "host-b", "", 100); err != nil || len(ops) != 0 {
		t.Fatalf("host b's pending ops at the end: %+v, %v; want none", ops, err)
	}
	for _, id := range []string{buildOpID("vm-2"), buildOpID("vm-4")} {
		if op, err := st.MachineOp(ctx, id); err == nil {
			t.Errorf("op %s of an abandoned build left: %+v", op.ID, op)
		}
	}
}
