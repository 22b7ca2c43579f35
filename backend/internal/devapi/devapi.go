// Package devapi is the test-control API of `resellerd dev`: under /_dev/ at the root of the
// listener, it lets a test in any language do what the provider's Go acceptance tests do through
// the server's operator hooks: reset the service, move its clock, lock servers, time out orders,
// change a root password behind the API's back and set the datacenter's fail rate. `resellerd
// serve` never mounts it, so there /_dev/ is the API's plain 404.
package devapi

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
)

// Prefix is where the test-control API is mounted.
const Prefix = "/_dev/"

// MaxAdvance bounds one clock move, so a single request's work stays bounded: 744 hourly
// steps of the workers, about half a minute.
const MaxAdvance = 31 * 24 * time.Hour

// clockStep is the largest step of a clock move: the workers run after each step, so hourly
// renewals, snapshot hours and low-balance alerts happen hour by hour as they would in real time.
const clockStep = time.Hour

// Backend is what the routes act on: the operator hooks of the backend now serving (the
// composition root, resellerd.Server, has them). Their errors are the API's, answered as they are.
type Backend interface {
	// RunDue runs every worker once, for what is due at the clock's time.
	RunDue(ctx context.Context) error
	// AuthorizeInstance checks that key is an account's and the instance that account's
	// (401 and 404 otherwise); AuthorizeOrder does the same for an order.
	AuthorizeInstance(ctx context.Context, key string, instanceID int64) error
	AuthorizeOrder(ctx context.Context, key string, orderID int64) error
	LockInstance(ctx context.Context, instanceID int64, reason string) error
	UnlockInstance(ctx context.Context, instanceID int64) error
	// ChangeRootPasswordOutOfBand changes the root password on the machine behind the
	// service's back, as a user logged in over SSH would.
	ChangeRootPasswordOutOfBand(ctx context.Context, instanceID int64) error
	// TimeOutOrder ends a pending order as if its order window had passed.
	TimeOutOrder(ctx context.Context, orderID int64) error
	// SetFailRate sets the share (0 to 1) of simulated builds and operations that fail.
	SetFailRate(ctx context.Context, rate float64) error
	OverviewReader // overview.go
}

// Config is what the handler acts on.
type Config struct {
	// Do runs fn with the backend now serving, holding it against a concurrent reset.
	Do func(fn func(Backend) error) error
	// Reset brings the service back to its seed (or its fresh account) with the same keys. It is
	// given a context the client's hanging up does not cancel.
	Reset func(ctx context.Context) error
	// Clock is the service's clock, moved by POST /_dev/clock.
	Clock *OffsetClock
	// Logger receives the 5xx answers' detail (nil: nowhere).
	Logger *slog.Logger
	// CheckpointDir is where the checkpoint routes keep their copies of the service: a
	// directory the dev process owns and removes at exit. Empty: no checkpoint routes (404).
	CheckpointDir string
	// Save writes the whole service (database and clock) to a new SQLite file at path,
	// atomically, and returns the service clock's time it saved.
	Save func(ctx context.Context, path string) (time.Time, error)
	// MaxCheckpoints and MaxCheckpointBytes bound the checkpoints kept at once, in number and
	// in bytes on disk together; a save past either is refused 409 checkpoint_limit. Zero takes
	// the defaults (DefaultMaxCheckpoints, DefaultMaxCheckpointBytes).
	MaxCheckpoints     int
	MaxCheckpointBytes int64
	// Load replaces the whole service by the one Save wrote to path, with the same keys; work
	// in flight is dropped, as by Reset, and like Reset it is not cancelled by the client.
	Load func(ctx context.Context, path string) error
	// Journal is the request journal GET and DELETE /_dev/requests show and empty (nil: off).
	Journal *Journal
	// Faults are the fault rules PUT, GET and DELETE /_dev/faults set, show and clear.
	Faults *Faults
}

// New returns the handler of every /_dev/ route; anything else under /_dev/ is 404 in the
// spec's envelope.
func New(cfg Config) http.Handler {
	h := handler{cfg: cfg, resp: api.NewResponder(cfg.Logger), checkpoints: newCheckpoints(cfg)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /_dev/reset", h.reset)
	mux.HandleFunc("POST /_dev/clock", h.clock)
	mux.HandleFunc("POST /_dev/instances/{id}/lock", h.instance(lockInstance))
	mux.HandleFunc("POST /_dev/instances/{id}/unlock", h.instance(unlockInstance))
	mux.HandleFunc("POST /_dev/instances/{id}/password-changed", h.instance(passwordChanged))
	mux.HandleFunc("POST /_dev/orders/{id}/time-out", h.timeOut)
	mux.HandleFunc("PUT /_dev/fail-rate", h.failRate)
	if cfg.CheckpointDir != "" {
		mux.HandleFunc("POST /_dev/checkpoints", h.saveCheckpoint)
		mux.HandleFunc("GET /_dev/checkpoints", h.listCheckpoints)
		mux.HandleFunc("POST /_dev/checkpoints/{name}/restore", h.restoreCheckpoint)
		mux.HandleFunc("DELETE /_dev/checkpoints/{name}", h.deleteCheckpoint)
	}
	mux.HandleFunc("GET /_dev/requests", h.listRequests)
	mux.HandleFunc("DELETE /_dev/requests", h.clearRequests)
	if cfg.Faults != nil {
		mux.HandleFunc("PUT /_dev/faults", h.putFaults)
		mux.HandleFunc("GET /_dev/faults", h.listFaults)
		mux.HandleFunc("DELETE /_dev/faults", h.clearFaults)
	}
	mux.HandleFunc("GET /_dev/overview", h.overview)
	mux.HandleFunc("GET "+ConsolePath, h.console)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.resp.Fail(w, r, service.NotFound("path "+r.URL.Path))
	})
	return mux
}

