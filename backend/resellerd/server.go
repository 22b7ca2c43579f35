// Package resellerd is the whole backend as a library, its one public face: it opens the store,
// wires the service and the HTTP API, and owns the background workers. cmd/resellerd and the
// provider's acceptance tests both start the backend through New, so what they run is the same
// program. (It was backend/server until issue 45: in this project a server is a customer's VPS.)
package resellerd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/console"
	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/openapi"
	"github.com/reseller/terraform-provider-reseller/backend/internal/sandbox"
	"github.com/reseller/terraform-provider-reseller/backend/internal/secrets"
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
	CredentialsDelay  time.Duration // credentials stay pending this long after a build; also reboots, rebuilds, resizes, snapshot restores and (unless AppStepDelay) app install stages take this long
	OrderWindow       time.Duration // after this a pending order becomes timed_out; 0 is 10 minutes
	InstallTimeout    time.Duration // an app's installer still running after this is stopped and fails its install; 0 is 10 minutes
	WorkLease         time.Duration // how long a worker holds claimed work before another may take it over (what a crashed process had claimed waits this long); 0 is a minute
	FailRate          float64       // share of simulated builds that never finish, snapshot images that fail and datacenter operations that fail, 0 to 1; shared by the replicas (see New)
	AllowHTTPWebhooks bool          // also accept http:// webhook URLs on loopback hosts, and let webhooks reach loopback (tests); HTTPS to public addresses only otherwise
	// WebhookAllowCIDRs are internal ranges webhooks may reach all the same (an on-premises
	// receiver); every other address the IANA special-purpose registries say is not globally
	// reachable (loopback, private, link-local, CGNAT, documentation, ...), and multicast, is
	// refused at registration and when dialled (see delivery.Targets).
	WebhookAllowCIDRs []netip.Prefix
	// RetainEvents is how long delivered and abandoned events and their deliveries are kept
	// (--retain-events); 0 is 168 hours. Timed-out orders go 24 hours after they finished.
	RetainEvents time.Duration
	// TrustedProxies are the ranges of the proxies (load balancers) in front of the API
	// (--trusted-proxies): when a request's peer is in one, its client address, which the
	// failed-authentication limit, the per-client rate limits and the access log use, is the
	// right-most untrusted address of its Forwarded or X-Forwarded-For header. None: the peer.
	TrustedProxies []netip.Prefix
	// SecretsKeyFile is the key file (--secrets-key-file): base64 keys of 32 bytes, one a line,
	// the first encrypting the secrets stored from now on (webhook signing secrets, root
	// passwords, app inputs and results), every one decrypting them (package secrets). New
	// refuses a file none of whose keys decrypts the database's secrets, naming it. Empty:
	// DevSecrets' key, or else secrets are stored plain, and a database whose secrets are
	// encrypted is refused.
	SecretsKeyFile string
	// DevSecrets encrypts with resellerd dev's built-in key (secrets.Dev) when there is no
	// SecretsKeyFile.
	DevSecrets bool
	// NoSecrets opens the database for a command that reads and writes no secret (the account
	// commands) without a key, whether its secrets are encrypted or not; a secret it would read
	// or write is an error.
	NoSecrets bool
	// WebhookResolver resolves webhook hosts when they are dialled; nil is the system's (tests
	// pass one whose answers they control).
	WebhookResolver *net.Resolver
	RateLimitScale  float64      // multiplies every rate limit; 0 disables them
	Clock           Clock        // nil: real time
	Logger          *slog.Logger // nil: discard
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
	// AppStepDelay is how long each stage of an app install (preparing, running) takes; 0 takes
	// CredentialsDelay. A test that holds credentials back long (so that a create times out
	// before them) need not wait as long again for each install stage after them.
	AppStepDelay time.Duration
	// SnapshotDelay is how long a snapshot stays creating before its image is available; 0 takes
	// DeployDelay. (Restores take CredentialsDelay, like rebuilds.)
	SnapshotDelay time.Duration
	// KeepFailRate leaves the fail rate stored in the database as it is and ignores FailRate:
	// the account commands, which open the database beside a running serve, must not change it.
	KeepFailRate bool

	// DeliveryObserver is told about every webhook delivery attempt as it was made (`resellerd
	// dev` journals them); nil: nobody.
	DeliveryObserver DeliveryObserver

	// Machines is how servers are made: rows of the simulator (the default), or real machines
	// on this host (--machines sandbox; see MachinesConfig and backend/docs/machines.md).
	Machines MachinesConfig

	// PublicURL is how customers reach this backend (--public-url), where the console URLs of
	// --machines sandbox point; "": set later with SetPublicURL (the command sets the
	// listener's own URL once it listens).
	PublicURL string
	// ConsoleTTL is how long a console URL lives (--console-ttl); 0 is console.DefaultTTL.
	ConsoleTTL time.Duration

	// AccessLog writes the API's access lines off the requests' path (`resellerd serve` gives
	// one that batches them, NewBatchedAccessLog); the caller closes it after Close. nil: the
	// server writes them through Logger from a queue of its own, which Close flushes.
	AccessLog *AccessLog
}

