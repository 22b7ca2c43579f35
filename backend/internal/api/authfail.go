package api

import (
	"errors"
	"math"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Failed authentication is limited per client address: a client that sent authFailuresPerMinute
// (scaled by Config.RateLimitScale) wrong or missing keys within a minute gets 429 with
// Retry-After for every keyed request until that minute has passed, before its key is looked
// up, so guessing keys costs the database nothing and gains nothing. It lives in this process's
// memory, even on PostgreSQL: it protects this replica's database connections, and a guesser
// spread over replicas still meets a limit on each.
const authFailuresPerMinute = 20

// maxTrackedClients bounds the addresses remembered, so a flood of addresses cannot grow
// memory (see evict).
const maxTrackedClients = 4096

// authFailures counts failed authentications per client address over a fixed one-minute window
// that starts at the first failure.
type authFailures struct {
	mu      sync.Mutex
	limit   int // 0: no limit
	clients map[netip.Prefix]failWindow
	// tracked is len(clients), kept beside it (under mu) so a request finds that no address has
	// failed lately without the lock, the address's parse or the clock: the case of nearly
	// every one. Ended windows are forgotten at most once a window (sweepAt, in blocked), so
	// the table empties again a minute or two after the last failure.
	tracked atomic.Int64
	sweepAt time.Time
}

type failWindow struct {
	start time.Time
	count int
}

func newAuthFailures(scale float64) *authFailures {
	limit := 0
	if scale > 0 {
		limit = max(1, int(math.Ceil(authFailuresPerMinute*scale)))
	}
	return &authFailures{limit: limit, clients: map[netip.Prefix]failWindow{}}
}

// blocked reports how many whole seconds the client at ip must wait before its keys are looked
// up again; 0 when it may go on. The clock is read only when some address has failed.
func (a *authFailures) blocked(ip string, clock Clock) int {
	if a.limit == 0 || a.tracked.Load() == 0 {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	now := clock.Now()
	if !now.Before(a.sweepAt) {
		a.forgetEnded(now)
		a.sweepAt = now.Add(rateWindow)
	}
	w, ok := a.clients[clientPrefix(ip)]
	if !ok || w.count < a.limit || !now.Before(w.start.Add(rateWindow)) {
		return 0
	}
	return max(1, int(math.Ceil(w.start.Add(rateWindow).Sub(now).Seconds())))
}

// failed records a failed authentication of the client at ip.
func (a *authFailures) failed(ip string, now time.Time) {
	if a.limit == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	key := clientPrefix(ip)
	w, ok := a.clients[key]
	if !ok || !now.Before(w.start.Add(rateWindow)) {
		if !ok && len(a.clients) >= maxTrackedClients {
			a.evict(now)
		}
		w = failWindow{start: now}
	}
	w.count++
	a.clients[key] = w
	a.tracked.Store(int64(len(a.clients)))
}

// forgetEnded forgets every ended window.
func (a *authFailures) forgetEnded(now time.Time) {
	for k, w := range a.clients {
		if !now.Before(w.start.Add(rateWindow)) {
			delete(a.clients, k)
		}
	}
	a.tracked.Store(int64(len(a.clients)))
}

// evict forgets every ended window and, when that frees less than an eighth of the table, an
// arbitrary eighth more (map order is random), so a flood of addresses costs one pass per
// maxTrackedClients/8 new ones, not one per address.
func (a *authFailures) evict(now time.Time) {
	a.forgetEnded(now)
	for k := range a.clients {
		if len(a.clients) <= maxTrackedClients-maxTrackedClients/8 {
			break
		}
		delete(a.clients, k)
	}
}

// clientPrefix is what a client is counted by: its IPv4 address, or the /64 of its IPv6 address
// (one host commonly holds a whole /64).
func clientPrefix(ip string) netip.Prefix {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return netip.Prefix{}
	}
	addr = addr.Unmap()
	if addr.Is4() {
		return netip.PrefixFrom(addr, 32)
	}
	p, _ := addr.WithZone("").Prefix(64)
	return p
}

// authenticate finds the account of the request's key, or answers: 429 when the client address
// has failed too often (before the key is looked up), else the service's error (401, 403),
// counting a 401 against the address.
func (h *handler) authenticate(w http.ResponseWriter, r *http.Request) (store.Account, bool) {
	ip := clientIP(r)
	if wait := h.authFails.blocked(ip, h.clock); wait > 0 {
		h.tooMany(w, r, wait, "too many failed authentications from this address")
		return store.Account{}, false
	}
	acct, err := h.svc.Authenticate(r.Context(), apiKey(r))
	if err != nil {
		var e *service.Error
		if errors.As(err, &e) && e.Kind == service.KindUnauthorized {
			h.authFails.failed(ip, h.clock.Now())
		}
		h.fail(w, r, err)
		return store.Account{}, false
	}
	return acct, true
}
