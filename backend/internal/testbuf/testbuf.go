// Package testbuf holds the one buffer tests share with the goroutines of what they test (a log
// handler, a session's stdout and stderr copies): a bytes.Buffer behind a mutex, since
// bytes.Buffer is not safe for a writer and a reader at once.
package testbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer safe for concurrent Write and String. The zero value is empty and
// ready.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
