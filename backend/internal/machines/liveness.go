package machines

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// A running machine is watched from its boot to its stop (supervise), without waking it: an
// idle machine costs no CPU (a ping on a timer woke every agent every few seconds), and a busy
// one, at its own CPU limit, is never taken for dead. Its PID 1 exiting (the agent killed from
// inside takes init with it) is seen at once; its agent stopped (SIGSTOP or a tracer's stop,
// read in /proc from the host) within livenessEvery; an agent that leaves a call unanswered
// past the call's deadline is pinged, and is down if that goes unanswered for pingTimeout too.
// The Manager then boots it again from its disk and tells Options.Revived, so it is answering
// again, or reported failed, within livenessEvery and its boot; a boot that fails is tried
// again, less and less often, until one works. A machine stopped on purpose (Stop, Delete,
// Close) is not watched any more and stays off.

// livenessEvery is how often a running machine's agent is looked at in /proc.
const livenessEvery = 2 * time.Second

// reviveTimeout bounds booting a machine found down: the kill of what is left, then the boot.
func (m *Manager) reviveTimeout() time.Duration { return killTimeout + m.o.BootTimeout + 5*time.Second }

// reviveBackoffMax bounds the wait between two boots of a machine found down whose boots fail.
const reviveBackoffMax = time.Minute

// The reasons a machine is booted again (Options.Revived; the restart metric's label).
const (
	ReasonExited       = "exited"       // its PID 1 exited: the agent (or init) died
	ReasonUnresponsive = "unresponsive" // its agent did not answer a ping in time
)

// supervise watches run, mc's boot, until it ends or stops answering, then revives mc. It
// returns when run is over; the boot that revives mc starts its own watch.
func (m *Manager) supervise(mc *machine, run *running) {
	ticker := time.NewTicker(livenessEvery)
	defer ticker.Stop()
	for {
		select {
		case <-run.done:
			m.revive(mc, run, ReasonExited)
			return
		case <-ticker.C:
			if stopped(run.agent) && run.alive() {
				m.log.Warn("machine agent stopped", "ref", mc.ref, "pid", run.agent)
				m.revive(mc, run, ReasonUnresponsive)
				return
			}
		case <-run.ctl.unanswered:
			if err := run.ctl.ping(context.Background()); err != nil && run.alive() {
				m.log.Warn("machine agent left a call unanswered, and its ping", "ref", mc.ref, "error", err)
				m.revive(mc, run, ReasonUnresponsive)
				return
			}
		}
	}
}

// firstChild is the first child of process pid (0: none, or unreadable): at a machine's boot,
// before anything of its users runs, init's only child, the agent.
func firstChild(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	child, _ := strconv.Atoi(f[0])
	return child
}

// stopped tells whether process pid is stopped: by a signal (state T) or by a tracer (t).
func stopped(pid int) bool {
	if pid == 0 {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false // gone: PID 1's exit tells
	}
	return stoppedState(string(b))
}

// stoppedState reads the state in a /proc/PID/stat line: the field after the command, which
// is in parentheses and may itself hold spaces and parentheses.
func stoppedState(stat string) bool {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return false
	}
	state := stat[i+2]
	return state == 'T' || state == 't'
}

// revive boots mc again if run is still its boot: not stopped, rebooted or deleted meanwhile
// (each of those takes mc's lock and replaces or clears mc.run), and the Manager not closed. A
// boot that fails is tried again (retryRevive) until one works or the machine is stopped.
func (m *Manager) revive(mc *machine, run *running, reason string) {
	mc.mu.Lock()
	if mc.run != run || mc.rec == nil || m.isClosed() {
		mc.mu.Unlock()
		return
	}
	m.log.Warn("machine down; booting it again", "ref", mc.ref, "reason", reason, "pid", run.pid, "exit", exitState(run))
	if m.o.FoundDown != nil {
		m.o.FoundDown(mc.ref, reason)
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.reviveTimeout())
	m.kill(ctx, mc)
	mc.down = true
	err := m.reboot(ctx, mc)
	cancel()
	mc.mu.Unlock()
	m.revived(mc, reason, err)
	if err != nil {
		go m.retryRevive(mc, reason)
	}
}

// retryRevive boots again a machine whose revival failed, waiting twice as long after each
// failure (from livenessEvery to reviveBackoffMax), until a boot works or the machine is
// stopped, deleted or the Manager closed (which ends its wait at once).
func (m *Manager) retryRevive(mc *machine, reason string) {
	for wait := livenessEvery; ; wait = min(2*wait, reviveBackoffMax) {
		select {
		case <-time.After(wait):
		case <-m.done:
			return
		}
		mc.mu.Lock()
		if !mc.down || mc.run != nil || mc.rec == nil || m.isClosed() {
			mc.mu.Unlock()
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), m.reviveTimeout())
		err := m.reboot(ctx, mc)
		cancel()
		mc.mu.Unlock()
		m.revived(mc, reason, err)
		if err == nil {
			return
		}
	}
}

// reboot is the boot of a machine found down; mc.down ends with a boot that works.
func (m *Manager) reboot(ctx context.Context, mc *machine) error {
	if err := m.boot(ctx, mc); err != nil {
		return err
	}
	mc.down = false
	return nil
}

// revived logs a revival's outcome and tells Options.Revived.
func (m *Manager) revived(mc *machine, reason string, err error) {
	if err != nil {
		m.log.Error("machine down and not booted again; trying again", "ref", mc.ref, "reason", reason, "error", err)
	}
	if m.o.Revived != nil {
		m.o.Revived(mc.ref, reason, err)
	}
}

func (m *Manager) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}
