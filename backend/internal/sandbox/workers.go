package sandbox

import (
	"context"
	"log/slog"
)

// machineWorkers bounds the machines of this host whose ops are applied at once.
const machineWorkers = 32

// dispatch starts a worker for every machine of this host with pending ops, without waiting
// for any: a machine whose op hangs until its deadline holds its own worker only, and the
// reconciler goes on looking and starting the others'.
func (d *Datacenter) dispatch(ctx context.Context) {
	ops, err := d.state.PendingMachineOps(ctx, d.host, "", opsPerPass)
	if err != nil {
		if ctx.Err() == nil {
			d.log.ErrorContext(ctx, "pending machine ops", slog.Any("error", err))
		}
		return
	}
	for _, op := range ops {
		d.kick(ctx, op.Ref)
	}
}

// pass is dispatch, then waits until every machine's worker is done: Boot applies what was
// asked of this host while it was down before it returns.
func (d *Datacenter) pass(ctx context.Context) {
	d.dispatch(ctx)
	d.waitIdle()
}

// waitIdle returns once no machine has a worker.
func (d *Datacenter) waitIdle() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for len(d.busy) > 0 {
		d.idle.Wait()
	}
}

// kick makes sure machine ref's pending ops are applied by its worker: started now, or told
// to look again when it has one already.
func (d *Datacenter) kick(ctx context.Context, ref string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.busy[ref] {
		d.again[ref] = true
		return
	}
	d.busy[ref] = true
	go d.work(ctx, ref)
}

// work is machine ref's worker: it applies the machine's pending ops (runRef) in one of the
// machineWorkers slots, again while it was kicked meanwhile, then ends.
func (d *Datacenter) work(ctx context.Context, ref string) {
	select {
	case d.slots <- struct{}{}:
		defer func() { <-d.slots }()
	case <-ctx.Done():
		d.over(ctx, ref)
		return
	}
	for {
		d.runRef(ctx, ref)
		if d.over(ctx, ref) {
			return
		}
	}
}

// over reports whether machine ref's worker is done, and if so ends it; it is not when it
// was kicked while it ran (and ctx goes on): a kick is never lost between the check and the
// end, both made under d.mu.
func (d *Datacenter) over(ctx context.Context, ref string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.again[ref] && ctx.Err() == nil {
		delete(d.again, ref)
		return false
	}
	delete(d.busy, ref)
	delete(d.again, ref)
	if len(d.busy) == 0 {
		d.idle.Broadcast()
	}
	return true
}
