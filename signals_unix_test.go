//go:build unix

package main

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestOutliveSIGTERM sends this test process a real SIGTERM once outliveSIGTERM has run: the
// process must still be here to see the test end. (Without it Go's default action ends the test
// binary, and `go test` reports it as killed.) Its parent, `go test`, stays, so it does not exit.
func TestOutliveSIGTERM(t *testing.T) {
	outliveSIGTERM()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // time for a default action to end the process
}
