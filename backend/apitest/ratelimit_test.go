package apitest

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

func TestRateLimit(t *testing.T) {
	t.Parallel()
	// Scale 0.025: catalogue routes and /health allow 3 a minute, account routes 2.
	e := newEnv(t, func(c *resellerd.Config) { c.RateLimitScale = 0.025 })
	a := e.account(t, 0).APIKey
	b := e.account(t, 0).APIKey

	for i := 0; i < 3; i++ {
		e.do(t, request{Path: "/health"}).WantStatus(t, http.StatusOK, "")
	}
	r := e.do(t, request{Path: "/health"})
	r.WantStatus(t, http.StatusTooManyRequests, "rate_limited")
	if got := r.Header.Get("Retry-After"); got != "60" {
		t.Fatalf("Retry-After = %q, want 60", got)
	}
	e.clock.Advance(59 * time.Second)
	r = e.do(t, request{Path: "/health"})
	r.WantStatus(t, http.StatusTooManyRequests, "rate_limited")
	if got := r.Header.Get("Retry-After"); got != "1" {
		t.Fatalf("Retry-After after 59s = %q, want 1", got)
	}
	e.clock.Advance(time.Second)
	e.do(t, request{Path: "/health"}).WantStatus(t, http.StatusOK, "")

	t.Run("per key and per route", func(t *testing.T) {
		for i := 0; i < 2; i++ {
			e.do(t, request{Path: "/account", Key: a}).WantStatus(t, http.StatusOK, "")
		}
		r := e.do(t, request{Path: "/account", Key: a})
		r.WantStatus(t, http.StatusTooManyRequests, "rate_limited")
		if n, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || n < 1 || n > 60 {
			t.Fatalf("Retry-After = %q, want 1..60", r.Header.Get("Retry-After"))
		}
		e.do(t, request{Path: "/account", Key: b}).WantStatus(t, http.StatusOK, "")
		e.do(t, request{Path: "/account/balance", Key: a}).WantStatus(t, http.StatusOK, "")
		e.do(t, request{Path: "/catalog/servers", Key: a}).WantStatus(t, http.StatusOK, "")
		e.clock.Advance(time.Minute)
		e.do(t, request{Path: "/account", Key: a}).WantStatus(t, http.StatusOK, "")
	})
}

func TestRateLimitDisabled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.RateLimitScale = 0 })
	for i := 0; i < 130; i++ {
		e.do(t, request{Path: "/health"}).WantStatus(t, http.StatusOK, "")
	}
}

// TestServerRouteRateLimits checks the spec's limits: POST /instances 10 a minute, actions 30,
// instance reads 60, each per key. Scale 0.1 makes them 1, 3 and 6.
func TestServerRouteRateLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.RateLimitScale = 0.1 })
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	e.order(t, a.APIKey, "", ubuntuOn101).WantStatus(t, http.StatusTooManyRequests, "rate_limited")

	for i := 0; i < 3; i++ {
		e.act(t, a.APIKey, id, `{"action": "power_on"}`)
	}
	r := e.action(t, a.APIKey, id, `{"action": "power_on"}`)
	r.WantStatus(t, http.StatusTooManyRequests, "rate_limited")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	path := "/instances/" + strconv.FormatInt(id, 10)
	for i := 0; i < 6; i++ {
		e.do(t, request{Path: path, Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
	}
	e.do(t, request{Path: path, Key: a.APIKey}).WantStatus(t, http.StatusTooManyRequests, "rate_limited")
	// Another key has its own budget.
	b := e.funded(t, 10_000_000)
	e.order(t, b.APIKey, "", ubuntuOn101).WantStatus(t, http.StatusCreated, "")
	e.clock.Advance(time.Minute)
	e.order(t, a.APIKey, "", ubuntuOn101).WantStatus(t, http.StatusCreated, "")
}
