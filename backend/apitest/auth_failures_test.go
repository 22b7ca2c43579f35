package apitest

import (
	"net/http"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// TestFailedAuthenticationIsLimited: after 20 wrong keys in a minute from one address, every
// keyed request from it is 429 rate_limited with Retry-After, even with a right key: the check
// comes before the key is looked up. A minute after the first failure the right key works again.
// Routes without a key are not affected.
func TestFailedAuthenticationIsLimited(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.RateLimitScale = 1 })
	good := e.account(t, 0).APIKey
	for i := range 20 {
		e.do(t, request{Path: "/account", Key: "wrong-key-" + string(rune('a'+i))}).WantStatus(t, http.StatusUnauthorized, "unauthorized")
		e.clock.Advance(time.Second)
	}
	for _, key := range []string{"wrong-key-z", good} {
		r := e.do(t, request{Path: "/account", Key: key})
		r.WantStatus(t, http.StatusTooManyRequests, "rate_limited")
		if got := r.Header.Get("Retry-After"); got != "40" {
			t.Fatalf("Retry-After = %q, want 40 (the minute since the first failure)", got)
		}
	}
	e.do(t, request{Path: "/health"}).WantStatus(t, http.StatusOK, "")
	e.clock.Advance(40 * time.Second)
	e.do(t, request{Path: "/account", Key: good}).WantStatus(t, http.StatusOK, "")
}
