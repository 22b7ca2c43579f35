package agent

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestOpLogIsBounded: sshd's warnings reach the host at most opLogPerMinute a minute, then again
// in the next minute.
func TestOpLogIsBounded(t *testing.T) {
	var out bytes.Buffer
	a := &agentState{out: NewEncoder(&out)}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := &opLogWriter{a: a, now: func() time.Time { return now }}
	for i := range opLogPerMinute + 10 {
		fmt.Fprintf(w, "line %d\n", i)
	}
	if got := strings.Count(out.String(), `"op":"log"`); got != opLogPerMinute {
		t.Errorf("%d lines sent within a minute, want %d", got, opLogPerMinute)
	}
	now = now.Add(time.Minute)
	fmt.Fprintln(w, "next minute")
	if !strings.Contains(out.String(), "next minute") {
		t.Error("a line of the next minute was dropped")
	}
}
