package machineinit

import (
	"runtime/debug"
	"runtime/metrics"
)

// A machine's two Go processes, init and the agent, start with the host's settings for them
// (GOMAXPROCS=1 GOGC=50: boot.go, startAgent). Left so, the Go runtime wakes each of them while
// the machine is idle: it forces a collection every two minutes whatever the heap
// (runtime.forcegcperiod), and its scavenger then gives memory back in small steps on a timer of
// its own. Few cycles each, but 200 idle machines are 400 such processes: 1.9 to 2.9 % of a
// core (bench/README.md, issue 44). The runtime forces no collection while collecting is off
// (GOGC=off), and its monitor thread then sleeps up to a minute at a time, so an idle process
// turns collecting off: init once its machine is up (it only reaps from then on), the agent
// whenever nothing runs through it (package agent's activity count) and on again when
// something does. Nothing of ours ticks in either process while idle.

// idleHeadroom is what an idle process may allocate above what it holds after Idle's
// collection before the runtime collects again: the idle memory limit's margin, the safety
// net should something allocate while the process counts as idle (a ping from the host, a
// log line). It bounds what such allocations add to an idle machine's memory.
const idleHeadroom = 2 << 20

// GC is a process's collector settings: GOGC's percentage and the soft memory limit
// (GOMEMLIMIT), as runtime/debug sets them.
type GC struct {
	Percent int
	Limit   int64
}

// CurrentGC reads the process's collector settings (the environment's GOGC and GOMEMLIMIT
// until something changes them).
func CurrentGC() GC {
	percent := debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return GC{Percent: percent, Limit: debug.SetMemoryLimit(-1)}
}

// Idle collects, gives the host back every page the heap does not use, and turns collecting
// off, with a memory limit idleHeadroom above what the process then holds: the runtime forces
// no collection of an idle process, and collects only should it grow past that limit. The
// collection takes a millisecond or two on a machine's small heap, once per idle spell.
//
// The limit is set before collecting is turned off, and never lifted while it is: with
// neither, the heap's goal is unbounded, and a collection that ends with a goal over 1 GiB
// makes the runtime ask for huge pages for its heap metadata (mheap.enableMetadataHugePages),
// which costs 8 MiB and more of memory (seen: an idle init at 10.5 MiB).
func Idle() {
	debug.SetMemoryLimit(inUse() + idleHeadroom)
	debug.SetGCPercent(-1)
	debug.FreeOSMemory()
	debug.SetMemoryLimit(inUse() + idleHeadroom)
}

// Busy gives the process back its collector settings for work (what CurrentGC read at its
// start): collecting on at their percentage, then Idle's memory limit lifted (in that order:
// see Idle).
func Busy(gc GC) {
	debug.SetGCPercent(gc.Percent)
	debug.SetMemoryLimit(gc.Limit)
}

// inUse is the memory the runtime's soft limit is measured against: every byte it has mapped
// less the heap's pages released to the host.
func inUse() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}