type handler struct {
	cfg         Config
	resp        api.Responder // answers as the API does
	checkpoints *checkpoints  // the saved copies of the service, shared by every request
}

// reset serves POST /_dev/reset. The reset runs to its end whatever the client does: one cut
// short once the backend had stopped would leave the service without one.
func (h handler) reset(w http.ResponseWriter, r *http.Request) {
	if err := h.cfg.Reset(context.WithoutCancel(r.Context())); err != nil {
		h.resp.Fail(w, r, err)
		return
	}
	h.resp.OK(w, r, map[string]any{"reset": true})
}

// clock moves the service's clock forward by "advance" (a Go duration such as "25h" or "90m")
// in steps of at most clockStep, running every worker after each step.
func (h handler) clock(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Advance *string `json:"advance"`
	}
	if !h.decode(w, r, &in) {
		return
	}
	if in.Advance == nil {
		h.resp.Fail(w, r, service.Validation("advance", "is required, a duration such as \"25h\" or \"90m\""))
		return
	}
	d, err := time.ParseDuration(*in.Advance)
	if err != nil || d <= 0 || d > MaxAdvance {
		h.resp.Fail(w, r, service.Validation("advance", "must be a positive duration such as \"25h\", at most 31 days (%s)", MaxAdvance))
		return
	}
	err = h.cfg.Do(func(s Backend) error { return advance(r.Context(), s, h.cfg.Clock, d) })
	if err != nil {
		h.resp.Fail(w, r, err)
		return
	}
	h.resp.OK(w, r, map[string]any{"advanced": d.String(), "now": h.cfg.Clock.Now().UTC().Format(time.RFC3339)})
}

// advance moves clock by d, step by step, running the workers after each step.
func advance(ctx context.Context, s Backend, clock *OffsetClock, d time.Duration) error {
	for d > 0 {
		step := min(d, clockStep)
		clock.Advance(step)
		d -= step
		if err := s.RunDue(ctx); err != nil {
			return service.Internal(err)
		}
	}
	return nil
}

// instanceHook is an operator hook on one instance, its request body already read.
type instanceHook func(ctx context.Context, s Backend, id int64, body instanceBody) error

type instanceBody struct {
	Reason *string `json:"reason"`
}

func lockInstance(ctx context.Context, s Backend, id int64, body instanceBody) error {
	if body.Reason == nil || strings.TrimSpace(*body.Reason) == "" {
		return service.Validation("reason", "is required, such as \"debt\", \"traffic\" or \"abuse\"")
	}
	return s.LockInstance(ctx, id, *body.Reason)
}

func unlockInstance(ctx context.Context, s Backend, id int64, _ instanceBody) error {
	return s.UnlockInstance(ctx, id)
}

func passwordChanged(ctx context.Context, s Backend, id int64, _ instanceBody) error {
	return s.ChangeRootPasswordOutOfBand(ctx, id)
}

// instance serves a hook on an instance of the account whose key the request carries.
func (h handler) instance(hook instanceHook) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, okID := h.pathID(w, r)
		var body instanceBody
		if !okID || !h.decode(w, r, &body) {
			return
		}
		err := h.cfg.Do(func(s Backend) error {
			if err := s.AuthorizeInstance(r.Context(), api.Key(r), id); err != nil {
				return err
			}
			return hook(r.Context(), s, id, body)
		})
		if err != nil {
			h.resp.Fail(w, r, err)
			return
		}
		h.resp.OK(w, r, map[string]any{"instance_id": id})
	}
}

func (h handler) timeOut(w http.ResponseWriter, r *http.Request) {
	id, okID := h.pathID(w, r)
	if !okID || !h.decode(w, r, &struct{}{}) {
		return
	}
	err := h.cfg.Do(func(s Backend) error {
		if err := s.AuthorizeOrder(r.Context(), api.Key(r), id); err != nil {
			return err
		}
		return s.TimeOutOrder(r.Context(), id)
	})
	if err != nil {
		h.resp.Fail(w, r, err)
		return
	}
	h.resp.OK(w, r, map[string]any{"order_id": id})
}

func (h handler) failRate(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Rate *float64 `json:"rate"`
	}
	if !h.decode(w, r, &in) {
		return
	}
	if in.Rate == nil || *in.Rate < 0 || *in.Rate > 1 {
		h.resp.Fail(w, r, service.Validation("rate", "is required, from 0 to 1"))
		return
	}
	if err := h.cfg.Do(func(s Backend) error { return s.SetFailRate(r.Context(), *in.Rate) }); err != nil {
		h.resp.Fail(w, r, err)
		return
	}
	h.resp.OK(w, r, map[string]any{"rate": *in.Rate})
}

// pathID reads the {id} of the path, answering 404 for one that is not a positive integer.
func (h handler) pathID(w http.ResponseWriter, r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		h.resp.Fail(w, r, service.NotFound("path "+r.URL.Path))
		return 0, false
	}
	return id, true
}

// maxBody bounds a request body: every body here is a few bytes.
const maxBody = 4 << 10

// decode reads the JSON object body into v with the API's rules, answering 400 when it cannot.
func (h handler) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := api.DecodeBody(r, v, maxBody); err != nil {
		h.resp.Fail(w, r, err)
		return false
	}
	return true
}
