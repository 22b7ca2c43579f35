package sandbox

import (
	"context"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Every op has a deadline, so a machine that hangs (a script that never ends, an agent that
// stopped answering) fails its own op and holds nothing else: its lock is free again at the
// deadline, and an op of another machine never waits for it (each machine's ops run on a worker
// of their own, see work). An op somebody waits for carries the waiter's deadline in its
// arguments (deadlineArg), so the host, this one or another, never applies it after the waiter
// has given up: it drops it instead. An op nobody waits for (a build's create, a change asked of
// a host that was down) gets its kind's bound from when it starts.

// deadlineArg is the argument of an op holding its waiter's deadline (RFC 3339, nanoseconds).
const deadlineArg = "deadline"

// bootScriptsTimeout bounds a machine's boot scripts (bootServices) after each boot: a boot
// script that never ends is killed then, and the machine is up all the same.
const bootScriptsTimeout = 30 * time.Second

// opTimeout is how long an op of kind may take, waiting for the machine's lock included, when
// its caller gives no shorter deadline.
func opTimeout(kind string) time.Duration {
	switch kind {
	case opSetPassword, opCheckPassword:
		return 15 * time.Second // a line to the agent and its answer; a bcrypt
	case opCreate, opRebuild, opSnapshot, opRestore, opDeleteSnapshot, opRun:
		return 10 * time.Minute // a disk copied; a script (an app install passes its own bound)
	default: // power, address, limits, delete: a stop and a boot, with the boot scripts
		return 2 * time.Minute
	}
}

// withDefault is ctx bounded by d unless it has a deadline already.
func withDefault(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// withDeadlineArg is args with ctx's deadline as deadlineArg (a copy: the caller's map stays).
func withDeadlineArg(args map[string]string, ctx context.Context) map[string]string {
	at, ok := ctx.Deadline()
	if !ok {
		return args
	}
	out := make(map[string]string, len(args)+1)
	for k, v := range args {
		out[k] = v
	}
	out[deadlineArg] = at.UTC().Format(time.RFC3339Nano)
	return out
}

// opDeadline is when op must be done by: its waiter's deadline (asked), or its kind's bound
// from now.
func opDeadline(op store.MachineOp) (at time.Time, asked bool) {
	if s, ok := op.Args[deadlineArg]; ok {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t, true
		}
	}
	return time.Now().Add(opTimeout(op.Kind)), false
}
