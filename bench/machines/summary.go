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
	printRow("  order deployed -> seen by the bench's poll", spread(r.logins, func(l login) time.Duration { return l.seen.Sub(l.deployed()) }))
	printRow("  seen -> SSH login", spread(r.logins, func(l login) time.Duration { return l.loggedIn.Sub(l.seen) }))
	printRow("POST /instances sent -> order deployed", spread(r.logins, func(l login) time.Duration { return l.deployed().Sub(l.posted) }))
	printRow("POST /instances sent -> SSH login", spread(r.logins, func(l login) time.Duration { return l.loggedIn.Sub(l.posted) }))
	attempts, refused := 0, 0
	for _, l := range r.logins {
		attempts, refused = attempts+l.attempts, refused+l.refused
	}
	fmt.Printf("SSH attempts: %d for %d logins (%d refused passwords); 429 answers waited out: %d\n", attempts, len(r.logins), refused, tooMany)

	pss := make([]int64, 0, len(r.memory.perMachine))
	var total int64
	for _, kb := range r.memory.perMachine {
		pss = append(pss, kb)
		total += kb
	}
	mean := float64(total) / float64(max(len(pss), 1))
	worst := slices.Max(append(pss, 0))
	n := float64(o.n)
	fmt.Printf("\nidle machine, PSS of its processes: mean %.2f MiB, max %.2f MiB (%d machines, %d processes, %.1f MiB in all)\n",
		mean/1024, float64(worst)/1024, len(pss), r.memory.processes, float64(total)/1024)
	fmt.Printf("serve's own PSS grew by %.1f MiB (%.2f MiB a machine); host MemAvailable fell by %.1f MiB (%.2f MiB a machine)\n",
		float64(r.memory.serveDelta)/1024, float64(r.memory.serveDelta)/1024/n,
		float64(r.memory.availDelta)/1024, float64(r.memory.availDelta)/1024/n)
	machinesPc := cpuPercent(r.cpu.machinesTicks, r.cpu.window)
	fmt.Printf("idle CPU over %s: the %d machines %.2f %% of one core in all (%d ticks of 10 ms); serve %.2f %%\n",
		r.cpu.window, o.n, machinesPc, r.cpu.machinesTicks, cpuPercent(r.cpu.serveTicks, r.cpu.window))

	fmt.Printf("\ndelete: %d DELETE /instances/{id} answered in %.2f s; then left on the host: %s (looked for %.1f s)\n",
		len(r.logins), r.deleteTook.Seconds(), r.afterDel, r.afterDel.waited.Seconds())
	fmt.Printf("stop: SIGTERM to exit %.2f s (exit code %d); then left on the host: %s\n",
		r.stopped.Seconds(), r.exitCode, r.afterEnd)

	p99 := percentile(deployedToLogin, 99)
	fmt.Printf("\ngoals (issue 32):\n")
	fmt.Printf("  p99 order deployed -> SSH login < %s: %.2f s, %s\n", goalLoginP99, p99.Seconds(), verdict(p99 < goalLoginP99))
	fmt.Printf("  idle machine < 8 MiB: max %.2f MiB of PSS, %s\n", float64(worst)/1024, verdict(worst < goalIdleKB))
	fmt.Printf("  no measurable idle CPU: %.2f %% of one core for %d machines, %s\n", machinesPc, o.n, verdict(machinesPc < goalIdleCPUPc))
	fmt.Printf("  nothing left after delete and stop: %s\n", verdict(r.clean()))
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
