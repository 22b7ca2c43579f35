package main

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Goals of issue 32, item 7.
const (
	goalLoginP99  = 5 * time.Second
	goalIdleKB    = 8 * 1024
	goalIdleCPUPc = 0.5 // "no measurable CPU": under half a percent of one core for all machines
)

// goalIdleCPUPc200 is issue 44's goal for 200 machines: their idle CPU, all of it, under 1 % of
// one core (read to the nanosecond from schedstat).
const goalIdleCPUPc200 = 1.0

// percentile is the nearest-rank p-th percentile (0 < p <= 100) of ds, which it sorts.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	rank := int(math.Ceil(p / 100 * float64(len(ds))))
	return ds[max(rank, 1)-1]
}

// spread collects one duration per server.
func spread(logins []login, of func(login) time.Duration) []time.Duration {
	out := make([]time.Duration, len(logins))
	for i, l := range logins {
		out[i] = of(l)
	}
	return out
}

func printRow(name string, ds []time.Duration) {
	fmt.Printf("%-46s %8.2f %8.2f %8.2f %8.2f\n", name, percentile(ds, 50).Seconds(), percentile(ds, 90).Seconds(),
		percentile(ds, 99).Seconds(), slices.Max(ds).Seconds())
}

// printSummary prints the run's table and whether each goal is met.
func printSummary(o options, r result, tooMany int64) {
	deployedToLogin := spread(r.logins, func(l login) time.Duration { return l.loggedIn.Sub(l.deployed()) })
	fmt.Printf("\nmachines: %d Linux servers ordered at once over %d accounts, serve --machines sandbox at --rate-limit-scale 1\n",
		o.n, (o.n+perAccount-1)/perAccount)
	fmt.Printf("%-46s %8s %8s %8s %8s\n", "seconds", "p50", "p90", "p99", "max")
	printRow("order deployed -> SSH login (`hostname`)", deployedToLogin)
	if r.storeTimes {
		printRow("  same, from the API's whole-second finished_at", spread(r.logins, func(l login) time.Duration { return l.loggedIn.Sub(l.finished) }))
	}
	printRow("  deployed -> seen deployed with credentials", spread(r.logins, func(l login) time.Duration { return l.seen.Sub(l.deployed()) }))
	printRow("  seen -> SSH login", spread(r.logins, func(l login) time.Duration { return l.loggedIn.Sub(l.seen) }))
	printRow("POST /instances sent -> order deployed", spread(r.logins, func(l login) time.Duration { return l.deployed().Sub(l.posted) }))
	printRow("POST /instances sent -> SSH login", spread(r.logins, func(l login) time.Duration { return l.loggedIn.Sub(l.posted) }))
	attempts, refused := 0, 0
	for _, l := range r.logins {
		attempts, refused = attempts+l.attempts, refused+l.refused
	}
	fmt.Printf("SSH attempts: %d for %d logins (%d refused passwords); 429 answers waited out: %d\n", attempts, len(r.logins), refused, tooMany)
	printHangs(r.logins)

	m := summarize(r.memory.perMachine)
	n := float64(o.n)
	fmt.Printf("\nidle machine (%d machines, %d processes), MiB:     mean      max   all machines\n", m.count, r.memory.processes)
	fmt.Printf("  PSS of its processes                      %8.2f %8.2f %8.1f\n", mib(m.mean.pss), mib(m.max.pss), mib(m.total.pss))
	fmt.Printf("    of which anonymous                      %8.2f %8.2f %8.1f\n", mib(m.mean.pssAnon), mib(m.max.pssAnon), mib(m.total.pssAnon))
	fmt.Printf("    of which files (the binary's text...)   %8.2f %8.2f %8.1f\n", mib(m.mean.pssFile), mib(m.max.pssFile), mib(m.total.pssFile))
	fmt.Printf("  USS (private pages only)                  %8.2f %8.2f %8.1f\n", mib(m.mean.uss), mib(m.max.uss), mib(m.total.uss))
	b, a := r.memory.before, r.memory.after
	fmt.Printf("beside them: serve's anonymous memory %+.1f MiB (%+.2f a machine); the kernel's (Slab, PageTables, KernelStack) %+.1f MiB (%+.2f a machine);\n"+
		"  host MemAvailable %+.1f MiB (%+.2f a machine; other work on the host moves it too)\n",
		mib(a.serve.anon-b.serve.anon), mib(a.serve.anon-b.serve.anon)/n, mib(a.host.kernel-b.host.kernel), mib(a.host.kernel-b.host.kernel)/n,
		mib(a.host.available-b.host.available), mib(a.host.available-b.host.available)/n)
	machinesPc := cpuPercent(r.cpu.machinesTicks, r.cpu.window)
	fmt.Printf("idle CPU over %s: the %d machines %.2f %% of one core in all (%d ticks of 10 ms); serve %.2f %%\n",
		r.cpu.window, o.n, machinesPc, r.cpu.machinesTicks, cpuPercent(r.cpu.serveTicks, r.cpu.window))
	fmt.Printf("  to the nanosecond (schedstat): %.3f %% of one core, %.1f µs a second per machine\n",
		nsPercent(r.cpu.machinesNS, r.cpu.window), float64(r.cpu.machinesNS)/1e3/r.cpu.window.Seconds()/n)
	for _, role := range []string{"init", "agent", "other"} {
		if u := r.cpu.roles[role]; u != nil {
			fmt.Printf("  %-5s %4d processes, %4d woke: %6d wake-ups (%.2f a minute each), %8.3f ms on a CPU (%.3f %% of one core)\n",
				role, u.processes, u.woke, u.runs, float64(u.runs)/float64(u.processes)/r.cpu.window.Minutes(),
				float64(u.ns)/1e6, nsPercent(u.ns, r.cpu.window))
		}
	}
	if len(r.cpu.busy) > 0 {
		fmt.Printf("  machine processes that used CPU: %d;", len(r.cpu.busy))
		for _, b := range r.cpu.busy[:min(len(r.cpu.busy), 12)] {
			born := ""
			if b.born {
				born = ", born in the window"
			}
			fmt.Printf(" %s %s[%d] %d ticks, %.2f ms, %d wake-ups%s;", b.role, b.comm, b.pid, b.ticks, float64(b.ns)/1e6, b.runs, born)
		}
		fmt.Println()
	}

	fmt.Printf("\ndelete: %d DELETE /instances/{id} answered in %.2f s; then left on the host: %s (looked for %.1f s)\n",
		len(r.logins), r.deleteTook.Seconds(), r.afterDel, r.afterDel.waited.Seconds())
	fmt.Printf("stop: SIGTERM to exit %.2f s (exit code %d); then left on the host: %s\n",
		r.stopped.Seconds(), r.exitCode, r.afterEnd)

	p99 := percentile(deployedToLogin, 99)
	fmt.Printf("\ngoals (issue 32):\n")
	fmt.Printf("  p99 order deployed -> SSH login < %s: %.2f s, %s\n", goalLoginP99, p99.Seconds(), verdict(p99 < goalLoginP99))
	fmt.Printf("  idle machine < 8 MiB: PSS mean %.2f MiB, max %.2f MiB, %s\n", mib(m.mean.pss), mib(m.max.pss), verdict(m.max.pss < goalIdleKB))
	fmt.Printf("  no measurable idle CPU: %.2f %% of one core for %d machines, %s\n", machinesPc, o.n, verdict(machinesPc < goalIdleCPUPc))
	fmt.Printf("  nothing left after delete and stop: %s\n", verdict(r.clean()))
	nsPc := nsPercent(r.cpu.machinesNS, r.cpu.window)
	fmt.Printf("goal (issue 44): idle CPU of all machines < %.0f %% of one core: %.3f %% (schedstat, over %s), %s\n",
		goalIdleCPUPc200, nsPc, r.cpu.window, verdict(nsPc < goalIdleCPUPc200))
}

