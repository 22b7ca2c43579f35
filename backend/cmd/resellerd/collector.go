package main

import "runtime/debug"

// serveGCPercent is the Go collector's target (GOGC) of `resellerd serve` when the environment
// does not set GOGC.
//
// Why not Go's 100: a GET allocates about 10 KB, most of it net/http's own (the request, its
// header map, the context), while serve's live heap stays about 10 MB whatever the rows stored
// (RSS 30 MB at 100,000 instances, bench/README.md), because the row cache is bounded. At 100
// the collector so ran about 15 times a second at 15,000 GET/s, and took 8 % of serve's CPU
// (runtime.gcBgMarkWorker in a profile of the GET phase). At 400 it runs a fifth as often,
// for a heap of at most five times the live one (about 50 MB). GET /instances/{id} measured
// 55-60 % of a bare net/http handler before and 63-66 % after, in alternated runs
// (bench/README.md, issue 44).
//
// A bounded live heap is what makes the higher target safe; an operator who needs a ceiling
// sets GOMEMLIMIT (the runtime honours it) or GOGC itself, which this leaves alone.
const serveGCPercent = 400

// tuneCollector sets the collector's target of a serving process to serveGCPercent unless
// GOGC is set in env. /metrics shows the target in force (go_gc_gogc_percent).
func tuneCollector(env lookupEnv) {
	if _, set := env("GOGC"); !set {
		debug.SetGCPercent(serveGCPercent)
	}
}
