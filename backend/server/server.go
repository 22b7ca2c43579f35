// Package server is the one public face of resellerd: it opens the store, wires the service and
// the HTTP API, and owns the background workers. cmd/resellerd and the provider's acceptance tests
// both start the whole backend through New, so what they run is the same program.
package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/openapi"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/sim"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
)

// Clock tells the time. Tests pass one they can move to drive rate limits, billing and expiry.
type Clock interface{ Now() time.Time }

// Config is how an operator or a test shapes a backend.
type Config struct {
	DB                string        // SQLite file path (created if missing) or postgres:// (postgresql://) URL
	DeployDelay       time.Duration // how long the simulated datacenter takes to build a server
	CredentialsDelay  time.Duration // credentials stay pending this long after a build; also reboots, rebuilds, resizes, snapshot restores and app install stages take this long
	OrderWindow       time.Duration // after this a pending order becomes timed_out; 0 is 10 minutes
	FailRate          float64       // share of simulated builds that never finish, snapshot images that fail and datacenter operations that fail, 0 to 1; shared by the replicas (see New)
	AllowHTTPWebhooks bool          // also accept http:// webhook URLs on loopback hosts (tests); HTTPS only otherwise
	RateLimitScale    float64       // multiplies every rate limit; 0 disables them
	Clock             Clock         // nil: real time
	Logger            *slog.Logger  // nil: discard
	// WorkerInterval is how often the background workers (provisioning, app installs, billing,
	// snapshots, low-balance alerts, housekeeping, webhook deliveries) tick while work waits on
	// the datacenter (a build, an image, an install stage); with none they sleep until work is
	// due (see IdleInterval). 0 is DefaultWorkerInterval. A negative interval starts no background loop: the test drives the
	// workers with RunDue after moving its clock, which makes every step deterministic.
	WorkerInterval time.Duration
	// IdleInterval is the longest the workers sleep when nothing is due: they wake earlier at
	// the next due time in the store, and at once after a write through this backend's API. It
	// bounds how late they see what another process wrote (another PostgreSQL replica, or
	// `resellerd account` on the same SQLite file); 0 is DefaultIdleInterval.
	IdleInterval time.Duration
	// SnapshotDelay is how long a snapshot stays creating before its image is available; 0 takes
	// DeployDelay. (Restores take CredentialsDelay, like rebuilds.)
	SnapshotDelay time.Duration
	// KeepFailRate leaves the fail rate stored in the database as it is and ignores FailRate:
	// the account commands, which open the database beside a running serve, must not change it.
	KeepFailRate bool
}

// DefaultWorkerInterval is how often the workers poll the datacenter when
// Config.WorkerInterval is 0. It is short so that provisioning follows --deploy-delay closely.
const DefaultWorkerInterval = 100 * time.Millisecond

// DefaultIdleInterval is the workers' longest sleep when Config.IdleInterval is 0.
const DefaultIdleInterval = time.Second

// Server is a running backend: store, service, simulated datacenter, HTTP handler and workers.
type Server struct {
	store    store.Store
	svc      *service.Service
	sim      *sim.Sim
	log      *slog.Logger
	interval time.Duration // the workers' tick while work waits on the datacenter
	idle     time.Duration // the workers' longest sleep
	clock    Clock
	loops    []workerLoop // the background loops, woken by wake
	handler  http.Handler
	stop     context.CancelFunc // tells the workers to start no further step
	workers  sync.WaitGroup     // the running workers, waited for by Close
	closing  sync.Once
	closed   error

	abort     context.CancelFunc // cancels the steps still running, stepGrace after stop
	stepGrace time.Duration      // 0 is StepGrace
}

// New opens and migrates the store and starts the workers. ctx bounds the opening only; the
// workers run until Close. Orders left pending by an earlier process on the same database are
// picked up by the new workers.
//
// New stores cfg.FailRate in the database (unless KeepFailRate), where every replica's simulator
// reads it: the replica started last sets it for all, so start them alike; SetFailRate changes
// it for all.
func New(ctx context.Context, cfg Config) (*Server, error) {
	cfg = withDefaults(cfg)
	st, err := openStore(ctx, cfg.DB)
	if err != nil {
		return nil, err
	}
	if !cfg.KeepFailRate {
		if err := st.SetSimFailRate(ctx, cfg.FailRate); err != nil {
			_ = st.Close()
			return nil, fmt.Errorf("server: %w", err)
		}
	}
	return newOnStore(ctx, cfg, st), nil
}

