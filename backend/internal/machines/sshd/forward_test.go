package sshd

import (
	"net"
	"testing"
)

// TestForwardToASilentTargetEndsWithItsConnection: a forwarded connection whose target neither
// speaks nor closes ends with its SSH connection, so Serve returns once its context ends (and
// the address's connection slot comes back) instead of waiting on the target for ever.
func TestForwardToASilentTargetEndsWithItsConnection(t *testing.T) {
	ts := startServer(t, nil)
	target, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := target.Accept(); err == nil {
			accepted <- c // held open, silent, until the test ends
		}
	}()
	c, err := ts.dial(t, testPassword)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Dial("tcp", target.Addr().String()); err != nil {
		t.Fatal(err)
	}
	silent := <-accepted
	defer silent.Close()
	_ = c.Close() // the client goes away
	if err := ts.stop(); err != nil {
		t.Fatalf("Serve after its context ended, with a forward to a silent target: %v", err)
	}
}
