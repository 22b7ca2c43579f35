package resellerd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// workerLoop is one background loop: its steps, the signal that wakes it before its due time,
// and what of store.WorkDue it waits for (poll: work waits on the datacenter, so tick every
// interval; at: the next scheduled work, zero for none).
type workerLoop struct {
	steps []step
	wake  chan struct{}
	due   func(store.WorkDue) (poll bool, at time.Time)
	feeds []workerLoop // loops woken after each tick: the work this loop's steps make for them
	beat  *heartbeat   // when the loop last began or ended a tick (readiness)
	// own: the loop keeps its own time and a write does not wake it (the traffic worker's
	// work is every live machine, not what a request changed).
	own bool
}

func newWorkerLoop(steps []step, due func(store.WorkDue) (bool, time.Time), feeds ...workerLoop) workerLoop {
	return workerLoop{steps: steps, wake: make(chan struct{}, 1), due: due, feeds: feeds, beat: &heartbeat{}}
}

// signal has l run its steps at its next chance; a signal already pending covers this one.
func (l workerLoop) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// wakingAfterWrites calls wake after every request that may have written (any method but GET,
// HEAD and OPTIONS), once the handler has answered and so committed: an order is picked up at
// once, not at the workers' next due time.
func wakingAfterWrites(next http.Handler, wake func()) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			wake()
		}
	})
}

// workerLoops are the backend's three background loops: provisioning (and app installs), the
// accounts (billing, snapshots, alerts, housekeeping) and the webhook deliveries; with
// --machines sandbox a fourth, the traffic worker. The other loops' steps write events, so
// each of their ticks wakes the deliveries.
func (s *Server) workerLoops() []workerLoop {
	deliveries := newWorkerLoop(s.deliverySteps(), func(d store.WorkDue) (bool, time.Time) { return false, d.Delivery })
	loops := []workerLoop{
		newWorkerLoop(s.provisioningSteps(), func(d store.WorkDue) (bool, time.Time) { return d.Provisioning, time.Time{} }, deliveries),
		newWorkerLoop(s.accountSteps(), func(d store.WorkDue) (bool, time.Time) { return d.Accounts, d.Renewal }, deliveries),
		deliveries,
	}
	if s.sandbox != nil {
		traffic := newWorkerLoop(s.trafficSteps(), func(store.WorkDue) (bool, time.Time) { return false, s.clock.Now().Add(TrafficEvery) })
		traffic.own = true
		loops = append(loops, traffic)
	}
	return loops
}

// TrafficEvery is how often the traffic worker reads every live machine's traffic (sandbox):
// `used`, the overage billed and the traffic locks are at most this old, well inside the minute
// the docs promise.
const TrafficEvery = 30 * time.Second

// trafficSteps are the traffic worker's (service.TrafficDue), in a loop of its own: its work
// grows with the live machines, and no deploy or bill waits behind it.
func (s *Server) trafficSteps() []step {
	return []step{{"traffic", s.svc.TrafficDue}}
}

// StepGrace bounds how long Close waits for the worker steps running when it is called (a
// webhook attempt may take 15 seconds); a step still running then is cancelled, and its
// transaction rolls back (on SQLite, one already running on the writer finishes first: it
// shares its commit with other transactions).
const StepGrace = 10 * time.Second

// step is one worker: a name for the log and the service call that does its due work once.
type step struct {
	name string
	run  func(context.Context) error
}

// provisioningSteps turn orders into servers and install their apps. They have a loop of their
// own, so a deploy never waits behind work that grows with the number of instances; the install
// step starts each instance's stage in the background (service.InstallAppsDue), so a deploy
// never waits for an installer either.
func (s *Server) provisioningSteps() []step {
	return []step{
		{"provisioning", s.svc.ProvisionDue},
		{"app installs", s.svc.InstallAppsDue},
	}
}

// accountSteps bill, settle snapshots, alert low balances and clean up, in this order: each
// later one sees what the earlier ones did at the same tick (a charge is weighed by the
// low-balance alerts). Each reads only the rows that are due.
func (s *Server) accountSteps() []step {
	return []step{
		{"billing", s.svc.BillDue},
		{"snapshots", s.svc.SnapshotsDue},
		{"low-balance alerts", s.svc.AlertLowBalanceDue},
		{"housekeeping", s.svc.HousekeepDue},
	}
}

// deliverySteps are the webhook deliveries. They run in a loop of their own: an attempt may
// wait up to 15 seconds for a receiver, and that must never delay provisioning or billing.
//
// The step starts the attempts and does not wait for them (see service.DeliverDue), so one
// account's hanging receiver delays no tick; stopWorkers waits for the attempts.
func (s *Server) deliverySteps() []step {
	return []step{{"webhook deliveries", s.svc.DeliverDue}}
}

