// Package service holds the rules of the Reseller API: accounts and their keys, the wallet and
// its ledger, the catalogue as an account may see it, quotes, orders and their provisioning,
// instances and their actions, one-click app installs, snapshots, hourly billing, traffic against
// its allowance (billed or locked), the webhook registration and the delivery of events. It
// speaks in store and catalog types and micro-USD; the api package turns its results into JSON
// and its *Error into envelopes.
package service

import (
	"cmp"
	"crypto/rand"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/delivery"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Clock tells the time; tests inject one they can move.
type Clock interface{ Now() time.Time }

// DefaultOrderWindow is how long an order may stay pending when Config.OrderWindow is zero.
const DefaultOrderWindow = 10 * time.Minute

// DefaultInstallTimeout bounds an app's installer when Config.InstallTimeout is zero.
const DefaultInstallTimeout = 10 * time.Minute

// Config wires a Service.
type Config struct {
	Store      store.Store
	Catalog    *catalog.Catalog
	Datacenter datacenter.Datacenter
	Clock      Clock
	Logger     *slog.Logger
	// OrderWindow is how long an order may stay pending before it times out.
	OrderWindow time.Duration
	// AppStepDelay is how long each stage of an app install (preparing, running) takes.
	AppStepDelay time.Duration
	// InstallTimeout bounds an app's installer: one still running then is stopped and fails
	// its install; 0 is DefaultInstallTimeout.
	InstallTimeout time.Duration
	// WorkLease is how long a worker may hold claimed work (orders, installs, deliveries) before
	// another may take it over; 0 is DefaultWorkLease.
	WorkLease time.Duration
	// AllowHTTPWebhooks accepts http:// webhook URLs on loopback hosts (tests); HTTPS only
	// otherwise.
	AllowHTTPWebhooks bool
	// WebhookAllow are internal address ranges webhooks may reach all the same (an
	// on-premises receiver); every other internal address is refused (see delivery.Targets).
	WebhookAllow []netip.Prefix
	// WebhookResolver resolves the webhook hosts when they are dialled; nil is the system's.
	// Tests pass one whose answers they control.
	WebhookResolver *net.Resolver
	// EventRetention is how long delivered and abandoned events and their deliveries are kept;
	// 0 is DefaultEventRetention.
	EventRetention time.Duration
	// Sender makes webhook delivery attempts; nil sends them over HTTP to the addresses the
	// webhook rule permits.
	Sender delivery.Sender
	// OnDelivery is told the outcome of every recorded webhook delivery attempt (see
	// deliveryOutcome), for the metrics; nil: nobody.
	OnDelivery func(outcome string)
	// DeliveryObserver is told about every webhook delivery attempt as it was made (see
	// DeliveryAttempt); nil: nobody.
	DeliveryObserver DeliveryObserver
	// ProvisionLanes is how many batches of deploys the provisioning worker runs at once, each
	// over accounts of its own (see ProvisionDue); 0 or 1 runs them one after the other, and
	// more than MaxProvisionLanes is MaxProvisionLanes. The server sets it from the database.
	ProvisionLanes int
	// KeyHash is what the store keeps of an API key whose SHA-256 is digest (the store's
	// KeyHash: a keyed hash once the database has a secrets key); nil keeps the digest itself.
	KeyHash func(digest []byte) ([]byte, error)
	// KeyTag is the tag binding a KeyHash to an account id (the store's KeyTag), which
	// Authenticate checks; nil, or a nil tag, checks none.
	KeyTag func(accountID int64, hash []byte) ([]byte, error)
}

// Service carries out the API's rules on a store, the seeded catalogue and a datacenter.
type Service struct {
	store          store.Store
	catalog        *catalog.Catalog
	dc             datacenter.Datacenter
	clock          Clock
	log            *slog.Logger
	random         io.Reader                                          // crypto/rand: read by lanes, pollers and requests at once
	keyHash        func(digest []byte) ([]byte, error)                // Config.KeyHash; nil: the digest
	keyTag         func(accountID int64, hash []byte) ([]byte, error) // Config.KeyTag; nil: none
	orderWindow    time.Duration
	workLease      time.Duration
	appStepDelay   time.Duration
	installTimeout time.Duration
	installs       *installPool // the install stages running (see InstallAppsDue)
	inflight       *inflight
	purge          *purger
	retention      *purger // when rows past their retention were last purged (retention.go)
	eventRetention time.Duration
	allowHTTP      bool
	targets        delivery.Targets // where webhooks may point, checked at registration and when dialled
	sender         delivery.Sender
	onDelivery     func(outcome string)
	observer       DeliveryObserver
	pings          chan struct{}              // a slot per test ping in flight (see TestWebhook)
	attempts       *attemptPool               // the delivery attempts in flight (see DeliverDue)
	lanes          int                        // batches of deploys at once (Config.ProvisionLanes), 1 to MaxProvisionLanes
	deployHook     atomic.Pointer[DeployHook] // tests' injection at a deploy (deploy_hook.go); nil: none
}

// New wires a Service. All time comes from the clock so tests control it.
func New(cfg Config) *Service {
	if cfg.OrderWindow <= 0 {
		cfg.OrderWindow = DefaultOrderWindow
	}
	targets := delivery.Targets{AllowLoopback: cfg.AllowHTTPWebhooks, Allow: cfg.WebhookAllow}
	if cfg.EventRetention <= 0 {
		cfg.EventRetention = DefaultEventRetention
	}
	if cfg.Sender == nil {
		cfg.Sender = delivery.NewHTTPSender(targets, cfg.WebhookResolver)
	}
	if cfg.OnDelivery == nil {
		cfg.OnDelivery = func(string) {}
	}
	return &Service{
		store: cfg.Store, catalog: cfg.Catalog, dc: cfg.Datacenter, clock: cfg.Clock, log: cfg.Logger,
		random: rand.Reader, keyHash: cfg.KeyHash, keyTag: cfg.KeyTag, orderWindow: cfg.OrderWindow, appStepDelay: cfg.AppStepDelay,
		workLease: cmp.Or(cfg.WorkLease, DefaultWorkLease), installTimeout: cmp.Or(cfg.InstallTimeout, DefaultInstallTimeout), installs: newInstallPool(),
		inflight: newInflight(), purge: &purger{}, retention: &purger{}, eventRetention: cfg.EventRetention, allowHTTP: cfg.AllowHTTPWebhooks, targets: targets, sender: cfg.Sender,
		pings: make(chan struct{}, maxPingsInFlight), attempts: newAttemptPool(), onDelivery: cfg.OnDelivery, observer: cfg.DeliveryObserver,
		lanes: min(max(cfg.ProvisionLanes, 1), MaxProvisionLanes),
	}
}

// Catalog returns the seeded catalogue, for read-only lookups such as the dollar rate.
func (s *Service) Catalog() *catalog.Catalog { return s.catalog }

// now is the service's time, in UTC so every stored and shown timestamp has the same offset.
func (s *Service) now() time.Time { return s.clock.Now().UTC() }
