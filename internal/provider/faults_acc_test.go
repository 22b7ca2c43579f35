package provider_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// fleetSize is how many servers the fault tests apply at once.
const fleetSize = 10

// faultyProviderConfig is a provider block that reaches b through proxy, with a retry budget that
// outlasts a run of faults (at a 20 % fault rate, eleven faults in a row are about 2 in 10⁸),
// paced at the backend's own rate-limit scale like acctest's ProviderConfig.
func faultyProviderConfig(proxy *acctest.FaultProxy, b *acctest.Backend) string {
	return fmt.Sprintf(`
provider "reseller" {
  endpoint         = %q
  api_key          = %q
  max_retries      = 10
  rate_limit_scale = %g
}
`, proxy.URL, b.APIKey, b.RateLimitScale)
}

// fleetConfig is fleetSize servers named with suffix and snapshots of the first snapshots of them.
func fleetConfig(suffix string, snapshots int) string {
	return fmt.Sprintf(`
resource "reseller_instance" "fleet" {
  count       = %d
  plan_id     = 101
  template_id = 1
  name        = "fleet-${count.index}%s"
}

resource "reseller_snapshot" "fleet" {
  count       = %d
  instance_id = reseller_instance.fleet[count.index].id
}
`, fleetSize, suffix, snapshots)
}

func startFleetBackend(t *testing.T, opts ...acctest.Option) *acctest.Backend {
	t.Helper()
	opts = append([]acctest.Option{acctest.WithBalance(1000), acctest.WithLimits(fleetSize, fleetSize)}, opts...)
	return acctest.StartBackend(t, opts...)
}

// TestAccProvider_faults puts a proxy answering 20 % of requests with 429, 502, 503 or a reset
// after the backend processed the request between Terraform and the backend: creating ten
// servers, renaming them, snapshotting three and destroying everything still ends with ten
// orders, one snapshot per resource, a state that matches the backend and nothing left behind.
func TestAccProvider_faults(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := startFleetBackend(t)
	proxy := acctest.StartFaultProxy(t, b, acctest.RandomFaults(0.2))
	provider := faultyProviderConfig(proxy, b)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.AllOf(b.CheckNoSnapshots(t), b.CheckNoActiveInstances(t)),
		Steps: []resource.TestStep{
			{Config: provider + fleetConfig("", 0), Check: fleetMatches(t, b, "", 0)},
			{Config: provider + fleetConfig("-renamed", 3), Check: fleetMatches(t, b, "-renamed", 3)},
		},
	})
	injected := proxy.Injected()
	t.Logf("faults injected: %v", injected)
	for _, f := range []acctest.Fault{acctest.FaultRateLimited, acctest.FaultBadGateway, acctest.FaultUnavailable, acctest.FaultReset} {
		if injected[f] == 0 {
			t.Errorf("no %s fault was injected; the test did not exercise it", f)
		}
	}
}

// TestAccProvider_backendRestart closes the backend in the middle of an apply of ten servers and
// starts it again on the same database and address: the apply converges, and the account has
// exactly ten orders.
func TestAccProvider_backendRestart(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := startFleetBackend(t, acctest.WithDelays(3*time.Second, 500*time.Millisecond))
	proxy := acctest.StartFaultProxy(t, b, acctest.RandomFaults(0))
	config := faultyProviderConfig(proxy, b) + fleetConfig("", 0)
	restarted := make(chan error, 1)
	var restarting sync.WaitGroup
	t.Cleanup(restarting.Wait) // runs before the backend's own cleanup: no restart after it stops
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.AllOf(b.CheckNoSnapshots(t), b.CheckNoActiveInstances(t)),
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					restarting.Go(func() { restarted <- restartAfterOrders(t, b, fleetSize/2) })
				},
				Config: config,
				Check: func(*terraform.State) error {
					if err := <-restarted; err != nil {
						return err
					}
					return nil
				},
			},
			{Config: config, Check: fleetMatches(t, b, "", 0)},
		},
	})
}

// restartAfterOrders waits (at most a minute) until the account has n orders, then restarts the
// backend.
func restartAfterOrders(t *testing.T, b *acctest.Backend, n int) error {
	c := b.Client(t, "en")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		orders, err := c.ListOrders(ctx)
		if err == nil && len(orders) >= n {
			return b.Restart(t)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %d orders to restart the backend: %w", n, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// fleetMatches checks the backend against the state: exactly fleetSize orders; the active
// instances are those in the state, named fleet-<i><suffix>; the account's snapshots, whatever
// their status, are exactly the snapshots in the state.
func fleetMatches(t *testing.T, b *acctest.Backend, suffix string, snapshots int) func(*terraform.State) error {
	return func(s *terraform.State) error {
		c := b.Client(t, "en")
		ctx := context.Background()
		if orders := b.Orders(t); len(orders) != fleetSize {
			return fmt.Errorf("orders: got %d, want %d", len(orders), fleetSize)
		}
		instances, err := c.ListInstances(ctx, true)
		if err != nil {
			return fmt.Errorf("listing instances: %w", err)
		}
		if err := instancesMatch(s, instances, suffix); err != nil {
			return err
		}
		snaps, err := c.ListSnapshots(ctx, true)
		if err != nil {
			return fmt.Errorf("listing snapshots: %w", err)
		}
		return snapshotsMatch(s, snaps, snapshots)
	}
}

func instancesMatch(s *terraform.State, instances []client.Instance, suffix string) error {
	if len(instances) != fleetSize {
		return fmt.Errorf("active instances: got %d, want %d", len(instances), fleetSize)
	}
	for i := range fleetSize {
		id, err := stateID(s, fmt.Sprintf("reseller_instance.fleet.%d", i))
		if err != nil {
			return err
		}
		at := slices.IndexFunc(instances, func(in client.Instance) bool { return in.ID == id })
		if at < 0 {
			return fmt.Errorf("instance %d of the state is not active at the backend", id)
		}
		if want := fmt.Sprintf("fleet-%d%s", i, suffix); instances[at].Name != want {
			return fmt.Errorf("instance %d: backend name %q, want %q", id, instances[at].Name, want)
		}
	}
	return nil
}

func snapshotsMatch(s *terraform.State, snaps []client.Snapshot, want int) error {
	if len(snaps) != want {
		return fmt.Errorf("snapshots of any status: got %d, want %d (one per resource)", len(snaps), want)
	}
	for i := range want {
		id, err := stateID(s, fmt.Sprintf("reseller_snapshot.fleet.%d", i))
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(snaps, func(sn client.Snapshot) bool { return sn.ID == id && !sn.Ended() }) {
			return fmt.Errorf("snapshot %d of the state is not active at the backend", id)
		}
	}
	return nil
}

func stateID(s *terraform.State, address string) (int64, error) {
	rs, ok := s.RootModule().Resources[address]
	if !ok {
		return 0, fmt.Errorf("%s is not in the state", address)
	}
	return strconv.ParseInt(rs.Primary.ID, 10, 64)
}
