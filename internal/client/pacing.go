package client

import (
	"context"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Per-minute request budgets per route and key (spec: Limits; the backend's choices table). The
// API counts each route pattern (GET /instances/{id} is one route for every id) over a sliding
// minute; the webhook's PUT and DELETE share one budget.
const (
	catalogueBudget = 120 // catalogue and public reads, POST /quote
	readBudget      = 60  // every other read
	orderBudget     = 10  // POST /instances
	actionBudget    = 30  // POST /instances/{id}/actions, POST /snapshots/{id}/restore
	writeBudget     = 30  // other writes: PATCH, DELETE, POST of apps and snapshots
	webhookBudget   = 10  // webhook changes, and the test ping
)

// paceWindow is the span a budget counts over: the API's minute plus a margin for the clocks'
// drift and the time between the server counting a request and its answer leaving it. (The
// time a request spends on the wire or waiting for the server, however long on a loaded
// machine, needs no margin: a send is dated by its answer, see answered.)
const paceWindow = time.Minute + time.Second

// announceAfter is the wait from which a paced request tells the user (once per route, at INFO)
// that the operation is held back by the API's limits and for about how long.
const announceAfter = 5 * time.Second

// pacer holds each request back until its route's budget allows it, so a large plan, apply or
// destroy sends nothing the API would refuse with 429. Each route keeps the send times of its
// last minute (a token bucket whose tokens come back one minute after use, the same count the
// server keeps), shared by every resource of the provider process.
type pacer struct {
	scale float64
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error

	mu        sync.Mutex
	sent      map[string][]time.Time // route key -> send times within paceWindow, oldest first
	waiting   map[string]int         // route key -> requests waiting for budget
	announced map[string]bool
}

func newPacer(scale float64) *pacer {
	return &pacer{scale: scale, now: time.Now, sleep: Sleep,
		sent: map[string][]time.Time{}, waiting: map[string]int{}, announced: map[string]bool{}}
}

// sendMark is a send take allowed: its budget's key and the time it was reserved at, until
// answered dates it by its answer.
type sendMark struct {
	key string
	at  time.Time
}

// take blocks until a request of method and path may be sent, or until ctx ends, and returns
// the send's mark for answered.
func (p *pacer) take(ctx context.Context, method, path string) (sendMark, error) {
	key, perMinute := routeBudget(method, path)
	limit := ScaledBudget(perMinute, p.scale)
	var waited time.Duration
	for {
		wait, queued, at := p.reserve(key, limit)
		if wait == 0 {
			if waited > 0 {
				tflog.Debug(ctx, "request budget available", map[string]any{"route": key, "waited": waited.String()})
			}
			return sendMark{key: key, at: at}, nil
		}
		p.logWait(ctx, key, limit, wait, queued)
		err := p.sleep(ctx, wait)
		p.mu.Lock()
		p.waiting[key]--
		p.mu.Unlock()
		if err != nil {
			return sendMark{}, err
		}
		waited += wait
	}
}

// answered dates a send by the time its answer (or its failure) came back instead of the time
// it was allowed: the server counted it somewhere in between, so a budget whose oldest send
// leaves the window by this date has left the server's minute too, however long the request
// waited on a loaded machine or network. (Dated by its start, a request the server took up
// late could still be in the server's minute when the pacer let the next one go: a 429.)
func (p *pacer) answered(m sendMark) {
	if m.key == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	times := p.sent[m.key]
	for i, at := range times {
		if at.Equal(m.at) {
			times = append(times[:i:i], times[i+1:]...)
			break
		}
	}
	p.sent[m.key] = append(times, p.now()) // now is the latest: the times stay oldest first
}

// reserve records a send now when the budget allows it and returns 0 and that time; otherwise
// it returns how long until the oldest send leaves the window, and how many requests (this one
// included) are waiting for the route.
func (p *pacer) reserve(key string, limit int) (time.Duration, int, time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	times := p.sent[key]
	for len(times) > 0 && now.Sub(times[0]) >= paceWindow {
		times = times[1:]
	}
	if len(times) < limit {
		p.sent[key] = append(times, now)
		return 0, 0, now
	}
	p.sent[key] = times
	p.waiting[key]++
	return times[0].Add(paceWindow).Sub(now), p.waiting[key], time.Time{}
}

// logWait says at DEBUG that a request waits for its budget, and once per route at INFO when
// the limits will hold the operation back noticeably, with the expected wait for the queue.
func (p *pacer) logWait(ctx context.Context, key string, limit int, wait time.Duration, queued int) {
	fields := map[string]any{"route": key, "wait": wait.Round(time.Millisecond).String(), "per_minute": limit, "queued": queued}
	tflog.Debug(ctx, "request waits for its rate-limit budget", fields)
	if wait < announceAfter {
		return
	}
	p.mu.Lock()
	first := !p.announced[key]
	p.announced[key] = true
	p.mu.Unlock()
	if first {
		expected := wait + time.Duration((queued-1)/limit)*paceWindow
		fields["expected_wait"] = expected.Round(time.Second).String()
		tflog.Info(ctx, "the API's rate limit paces these requests; the operation waits about "+
			expected.Round(time.Second).String()+" for its budget", fields)
	}
}

// PaceBudget is the budget a request of method and path counts in: its key (routes sharing one
// budget share the key) and its requests a minute. The API's table of routes is held to it
// (backend/internal/api: TestRoutesTable_clientPacing).
func PaceBudget(method, path string) (key string, perMinute int) { return routeBudget(method, path) }

// ScaledBudget is a budget of perMinute requests at the API's --rate-limit-scale scale, as the
// API counts it: rounded up, and at least one.
func ScaledBudget(perMinute int, scale float64) int {
	return max(1, int(math.Ceil(float64(perMinute)*scale)))
}

// routeBudget names the budget a request counts against (its route pattern, numeric path
// segments as {id}) and that budget's requests per minute before scaling.
func routeBudget(method, path string) (string, int) {
	route := method + " " + routePattern(path)
	switch route {
	case "PUT /account/webhook", "DELETE /account/webhook":
		return "webhook changes", webhookBudget
	case "POST /account/webhook/test":
		return route, webhookBudget
	case "POST /instances":
		return route, orderBudget
	case "POST /instances/{id}/actions", "POST /snapshots/{id}/restore":
		return route, actionBudget
	case "POST /quote", "GET /health", "GET /api/dollar", "GET /datacenters", "GET /locations":
		return route, catalogueBudget
	}
	switch {
	case method == http.MethodGet && strings.HasPrefix(path, "/catalog/"):
		return route, catalogueBudget
	case method == http.MethodGet:
		return route, readBudget
	default:
		return route, writeBudget
	}
}

// routePattern replaces the numeric segments of path with {id}.
func routePattern(path string) string {
	parts := strings.Split(path, "/")
	for i, part := range parts {
		if part != "" && strings.Trim(part, "0123456789") == "" {
			parts[i] = "{id}"
		}
	}
	return strings.Join(parts, "/")
}