// printHangs lists the attempts that hung (connected, then nothing for attemptTimeout), each
// with its server, the step it waited at, and when it started from the order's deploy.
func printHangs(logins []login) {
	n := 0
	for _, l := range logins {
		n += len(l.hung)
	}
	fmt.Printf("SSH attempts that hung (connected, then nothing for %s): %d\n", attemptTimeout, n)
	for _, l := range logins {
		for _, h := range l.hung {
			fmt.Printf("  %s (instance %d, %s from %s): waiting for the %s, started %.2f s after deployed, %.2f s after seen\n    %s\n",
				l.hostname, l.instanceID, l.ipv4, h.local, h.step, h.at.Sub(l.deployed()).Seconds(), h.at.Sub(l.seen).Seconds(), h.seen)
		}
	}
}

// nsPercent is ns on a CPU over window as a percentage of one core.
func nsPercent(ns int64, window time.Duration) float64 {
	return 100 * float64(ns) / float64(window.Nanoseconds())
}

func cpuPercent(ticks int64, window time.Duration) float64 {
	return 100 * float64(ticks) / clockTicks / window.Seconds()
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "NOT met"
}

// machineMemory is the spread of the machines' memory: mean and max of each figure (each max
// taken on its own), and the total.
type machineMemory struct {
	count            int
	mean, max, total rollup
}

func summarize(perMachine map[string]rollup) machineMemory {
	var m machineMemory
	for _, r := range perMachine {
		m.count++
		m.total = m.total.plus(r)
		m.max = rollup{pss: max(m.max.pss, r.pss), pssAnon: max(m.max.pssAnon, r.pssAnon),
			pssFile: max(m.max.pssFile, r.pssFile), uss: max(m.max.uss, r.uss), anon: max(m.max.anon, r.anon)}
	}
	if k := int64(max(m.count, 1)); m.count > 0 {
		m.mean = rollup{pss: m.total.pss / k, pssAnon: m.total.pssAnon / k, pssFile: m.total.pssFile / k, uss: m.total.uss / k,
			anon: m.total.anon / k}
	}
	return m
}

func mib(kb int64) float64 { return float64(kb) / 1024 }