// startWorkers starts every loop of s.loops until stopWorkers, registered in s.workers so Close
// waits for them. The steps run with a context of their own, so stopping lets a running step
// finish (within stepGrace) instead of cutting it.
func (s *Server) startWorkers(ctx context.Context) {
	stopping, stop := context.WithCancel(ctx)
	running, abort := context.WithCancel(ctx)
	s.stop, s.abort = stop, abort
	if s.sandbox != nil {
		// The machines' reconciler runs whatever the interval: other replicas' calls wait on it.
		s.workers.Add(1)
		go func() {
			defer s.workers.Done()
			s.sandbox.Run(stopping)
		}()
	}
	if s.interval < 0 {
		return
	}
	for _, l := range s.loops {
		s.workers.Add(1)
		go func() {
			defer s.workers.Done()
			s.loop(stopping, running, l)
		}()
	}
}

// loop runs the steps of l with the context running, then sleeps until the store says work is
// due or until l is woken, until stopping ends. A loop ticks at most once per interval: the
// wakes of a burst of writes are one tick, not one each.
func (s *Server) loop(stopping, running context.Context, l workerLoop) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	var last time.Time // when the last tick began
	asleep := false    // counted in s.idleLoops
	failures := newStreaks(s.log)
	l.beat.beat()
	for {
		select {
		case <-stopping.Done():
			return
		case <-timer.C:
		case <-l.wake:
		}
		if asleep { // awake now: no longer idle, whatever follows
			s.idleLoops.Add(-1)
			asleep = false
		}
		if woken := timer.Stop(); woken {
			if wait := s.interval - time.Since(last); wait > 0 {
				timer.Reset(wait) // no later than the timer was set for: it is at least an interval
				continue
			}
		}
		last = time.Now()
		l.beat.beat()
		_ = runStepsUntil(stopping, running, l.steps, func(name string, err error) {
			if running.Err() == nil {
				failures.record(running, name, err)
			}
		})
		l.beat.beat()
		if stopping.Err() != nil {
			return
		}
		for _, next := range l.feeds {
			next.signal()
		}
		wait := s.sleep(running, l, failures)
		if asleep = wait >= s.idle; asleep {
			s.idleLoops.Add(1)
		}
		timer.Reset(wait)
	}
}

// sleep is how long l may wait before its next tick: one interval while its work waits on the
// datacenter (or when the store cannot say), else until its next due time, at most s.idle.
func (s *Server) sleep(ctx context.Context, l workerLoop, failures *streaks) time.Duration {
	due, err := s.store.WorkDue(ctx)
	if ctx.Err() == nil {
		failures.record(ctx, "work due", err)
	}
	if err != nil {
		return s.interval
	}
	poll, at := l.due(due)
	if poll {
		return s.interval
	}
	wait := s.idle
	if !at.IsZero() {
		wait = min(wait, at.Sub(s.clock.Now()))
	}
	return max(wait, s.interval)
}

// wake has every loop run its steps at once: a write may have made work due.
func (s *Server) wake() {
	for _, l := range s.loops {
		if !l.own {
			l.signal()
		}
	}
}

// stopWorkers lets each worker finish the step it is running, starts no further one, and returns
// once every worker has stopped; a step still running after stepGrace is cancelled.
func (s *Server) stopWorkers() {
	s.stop()
	timer := time.AfterFunc(cmp.Or(s.stepGrace, StepGrace), s.abort)
	defer timer.Stop()
	s.workers.Wait()
	if s.svc != nil {
		s.svc.WaitDeliveries() // the attempts the loops started, cancelled by abort after stepGrace
		s.svc.WaitInstalls()   // the install stages, likewise
	}
	s.abort()
}

// RunDue runs every worker once, at the clock's current time: provisioning (builds, deploys,
// time-outs), app installs, billing, snapshots (images, restores, hourly accounting), low-balance
// alerts, housekeeping, the traffic of every live machine (sandbox), and last the webhook
// deliveries, so the events the others wrote are sent
// at the same tick. It returns when every delivery attempt it started has finished. The
// background loops call the same steps every WorkerInterval; tests with WorkerInterval < 0 call
// RunDue after moving their clock. Each worker claims its work in the store, so RunDue may run
// concurrently with the loops or with another backend on the same database without doing
// anything twice.
func (s *Server) RunDue(ctx context.Context) error {
	steps := []step{{"provisioning", s.svc.ProvisionDue}, {"app installs", s.svc.InstallAllAppsDue}}
	steps = append(steps, s.accountSteps()...)
	if s.sandbox != nil {
		steps = append(steps, s.trafficSteps()...)
	}
	return runStepsUntil(ctx, ctx, append(steps, step{"webhook deliveries", s.svc.DeliverAllDue}), nil)
}

// runStepsUntil runs each step once with ctx, and none after stopping has ended; a failing step
// does not stop the others. report, when not nil, is told each step's outcome.
func runStepsUntil(stopping, ctx context.Context, steps []step, report func(name string, err error)) error {
	var errs []error
	for _, st := range steps {
		if stopping.Err() != nil {
			break
		}
		err := st.run(ctx)
		if report != nil {
			report(st.name, err)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("server: %s: %w", st.name, err))
		}
	}
	return errors.Join(errs...)
}
