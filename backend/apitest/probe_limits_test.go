package apitest

import (
	"net/http"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// TestProbesAreNeverRateLimited sends far more probes than /health's limit allows from one
// address: /livez and /readyz answer 200 every time while /health is refused.
func TestProbesAreNeverRateLimited(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.RateLimitScale = 0.025 }) // /health: 3 a minute
	for range 20 {
		for _, p := range []string{"//livez", "//readyz"} {
			e.do(t, request{Path: p, SkipContract: true}).WantStatus(t, http.StatusOK, "")
		}
	}
	for range 3 {
		e.do(t, request{Path: "/health"}).WantStatus(t, http.StatusOK, "")
	}
	e.do(t, request{Path: "/health"}).WantStatus(t, http.StatusTooManyRequests, "rate_limited")
	e.do(t, request{Path: "//readyz", SkipContract: true}).WantStatus(t, http.StatusOK, "")
	e.do(t, request{Path: "/livez", SkipContract: true}).WantStatus(t, http.StatusNotFound, "not_found") // root only
}
