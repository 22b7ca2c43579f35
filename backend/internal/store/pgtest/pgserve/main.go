// Command pgserve starts a throwaway PostgreSQL server as the tests do (package pgtest), with
// PostgreSQL's default durability, creates -databases fresh databases, prints their URLs one a
// line, and stops the server and removes its files when its standard input closes or it is
// signalled. bench/backend runs it for its PostgreSQL figures.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store/pgtest"
)

func main() {
	n := flag.Int("databases", 1, "fresh databases to create")
	flag.Parse()
	if err := runUntilSignal(*n); err != nil {
		fmt.Fprintln(os.Stderr, "pgserve:", err)
		os.Exit(1)
	}
}

// runUntilSignal runs until SIGINT or SIGTERM, so run's deferred stop of the server happens
// before main exits.
func runUntilSignal(n int) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, n)
}

func run(ctx context.Context, n int) error {
	srv, err := pgtest.StartDurable(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = srv.Stop() }()
	for range n {
		dsn, err := srv.CreateDatabase(ctx)
		if err != nil {
			return err
		}
		fmt.Println(dsn)
	}
	closed := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(closed) }()
	select {
	case <-closed:
	case <-ctx.Done():
	}
	return nil
}
