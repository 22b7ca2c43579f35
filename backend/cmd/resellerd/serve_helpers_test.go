package main

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"
)

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
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not start")
	}
	return nil, stop
}