// newOnStore wires a backend on an open store (cfg already has its defaults) and starts the
// workers.
func newOnStore(ctx context.Context, cfg Config, st *sqlstore.Store) *Server {
	dc := sim.New(sim.Options{Clock: cfg.Clock, State: st, DeployDelay: cfg.DeployDelay, StepDelay: cfg.CredentialsDelay,
		SnapshotDelay: cfg.SnapshotDelay})
	svc := service.New(service.Config{
		Store: st, Catalog: catalog.New(), Datacenter: dc, Clock: cfg.Clock, Logger: cfg.Logger,
		OrderWindow: cfg.OrderWindow, AppStepDelay: cfg.CredentialsDelay, AllowHTTPWebhooks: cfg.AllowHTTPWebhooks,
	})
	s := &Server{
		store:    st,
		svc:      svc,
		sim:      dc,
		log:      cfg.Logger,
		interval: cfg.WorkerInterval,
		idle:     cfg.IdleInterval,
		clock:    cfg.Clock,
	}
	// The other loops' steps write events, so each of their ticks wakes the deliveries.
	deliveries := newWorkerLoop(s.deliverySteps(), func(d store.WorkDue) (bool, time.Time) { return false, d.Delivery })
	s.loops = []workerLoop{
		newWorkerLoop(s.provisioningSteps(), func(d store.WorkDue) (bool, time.Time) { return d.Provisioning, time.Time{} }, deliveries),
		newWorkerLoop(s.accountSteps(), func(d store.WorkDue) (bool, time.Time) { return d.Accounts, d.Renewal }, deliveries),
		deliveries,
	}
	s.handler = wakingAfterWrites(api.NewHandler(api.Config{
		Service: svc, Logger: cfg.Logger, Clock: cfg.Clock,
		RateLimitScale: cfg.RateLimitScale, OpenAPI: openapi.JSON, RateWindows: rateWindows(cfg.DB, st),
	}), s.wake)
	// The workers outlive New's ctx (it only bounds opening) and stop when Close says so.
	s.startWorkers(context.WithoutCancel(ctx))
	return s
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
// own, so a deploy never waits behind work that grows with the number of instances.
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
	for {
		select {
		case <-stopping.Done():
			return
		case <-timer.C:
		case <-l.wake:
			if wait := s.interval - time.Since(last); wait > 0 {
				timer.Reset(wait) // no later than the timer was set for: it is at least an interval
				continue
			}
		}
		last = time.Now()
		if err := runStepsUntil(stopping, running, l.steps); err != nil && running.Err() == nil {
			s.log.ErrorContext(running, "workers", slog.Any("error", err))
		}
		if stopping.Err() != nil {
			return
		}
		for _, next := range l.feeds {
			next.signal()
		}
		timer.Reset(s.sleep(running, l))
	}
}

// sleep is how long l may wait before its next tick: one interval while its work waits on the
// datacenter (or when the store cannot say), else until its next due time, at most s.idle.
func (s *Server) sleep(ctx context.Context, l workerLoop) time.Duration {
	due, err := s.store.WorkDue(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.ErrorContext(ctx, "workers: work due", slog.Any("error", err))
		}
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
		l.signal()
	}
}

// stopWorkers lets each worker finish the step it is running, starts no further one, and returns
// once every worker has stopped; a step still running after stepGrace is cancelled.
func (s *Server) stopWorkers() {
	s.stop()
	timer := time.AfterFunc(cmp.Or(s.stepGrace, StepGrace), s.abort)
	defer timer.Stop()
	s.workers.Wait()
	s.abort()
}

// RunDue runs every worker once, at the clock's current time: provisioning (builds, deploys,
// time-outs), app installs, billing, snapshots (images, restores, hourly accounting), low-balance
// alerts, housekeeping, and last the webhook deliveries, so the events the others wrote are sent
// at the same tick. It returns when every delivery attempt it started has finished. The
// background loops call the same steps every WorkerInterval; tests with WorkerInterval < 0 call
// RunDue after moving their clock. Each worker claims its work in the store, so RunDue may run
// concurrently with the loops or with another backend on the same database without doing
// anything twice.
func (s *Server) RunDue(ctx context.Context) error {
	steps := append(s.provisioningSteps(), s.accountSteps()...)
	return runStepsUntil(ctx, ctx, append(steps, s.deliverySteps()...))
}

// runStepsUntil runs each step once with ctx, and none after stopping has ended; a failing step
// does not stop the others.
func runStepsUntil(stopping, ctx context.Context, steps []step) error {
	var errs []error
	for _, st := range steps {
		if stopping.Err() != nil {
			break
		}
		if err := st.run(ctx); err != nil {
			errs = append(errs, fmt.Errorf("server: %s: %w", st.name, err))
		}
	}
	return errors.Join(errs...)
}

