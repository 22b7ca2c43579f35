package storetest

import (
	"regexp"
	"sync"
)

// Reads counts what a store reads, through sqlstore.WithReadHook(r.Hook): every query, and the
// queries and rows of each table a query reads FROM. Tests use it to show which reads a path
// makes, and that a repeated one makes none. The zero value is ready to use.
type Reads struct {
	mu     sync.Mutex
	counts ReadCounts
}

// ReadCounts are the reads since the last Take.
type ReadCounts struct {
	All     int            // every query
	Queries map[string]int // queries by table read
	Rows    map[string]int // rows returned by the queries of each table
}

// fromTable finds the tables a query reads.
var fromTable = regexp.MustCompile(`\bFROM\s+(\w+)`)

// Hook is the read hook: the query's text and the rows it returned.
func (r *Reads) Hook(query string, rows int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.counts.Queries == nil {
		r.counts = ReadCounts{Queries: map[string]int{}, Rows: map[string]int{}}
	}
	r.counts.All++
	seen := map[string]bool{}
	for _, m := range fromTable.FindAllStringSubmatch(query, -1) {
		if table := m[1]; !seen[table] {
			seen[table] = true
			r.counts.Queries[table]++
			r.counts.Rows[table] += rows
		}
	}
}

// Take returns the counts so far and starts again from zero.
func (r *Reads) Take() ReadCounts {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.counts
	r.counts = ReadCounts{Queries: map[string]int{}, Rows: map[string]int{}}
	if out.Queries == nil {
		out = ReadCounts{Queries: map[string]int{}, Rows: map[string]int{}}
	}
	return out
}
