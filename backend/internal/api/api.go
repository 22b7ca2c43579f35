// Package api is the HTTP face of the service: routes on a net/http ServeMux under /api/v1,
// middleware (request id, recovery, body limit, authentication, rate limits), JSON in and out.
// Handlers only translate; every rule lives in the service package.
package api

import (
	"cmp"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/console"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
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
	// Console serves the machines' consoles under /console/ (--machines sandbox; package
	// console); nil: none. It passes the request id, recovery and access log, whose lines show
	// the console's token redacted.
	Console http.Handler
	// AccessLog writes the access lines off the requests' path (see AccessLog); its owner
	// closes it once the handler has stopped answering. nil: each line is written through
	// Logger at once, on the request's path.
	AccessLog *AccessLog
}

// handler carries the dependencies of every route.
type handler struct {
	svc         *service.Service
	log         *slog.Logger
	clock       Clock
	limits      *limiter
	authFails   *authFailures // failed authentications per client address (authfail.go)
	openapi     func() ([]byte, error)
	bufs        bufferPool  // what write encodes answers into
	catalogJSON catalogJSON // the catalogue's entries as JSON, for the answers appended by hand
	observer    Observer
	ready       ReadyFunc
	proxies     trustedProxies // whose forwarding headers name the client (client_addr.go)
	console     http.Handler   // Config.Console
	access      *AccessLog     // Config.AccessLog; nil: lines written at once through log
	states      sync.Pool      // *requestState of requests in flight, reused (middleware.go)
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
		svc:         cfg.Service,
		log:         cfg.Logger,
		clock:       cfg.Clock,
		limits:      newLimiter(cfg.Clock, cfg.RateLimitScale, cfg.RateWindows, cfg.Logger),
		authFails:   newAuthFailures(cfg.RateLimitScale),
		openapi:     cfg.OpenAPI,
		observer:    cmp.Or[Observer](cfg.Observer, noObserver{}),
		ready:       cfg.Ready,
		proxies:     trustedProxies(cfg.TrustedProxies),
		console:     cfg.Console,
		access:      cfg.AccessLog,
		catalogJSON: catalogJSONOf(cfg.Service),
	}
}

// catalogJSONOf is the JSON of svc's catalogue; none without a service (a test's handler of
// the access log alone).
func catalogJSONOf(svc *service.Service) catalogJSON {
	if svc == nil {
		return catalogJSON{}
	}
	return newCatalogJSON(svc.Catalog())
}

// routes registers every endpoint of this version of the API: the routes of Routes, each with the
// handler and the rate limit its row names, beside the OpenAPI document and the probes.
func (h *handler) routes(mux *http.ServeMux) {
	h.handle(mux, "GET /openapi.json", h.openAPIDocument)
	h.probes(mux)
	if h.console != nil {
		h.handle(mux, console.Prefix, h.console.ServeHTTP)
	}
	for _, rt := range Routes {
		switch {
		case rt.Public && rt.public != nil:
			h.public(mux, rt.Pattern(), rt.PerMinute, func(w http.ResponseWriter, r *http.Request) { rt.public(h, w, r) })
		case !rt.Public && rt.authed != nil:
			h.authedIn(mux, rt.Pattern(), rt.bucket(), rt.PerMinute, func(w http.ResponseWriter, r *http.Request, acct store.Account) {
				rt.authed(h, w, r, acct)
			})
		} // a route without the handler its kind needs: TestEveryRouteHasAHandler fails
	}
}

// handle registers fn on mux under pattern, behind what every matched request goes through
// first: its route label in the access record (made once, here) and the request checks. The
// mux matches each request once: the label is known by the handler it picks.
func (h *handler) handle(mux *http.ServeMux, pattern string, fn http.HandlerFunc) {
	label := routeLabel(pattern)
	mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		accessOf(r.Context()).route = label
		if err := checkRequest(r); err != nil {
			h.fail(w, r, err)
			return
		}
		fn(w, r)
	})
}

// wrap adds the middleware every request passes, outermost first, and answers requests no route
// matches with the envelope instead of the mux's plain text: a catch-all pattern takes them and
// asks a mux of the same patterns without it (shape) whether the path exists under another
// method (405) or not at all (404). A malformed query string or a body that is not JSON is
// refused (handle) before any route sees them.
func (h *handler) wrap(mux *http.ServeMux) http.Handler {
	shape := patternsOnly(h.console)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { h.unmatched(w, r, shape) })
	routed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.RequestURI == "*" { // "OPTIONS *": ServeMux answers 400 without a body before matching
			h.unmatched(w, r, shape)
			return
		}
		mux.ServeHTTP(w, r)
	})
	return h.withRequestID(h.withRecovery(withBodyLimit(routed)))
}
