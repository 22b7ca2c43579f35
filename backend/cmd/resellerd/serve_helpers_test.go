package main

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"
)

// eventWait bounds a test's wait for something to happen (a server to start or stop, a process
// to end, an order to deploy, a log line to be written). It only keeps a broken test from
// hanging: a loaded CI host is many times slower than an idle one, and the tests assert no
// speed.
const eventWait = time.Minute

// startServe runs serve with opts and logger in the background and returns the bound
// addresses and stop, which ends serve and waits for it (also called when the test ends).
func startServe(t *testing.T, opts serveOptions, logger *slog.Logger) ([]net.Addr, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrs, done := make(chan []net.Addr, 1), make(chan error, 1)
	go func() { done <- serve(ctx, opts, logger, func(a []net.Addr) { addrs <- a }) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	select {
	case a := <-addrs:
		return a, stop
	case err := <-done:
		t.Fatalf("serve ended early: %v", err)
	case <-time.After(eventWait):
		t.Fatal("serve did not start")
	}
	return nil, stop
}