func withDefaults(cfg Config) Config {
	if cfg.Clock == nil {
		cfg.Clock = realClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.WorkerInterval == 0 {
		cfg.WorkerInterval = DefaultWorkerInterval
	}
	if cfg.IdleInterval == 0 {
		cfg.IdleInterval = DefaultIdleInterval
	}
	if cfg.SnapshotDelay == 0 {
		cfg.SnapshotDelay = cfg.DeployDelay
	}
	return cfg
}

// openStore picks the store by the form of dsn: a postgres:// or postgresql:// URL is a
// PostgreSQL database that several replicas may share, anything else a SQLite file path.
func openStore(ctx context.Context, dsn string) (*sqlstore.Store, error) {
	var st *sqlstore.Store
	var err error
	switch {
	case dsn == "":
		return nil, errors.New("server: no database: set Config.DB to a SQLite path or a postgres:// URL")
	case isPostgres(dsn):
		st, err = sqlstore.OpenPostgres(ctx, dsn)
	default:
		st, err = sqlstore.OpenSQLite(ctx, dsn)
	}
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	return st, nil
}

func isPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// rateWindows is where the API keeps its rate-limit windows: in the PostgreSQL database every
// replica shares, so a key has one limit whichever replica it reaches; nil (this process's
// memory) on SQLite, which one process serves and whose single writer need not take a write
// transaction per request.
func rateWindows(dsn string, st store.Store) api.RateWindows {
	if w, ok := st.(api.RateWindows); ok && isPostgres(dsn) {
		return w
	}
	return nil
}

// Handler serves /api/v1/... and /openapi.json.
func (s *Server) Handler() http.Handler { return s.handler }

// Close stops the workers between steps (see stopWorkers) and closes the store. It is safe to
// call more than once.
func (s *Server) Close() error {
	s.closing.Do(func() {
		s.stopWorkers()
		s.closed = s.store.Close()
	})
	return s.closed
}

// NewAccount is what the operator chooses for a new account. Zero limits take 10 active servers
// and 5 orders at once; an empty language takes "fa".
type NewAccount struct {
	BalanceMicros int64
	ServerLimit   int
	OrderLimit    int
	Language      string
}

// CreatedAccount is shown once: only a SHA-256 hash of the key is stored.
type CreatedAccount struct {
	ID     int64  `json:"account_id"`
	APIKey string `json:"api_key"`
}

// CreateAccount creates an account with a new API key. A non-zero initial balance is recorded
// as a Payment of type "manual", so the ledger reconciles with the balance.
func (s *Server) CreateAccount(ctx context.Context, a NewAccount) (CreatedAccount, error) {
	created, err := s.svc.CreateAccount(ctx, service.NewAccount{
		Balance: money.Micros(a.BalanceMicros), ServerLimit: a.ServerLimit, OrderLimit: a.OrderLimit, Language: a.Language,
	})
	if err != nil {
		return CreatedAccount{}, fmt.Errorf("server: create account: %w", err)
	}
	return CreatedAccount{ID: created.ID, APIKey: created.APIKey}, nil
}

// RotateKey issues a new key for the account and returns it; the old key stops working at once.
func (s *Server) RotateKey(ctx context.Context, accountID int64) (string, error) {
	key, err := s.svc.RotateKey(ctx, accountID)
	if err != nil {
		return "", fmt.Errorf("server: rotate key of account %d: %w", accountID, err)
	}
	return key, nil
}

// TopUp credits amountMicros to the account's wallet as a Payment of paymentType ("" is
// "manual"; see the README for the accepted types).
func (s *Server) TopUp(ctx context.Context, accountID, amountMicros int64, paymentType string) error {
	if err := s.svc.TopUp(ctx, accountID, money.Micros(amountMicros), paymentType); err != nil {
		return fmt.Errorf("server: top up account %d: %w", accountID, err)
	}
	s.wake() // the wallet changed
	return nil
}

// SetBlocked blocks or unblocks an account; a blocked account answers 403 to every request.
func (s *Server) SetBlocked(ctx context.Context, accountID int64, blocked bool) error {
	return s.setFlag(ctx, accountID, store.FlagBlocked, blocked)
}

// SetKYCVerified records whether the account passed the identity check that opens datacenters
// with require_kyc.
func (s *Server) SetKYCVerified(ctx context.Context, accountID int64, verified bool) error {
	return s.setFlag(ctx, accountID, store.FlagKYCVerified, verified)
}

// SetAppsEnabled opens or closes one-click apps to the account (open by default).
func (s *Server) SetAppsEnabled(ctx context.Context, accountID int64, enabled bool) error {
	return s.setFlag(ctx, accountID, store.FlagAppsEnabled, enabled)
}

func (s *Server) setFlag(ctx context.Context, accountID int64, flag store.Flag, value bool) error {
	if err := s.svc.SetFlag(ctx, accountID, flag, value); err != nil {
		return fmt.Errorf("server: update account %d: %w", accountID, err)
	}
	s.wake()
	return nil
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