// AccessLog writes the API's access lines off the requests' path (see api.AccessLog).
type AccessLog = api.AccessLog

// NewTextAccessLog returns an access log writing its lines to out in batches, in slog's text
// format at level (see api.NewTextAccessLog).
func NewTextAccessLog(out io.Writer, level slog.Leveler) *AccessLog {
	return api.NewTextAccessLog(out, level)
}

// NewBatchedAccessLog returns an access log writing its lines to out in batches, each formatted
// by the logger format makes over the writer it is given (see api.NewBatchedAccessLog).
func NewBatchedAccessLog(out io.Writer, format func(io.Writer) *slog.Logger) *AccessLog {
	return api.NewBatchedAccessLog(out, format)
}

// DeliveryObserver is told about every webhook delivery attempt (see Config.DeliveryObserver).
type DeliveryObserver = service.DeliveryObserver

// DeliveryAttempt is one webhook delivery attempt, as a DeliveryObserver is told it.
type DeliveryAttempt = service.DeliveryAttempt

// DefaultWorkerInterval is how often the workers poll the datacenter when
// Config.WorkerInterval is 0. It is short so that provisioning follows --deploy-delay closely.
const DefaultWorkerInterval = 100 * time.Millisecond

// DefaultIdleInterval is the workers' longest sleep when Config.IdleInterval is 0.
const DefaultIdleInterval = time.Second

// Server is a running backend: store, service, simulated datacenter, HTTP handler and workers.
type Server struct {
	store   store.Store
	svc     *service.Service
	sim     *sim.Sim
	sandbox *sandbox.Datacenter // --machines sandbox's datacenter over sim; nil otherwise
	// consoles are the console sessions of sandbox's machines, served under /console/; nil
	// without --machines sandbox.
	consoles       *console.Consoles
	publicURLGiven bool // Config.PublicURL was set: SetPublicURL leaves it
	// outOfBand changes a machine's root password behind the service's back: the sandbox's
	// machine, or the simulator's row.
	outOfBand interface {
		SetRootPasswordOutOfBand(ctx context.Context, ref string) error
	}
	deployFaults deployFaults // what tests armed to happen at a deploy (deploy_faults.go)
	log          *slog.Logger
	interval     time.Duration // the workers' tick while work waits on the datacenter
	idle         time.Duration // the workers' longest sleep
	clock        Clock
	loops        []workerLoop // the background loops, woken by wake
	// idleLoops counts the loops asleep for the idle interval, nothing due before it: when it
	// is len(loops), nothing runs until a write wakes them (TestIdleWorkersSleepUntilWoken).
	idleLoops atomic.Int32
	handler   http.Handler
	metrics   *metrics
	// accessLog is the access log the server made (Config.AccessLog nil), closed by Close;
	// nil when the caller gave one.
	accessLog *api.AccessLog
	dbReady   sharedCheck        // the readiness probe's database check, shared by its probes
	stop      context.CancelFunc // tells the workers to start no further step
	workers   sync.WaitGroup     // the running workers, waited for by Close
	closing   sync.Once
	closed    error

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
	keys, err := cfg.keyring()
	if err != nil {
		return nil, err
	}
	st, err := openStore(ctx, cfg.DB, cfg.Logger, keys)
	if err != nil {
		return nil, err
	}
	if !cfg.KeepFailRate {
		if err := st.SetSimFailRate(ctx, cfg.FailRate); err != nil {
			_ = st.Close()
			return nil, fmt.Errorf("server: %w", err)
		}
	}
	s, err := newOnStore(ctx, cfg, st)
	if err != nil {
		_ = st.Close()
		return nil, err
	}
	return s, nil
}

