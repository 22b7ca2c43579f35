package instance_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
)

// TestAccInstance_realLimits applies 12 servers against a backend at the API's documented rate
// limits (10 orders a minute, 60 reads a minute per route): the provider paces itself, so the
// backend answers no 429, and each server is ordered exactly once. It lasts over a minute by
// the nature of the order limit.
func TestAccInstance_realLimits(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	const servers = 12
	b := acctest.StartBackend(t, acctest.WithRealLimits(), acctest.WithLimits(servers, servers), acctest.WithBalance(1000))
	config := b.ProviderConfig() + fmt.Sprintf(`
resource "reseller_instance" "fleet" {
  count       = %d
  plan_id     = %d
  template_id = %d
}
`, servers, planSmall, tmplUbuntu)
	resource.ParallelTest(t, steps(t, b, resource.TestStep{
		Config: config,
		Check: func(*terraform.State) error {
			if got := b.Answers(http.StatusTooManyRequests); got != 0 {
				return fmt.Errorf("the backend answered 429 %d times (requests: %v)", got, b.RequestRoutes())
			}
			if got := b.Requests("POST /instances"); got != servers {
				return fmt.Errorf("POST /instances: got %d, want %d (one per server)", got, servers)
			}
			if got := b.Requests("GET /orders/{id}"); got != 0 {
				return fmt.Errorf("GET /orders/{id}: got %d, want 0 (the waits share GET /orders)", got)
			}
			return nil
		},
	}))
}
