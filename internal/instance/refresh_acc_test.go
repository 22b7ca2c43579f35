package instance_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

const fleetSize = 25

// TestAccInstance_refreshFromList: refreshing 25 servers and a reseller_instances data source
// costs one GET /instances (the data source shares the resources' list) and no detail read;
// drift made outside Terraform (cancel, power off, resize, rename) is still seen, and only the
// resized server gets a detail read. Destroying the fleet costs one DELETE per server and no
// read to confirm it.
func TestAccInstance_refreshFromList(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t, acctest.WithLimits(fleetSize+5, fleetSize), acctest.WithBalance(1000))
	fleetConfig := func(n int) string {
		return b.ProviderConfig() + fmt.Sprintf(`
resource "reseller_instance" "fleet" {
  count       = %d
  plan_id     = %d
  template_id = %d
  name        = "srv-${count.index}"
}

data "reseller_instances" "all" {
  only_active = false
}
`, n, planSmall, tmplUbuntu)
	}
	config := fleetConfig(fleetSize)
	ids := make([]int64, fleetSize)
	resource.ParallelTest(t, steps(t, b,
		resource.TestStep{
			Config: config,
			Check: resource.ComposeTestCheckFunc(
				fleetIDs(ids),
				// Each create reads its server from the shared order list and the PATCH that
				// names it: no detail read.
				expectRequests(b, map[string]int{"POST /instances": fleetSize, "PATCH /instances/{id}": fleetSize, "GET /instances/{id}": 0}),
			),
		},
		resource.TestStep{
			PreConfig:    b.ResetRequests,
			RefreshState: true,
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr("data.reseller_instances.all", "instances.#", fmt.Sprint(fleetSize)),
				expectRequests(b, map[string]int{"GET /instances": 1, "GET /instances/{id}": 0, "GET /orders/{id}": 0}),
			),
		},
		resource.TestStep{
			PreConfig: func() {
				driftFleet(t, b, ids)
				b.ResetRequests()
			},
			RefreshState:       true,
			ExpectNonEmptyPlan: true,
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr("reseller_instance.fleet.1", "power", "off"),
				resource.TestCheckResourceAttr("reseller_instance.fleet.2", "plan_id", fmt.Sprint(planMedium)),
				resource.TestCheckResourceAttr("reseller_instance.fleet.3", "name", "renamed"),
				func(s *terraform.State) error {
					if _, ok := s.RootModule().Resources["reseller_instance.fleet.0"]; ok {
						return fmt.Errorf("reseller_instance.fleet[0] was canceled outside Terraform but is still in the state")
					}
					return nil
				},
				// The resized server needs its detail (its traffic and features follow the plan).
				expectRequests(b, map[string]int{"GET /instances": 1, "GET /instances/{id}": 1}),
			),
		},
		resource.TestStep{
			PreConfig: b.ResetRequests,
			Config:    fleetConfig(0),
			Check: resource.ComposeTestCheckFunc(
				// The server canceled outside Terraform stays listed (only_active = false); the rest are
				// canceled by this step, each by its DELETE alone (no confirming read).
				resource.TestCheckResourceAttr("data.reseller_instances.all", "instances.#", fmt.Sprint(fleetSize)),
				expectRequests(b, map[string]int{"DELETE /instances/{id}": fleetSize - 1, "GET /instances/{id}": 0}),
			),
		},
	))
}

// fleetIDs records the instance id of each reseller_instance.fleet[i].
func fleetIDs(ids []int64) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for i := range ids {
			rs, ok := s.RootModule().Resources[fmt.Sprintf("reseller_instance.fleet.%d", i)]
			if !ok {
				return fmt.Errorf("reseller_instance.fleet[%d] not in the state", i)
			}
			if _, err := fmt.Sscan(rs.Primary.ID, &ids[i]); err != nil {
				return fmt.Errorf("reseller_instance.fleet[%d].id %q: %w", i, rs.Primary.ID, err)
			}
		}
		return nil
	}
}

// expectRequests checks how many requests of each route the backend answered.
func expectRequests(b *acctest.Backend, want map[string]int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for route, n := range want {
			if got := b.Requests(route); got != n {
				return fmt.Errorf("%s: got %d requests, want %d (all: %v)", route, got, n, b.RequestRoutes())
			}
		}
		if got := b.Answers(http.StatusTooManyRequests); got != 0 {
			return fmt.Errorf("the backend answered 429 %d times", got)
		}
		return nil
	}
}

// driftFleet changes servers 0 to 3 outside Terraform: cancels 0, powers off 1, resizes 2 to
// the medium plan and renames 3, and waits until the backend reports each change done.
func driftFleet(t *testing.T, b *acctest.Backend, ids []int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := b.Client(t, "en")
	medium := int64(planMedium)
	renamed := "renamed"
	if _, err := c.CancelInstance(ctx, ids[0]); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	if _, err := c.RunAction(ctx, ids[1], client.ActionRequest{Action: client.ActionPowerOff}); err != nil {
		t.Fatalf("power off: %v", err)
	}
	if _, err := c.RunAction(ctx, ids[2], client.ActionRequest{Action: client.ActionResize, ServerID: &medium}); err != nil {
		t.Fatalf("resize: %v", err)
	}
	if _, err := c.UpdateInstance(ctx, ids[3], client.UpdateInstanceRequest{Name: &renamed}); err != nil {
		t.Fatalf("rename: %v", err)
	}
	b.WaitServerUntil(t, ids[1], "power off", func(in *client.Instance) bool { return in.StatusValue() == client.StatusOffline })
	b.WaitServerUntil(t, ids[2], "resize", func(in *client.Instance) bool { return in.ServerProductID == medium && in.Settled() })
}