// newOnStore wires a backend on an open store (cfg already has its defaults) and starts the
// workers; with --machines sandbox it first starts this host's machines.
func newOnStore(ctx context.Context, cfg Config, st *sqlstore.Store) (*Server, error) {
	simDC := sim.New(sim.Options{Clock: cfg.Clock, State: st, DeployDelay: cfg.DeployDelay, StepDelay: cfg.CredentialsDelay,
		SnapshotDelay: cfg.SnapshotDelay})
	cat := catalog.New()
	var dc datacenter.Datacenter = simDC
	var outOfBand interface {
		SetRootPasswordOutOfBand(ctx context.Context, ref string) error
	} = simDC
	m := newMetrics()
	var sb *sandbox.Datacenter
	var consoles *console.Consoles
	if cfg.Machines.Sandbox() {
		var err error
		if sb, consoles, err = openSandbox(ctx, cfg, st, simDC, cat, m.machineRevived); err != nil {
			return nil, err
		}
		dc, outOfBand = sb, sb
	}
	m.watchStore(st, cfg.Clock, cfg.Logger)
	svc := service.New(service.Config{
		Store: st, Catalog: cat, Datacenter: dc, Clock: cfg.Clock, Logger: cfg.Logger,
		OrderWindow: cfg.OrderWindow, InstallTimeout: cfg.InstallTimeout, AppStepDelay: cfg.AppStepDelay, AllowHTTPWebhooks: cfg.AllowHTTPWebhooks, WorkLease: cfg.WorkLease,
		WebhookAllow: cfg.WebhookAllowCIDRs, WebhookResolver: cfg.WebhookResolver, EventRetention: cfg.RetainEvents,
		OnDelivery: m.delivery, ProvisionLanes: provisionLanes(cfg.DB), DeliveryObserver: cfg.DeliveryObserver,
		KeyHash: st.KeyHash, KeyTag: st.KeyTag,
	})
	s := &Server{
		store:          st,
		svc:            svc,
		sim:            simDC,
		sandbox:        sb,
		consoles:       consoles,
		publicURLGiven: cfg.PublicURL != "",
		outOfBand:      outOfBand,
		log:            cfg.Logger,
		interval:       cfg.WorkerInterval,
		idle:           cfg.IdleInterval,
		clock:          cfg.Clock,
		metrics:        m,
	}
	s.loops = s.workerLoops()
	access := cfg.AccessLog
	if access == nil {
		s.accessLog = api.NewAccessLog(cfg.Logger)
		access = s.accessLog
	}
	m.watchAccessLog(access)
	s.handler = wakingAfterWrites(api.NewHandler(api.Config{
		Service: svc, Logger: cfg.Logger, Clock: cfg.Clock,
		RateLimitScale: cfg.RateLimitScale, OpenAPI: openapi.JSON, RateWindows: rateWindows(cfg.DB, st),
		Ready: s.ready, Observer: m, TrustedProxies: cfg.TrustedProxies, Console: consoleHandler(consoles),
		AccessLog: access,
	}), s.wake)
	// The workers outlive New's ctx (it only bounds opening) and stop when Close says so.
	s.startWorkers(context.WithoutCancel(ctx))
	return s, nil
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
	if cfg.AppStepDelay == 0 {
		cfg.AppStepDelay = cfg.CredentialsDelay
	}
	return cfg
}

