// Package api is the HTTP face of the service: routes on a net/http ServeMux under /api/v1,
// middleware (request id, recovery, body limit, authentication, rate limits), JSON in and out.
// Handlers only translate; every rule lives in the service package.
package api

import (
	"cmp"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
)

// Prefix is the version prefix of every API path (the spec's {base_url}).
const Prefix = "/api/v1"

// Version is the interface version GET /health reports.
const Version = "1.1.0"

// Clock tells the time; rate limits follow it so tests can move it.
type Clock interface{ Now() time.Time }

// Config is what the handler needs.
type Config struct {
	Service        *service.Service
	Logger         *slog.Logger
	Clock          Clock
	RateLimitScale float64                // multiplies every rate limit; 0 disables them
	OpenAPI        func() ([]byte, error) // the document served at /openapi.json
	// RateWindows keeps the rate-limit windows; nil keeps them in this process's memory.
	RateWindows RateWindows
	// Observer is told about every request (metrics); nil: none.
	Observer Observer
	// Ready answers GET /readyz; nil: always ready.
	Ready ReadyFunc
	// TrustedProxies are the ranges of the proxies whose Forwarded and X-Forwarded-For headers
	// are believed (see clientAddr); none: the peer is the client.
	TrustedProxies []netip.Prefix
}

// handler carries the dependencies of every route.
type handler struct {
	svc       *service.Service
	log       *slog.Logger
	clock     Clock
	limits    *limiter
	authFails *authFailures // failed authentications per client address (authfail.go)
	openapi   func() ([]byte, error)
	bufs      bufferPool // what write encodes answers into
	observer  Observer
	ready     ReadyFunc
	proxies   trustedProxies // whose forwarding headers name the client (client_addr.go)
}

// NewHandler returns the whole API: /api/v1/... and /openapi.json.
func NewHandler(cfg Config) http.Handler {
	h := newHandler(cfg)
	mux := http.NewServeMux()
	h.routes(mux)
	return h.wrap(mux)
}

func newHandler(cfg Config) *handler {
	return &handler{
		svc:       cfg.Service,
		log:       cfg.Logger,
		clock:     cfg.Clock,
		limits:    newLimiter(cfg.Clock, cfg.RateLimitScale, cfg.RateWindows, cfg.Logger),
		authFails: newAuthFailures(cfg.RateLimitScale),
		openapi:   cfg.OpenAPI,
		observer:  cmp.Or[Observer](cfg.Observer, noObserver{}),
		ready:     cfg.Ready,
		proxies:   trustedProxies(cfg.TrustedProxies),
	}
}

// Per-minute rate limits of the routes (spec: Limits; README: choices table).
const (
	catalogueLimit = 120
	accountLimit   = 60 // every other read route
	orderLimit     = 10 // POST /instances
	actionLimit    = 30 // POST /instances/{id}/actions and POST /snapshots/{id}/restore
	writeLimit     = 30 // PATCH and DELETE of an instance or a snapshot, POST of an instance's apps and snapshots
	webhookLimit   = 10 // webhook changes (PUT and DELETE together), and test pings
)

// webhookChanges is the one rate-limit bucket PUT and DELETE /account/webhook share (spec:
// "webhook changes", 10 per minute per key).
const webhookChanges = "webhook changes"

// routes registers every endpoint of this version of the API.
func (h *handler) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /openapi.json", h.openAPIDocument)
	h.probes(mux)

	h.public(mux, "GET /health", catalogueLimit, h.health)
	h.authed(mux, "GET /api/dollar", catalogueLimit, h.dollar)

	h.authed(mux, "GET /account", accountLimit, h.account)
	h.authed(mux, "GET /account/balance", accountLimit, h.balance)
	h.authed(mux, "GET /account/payments", accountLimit, h.payments)
	h.authed(mux, "GET /account/webhook", accountLimit, h.webhook)
	h.authedIn(mux, "PUT /account/webhook", webhookChanges, webhookLimit, h.putWebhook)
	h.authedIn(mux, "DELETE /account/webhook", webhookChanges, webhookLimit, h.deleteWebhook)
	h.authed(mux, "POST /account/webhook/test", webhookLimit, h.testWebhook)

	h.authed(mux, "GET /catalog/servers", catalogueLimit, h.plans)
	h.authed(mux, "GET /catalog/servers/{server_id}", catalogueLimit, h.plan)
	h.authed(mux, "GET /datacenters", catalogueLimit, h.datacenters)
	h.authed(mux, "GET /locations", catalogueLimit, h.locations)
	h.authed(mux, "GET /catalog/apps", catalogueLimit, h.apps)
	h.authed(mux, "POST /quote", catalogueLimit, h.quote)

	h.authed(mux, "GET /orders", accountLimit, h.orders)
	h.authed(mux, "GET /orders/{order_id}", accountLimit, h.order)

	h.authed(mux, "GET /instances", accountLimit, h.instances)
	h.authed(mux, "POST /instances", orderLimit, h.createInstance)
	h.authed(mux, "GET /instances/{instance_id}", accountLimit, h.instance)
	h.authed(mux, "PATCH /instances/{instance_id}", writeLimit, h.updateInstance)
	h.authed(mux, "DELETE /instances/{instance_id}", writeLimit, h.cancelInstance)
	h.authed(mux, "POST /instances/{instance_id}/actions", actionLimit, h.action)
	h.authed(mux, "GET /instances/{instance_id}/resize-options", accountLimit, h.resizeOptions)
	h.authed(mux, "GET /instances/{instance_id}/traffic", accountLimit, h.traffic)
	h.authed(mux, "GET /instances/{instance_id}/apps", accountLimit, h.instanceApps)
	h.authed(mux, "POST /instances/{instance_id}/apps", writeLimit, h.installApps)
	h.authed(mux, "GET /instances/{instance_id}/snapshots", accountLimit, h.instanceSnapshots)
	h.authed(mux, "POST /instances/{instance_id}/snapshots", writeLimit, h.createSnapshot)

	h.authed(mux, "GET /snapshots", accountLimit, h.snapshots)
	h.authed(mux, "GET /snapshots/{snapshot_id}", accountLimit, h.snapshot)
	h.authed(mux, "PATCH /snapshots/{snapshot_id}", writeLimit, h.updateSnapshot)
	h.authed(mux, "DELETE /snapshots/{snapshot_id}", writeLimit, h.deleteSnapshot)
	h.authed(mux, "POST /snapshots/{snapshot_id}/restore", actionLimit, h.restoreSnapshot)
}

// wrap adds the middleware every request passes, outermost first, answers requests no route
// matches with the envelope instead of the mux's plain text, and refuses a malformed query
// string or a body that is not JSON before any route sees them.
func (h *handler) wrap(mux *http.ServeMux) http.Handler {
	routed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pattern := mux.Handler(r)
		if pattern == "" {
			h.unmatched(w, r, mux)
			return
		}
		accessOf(r.Context()).route = routeLabel(pattern)
		if err := checkRequest(r); err != nil {
			h.fail(w, r, err)
			return
		}
		mux.ServeHTTP(w, r)
	})
	return h.withRequestID(h.withRecovery(withBodyLimit(routed)))
}
