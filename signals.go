package main

import (
	"context"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// parentCheckInterval is how often, once a SIGTERM has arrived, the provider checks whether
// Terraform is still its parent.
const parentCheckInterval = time.Second

// outliveSIGTERM keeps the provider running through SIGTERM, as go-plugin already keeps it
// running through SIGINT. A CI runner, or `timeout`, cancels a job by sending SIGTERM to the
// job's whole process group, so the provider receives it together with Terraform. Terraform takes
// it as an interrupt and stops the provider gracefully (StopProvider cancels every running
// operation, and a create cut short keeps its order in the state, to be resumed by the next
// apply); a provider killed by the same signal answers nothing any more, and a server being built
// is lost from the state while it runs and bills. Terraform ends the provider when it is done.
//
// Once a SIGTERM has arrived, the provider exits as soon as Terraform is no longer its parent, so
// a Terraform killed outright after the SIGTERM (as `timeout -k` does) leaves no provider behind.
func outliveSIGTERM() {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGTERM)
	go func() {
		if orphanedAfterSIGTERM(context.Background(), signals, os.Getppid, parentCheckInterval, log.Printf) {
			os.Exit(1) // nothing logged: nobody reads stderr any more, and a write to it would raise SIGPIPE
		}
	}()
}

// orphanedAfterSIGTERM returns true once a signal has arrived on signals and getppid, checked
// every interval from then on, no longer returns the parent the process had when this began. It
// logs each signal, and returns false when ctx ends first.
func orphanedAfterSIGTERM(ctx context.Context, signals <-chan os.Signal, getppid func() int, interval time.Duration,
	logf func(format string, args ...any),
) bool {
	parent := getppid()
	var ticker *time.Ticker
	var tick <-chan time.Time // nil, so never ready, until the first signal
	defer func() {
		if ticker != nil {
			ticker.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return false
		case sig := <-signals:
			logf("[INFO] terraform-provider-reseller: received %v; carrying on until Terraform stops the provider", sig)
			if ticker == nil {
				ticker = time.NewTicker(interval)
				tick = ticker.C
			}
		case <-tick:
			if getppid() != parent {
				return true
			}
		}
	}
}