// openStore picks the store by the form of dsn (ParseDB): a postgres:// or postgresql:// URL is
// a PostgreSQL database that several replicas may share, a path or sqlite:PATH a SQLite file,
// anything else an error. keys encrypt and decrypt its secrets (nil: stored plain).
func openStore(ctx context.Context, dsn string, log *slog.Logger, keys *secrets.Keyring) (*sqlstore.Store, error) {
	kind, target, err := ParseDB(dsn)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	var st *sqlstore.Store
	if kind == DBPostgres {
		st, err = sqlstore.OpenPostgres(ctx, target, sqlstore.WithLogger(log), sqlstore.WithSecrets(keys))
	} else {
		st, err = sqlstore.OpenSQLite(ctx, target, sqlstore.WithSecrets(keys))
	}
	switch {
	case errors.Is(err, sqlstore.ErrSecretsNeedKey):
		return nil, fmt.Errorf("server: %w: give the key file that encrypted them with --secrets-key-file (RESELLER_SECRETS_KEY_FILE)", err)
	case errors.Is(err, sqlstore.ErrSecretsWrongKey):
		return nil, fmt.Errorf("server: --secrets-key-file: %w", err)
	case err != nil:
		return nil, fmt.Errorf("server: %w", err)
	}
	return st, nil
}

// keyring is the keys cfg asks for: the key file's, dev's built-in one, a locked keyring for a
// command without secrets, or nil (secrets stored plain).
func (cfg Config) keyring() (*secrets.Keyring, error) {
	switch {
	case cfg.SecretsKeyFile != "":
		keys, err := secrets.Load(cfg.SecretsKeyFile)
		if err != nil {
			return nil, fmt.Errorf("server: --secrets-key-file: %w", err)
		}
		return keys, nil
	case cfg.DevSecrets:
		return secrets.Dev(), nil
	case cfg.NoSecrets:
		return secrets.Locked("no --secrets-key-file (this command touches no secret)"), nil
	}
	return nil, nil
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

// postgresProvisionLanes is how many batches of deploys run at once on PostgreSQL (see
// service.Config.ProvisionLanes). A batch there waits on round trips far more than PostgreSQL
// works, so lanes overlap them; but each batch holds its accounts' rows until its commit, and
// every order of those accounts waits for it. Two drain about as fast as four (2,170 orders a
// second against 1,970-2,760 on 2 cores) and admit a tenth more orders a second meanwhile; one
// admits as many as two and drains a third slower (bench/README.md has the figures).
const postgresProvisionLanes = 2

// provisionLanes is the provisioning worker's lanes on the database dsn: postgresProvisionLanes
// on PostgreSQL, one on SQLite, whose single writer runs one batch at a time anyway (a second
// lane only queues behind the first and holds up POST /instances longer).
func provisionLanes(dsn string) int {
	if isPostgres(dsn) {
		return postgresProvisionLanes
	}
	return 1
}

// Handler serves /api/v1/... and /openapi.json.
func (s *Server) Handler() http.Handler { return s.handler }

// MetricsHandler serves this backend's Prometheus metrics (resellerd_*, go_sql_*, go_*,
// process_*). It belongs on a listener of its own, never on the API's.
func (s *Server) MetricsHandler() http.Handler { return s.metrics.handler() }

// Close stops the workers between steps (see stopWorkers), closes the store and writes the
// access lines still queued in the access log it made. It is safe to call more than once.
func (s *Server) Close() error {
	s.closing.Do(func() {
		s.stopWorkers()
		s.closed = errors.Join(s.closeMachines(), s.store.Close())
		if s.accessLog != nil {
			s.accessLog.Close()
		}
	})
	return s.closed
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
