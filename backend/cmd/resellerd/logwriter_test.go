package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// gatedWriter records each write it is handed, and holds every write until the test opens
// its gate.
type gatedWriter struct {
	gate    chan struct{}
	entered chan struct{} // one token for each write begun
	mu      sync.Mutex
	writes  []string
}

func newGatedWriter() *gatedWriter {
	return &gatedWriter{gate: make(chan struct{}), entered: make(chan struct{}, 1000)}
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	g.entered <- struct{}{}
	<-g.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	g.writes = append(g.writes, string(p))
	return len(p), nil
}

// TestLogWriterGathersLinesWhileOutputIsBusy holds the output while 100 lines arrive from
// several goroutines: they reach it in at most three writes (the one under way, and what
// gathered meanwhile), each line whole, and Close writes what is left.
func TestLogWriterGathersLinesWhileOutputIsBusy(t *testing.T) {
	t.Parallel()
	g := newGatedWriter()
	w := newLogWriter(g)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 25 {
				fmt.Fprintf(w, "line %d-%d\n", i, j)
			}
		}()
	}
	wg.Wait() // every Write returned with the output held: nothing waited for it
	close(g.gate)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(g.writes, "")
	if lines := strings.Count(all, "\n"); lines != 100 || len(g.writes) > 3 {
		t.Fatalf("%d lines in %d writes, want 100 lines in at most 3", lines, len(g.writes))
	}
	for i := range 4 {
		last := -1
		for _, line := range strings.Split(strings.TrimSpace(all), "\n") {
			var gi, j int
			if _, err := fmt.Sscanf(line, "line %d-%d", &gi, &j); err != nil {
				t.Fatalf("a line was broken: %q", line)
			}
			if gi == i {
				if j != last+1 {
					t.Fatalf("goroutine %d's line %d came after its line %d", i, j, last)
				}
				last = j
			}
		}
	}
}

// TestLogWriterWritesAfterClose writes a line given after Close at once, after the others.
func TestLogWriterWritesAfterClose(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	w := newLogWriter(&out)
	_, _ = io.WriteString(w, "before\n")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(w, "after\n")
	if got := out.String(); got != "before\nafter\n" {
		t.Fatalf("got %q, want both lines in order", got)
	}
}

// TestLogWriterBoundsWhatItHolds: with the output held, a Write past maxPendingLog waits for
// it instead of growing the buffer.
func TestLogWriterBoundsWhatItHolds(t *testing.T) {
	t.Parallel()
	g := newGatedWriter()
	w := newLogWriter(g)
	big := bytes.Repeat([]byte("x"), maxPendingLog/4)
	_, _ = w.Write(big)
	<-g.entered // the goroutine took it, and its write is held
	returned := make(chan int, 8)
	go func() {
		for i := range 8 {
			_, _ = w.Write(big)
			returned <- i
		}
	}()
	for i := range 4 { // four fill the buffer
		if got := <-returned; got != i {
			t.Fatalf("write %d returned, want %d", got, i)
		}
	}
	select {
	case i := <-returned:
		t.Fatalf("write %d returned with %d bytes held, want it to wait", i, maxPendingLog)
	case <-time.After(50 * time.Millisecond): // long enough for a write that does not wait
	}
	close(g.gate)
	for range 4 {
		<-returned
	}
	w.Close()
}
