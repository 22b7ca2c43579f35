package instance_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// planEurope is in datacenter 2, where snapshots of datacenter 1 cannot be built from.
const planEurope = 201

// cloneConfig is a Debian server with automatic backups, a snapshot of it, and servers of the
// given plans built from the snapshot (template_id omitted: the snapshot's OS is used).
func cloneConfig(b *acctest.Backend, clonePlans ...int) string {
	config := b.ProviderConfig() + fmt.Sprintf(`
resource "reseller_instance" "src" {
  plan_id     = %d
  template_id = %d
  features    = [%q]
}

resource "reseller_snapshot" "src" {
  instance_id = reseller_instance.src.id
}
`, planSmall, tmplDebian, featureBacks)
	for i, p := range clonePlans {
		config += fmt.Sprintf(`
resource "reseller_instance" "clone%d" {
  plan_id     = %d
  snapshot_id = reseller_snapshot.src.id
}
`, i, p)
	}
	return config
}

func cloneSteps(t *testing.T, b *acctest.Backend, s ...resource.TestStep) resource.TestCase {
	t.Helper()
	return resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.AllOf(b.CheckNoActiveInstances(t), b.CheckNoSnapshots(t)),
		Steps:                    s,
	}
}

// TestAccInstance_clone builds a second server from a snapshot of the first: it runs the
// snapshot's OS (its template), carries the snapshot's features and login. A plan of another
// datacenter is refused at plan time with an error on snapshot_id.
func TestAccInstance_clone(t *testing.T) {
	b := acctest.StartBackend(t)
	c := b.Client(t, "en")
	read := func(s *terraform.State, address string) *client.Instance {
		id := s.RootModule().Resources[address].Primary.Attributes["id"]
		var n int64
		if _, err := fmt.Sscan(id, &n); err != nil {
			t.Fatalf("%s.id %q: %v", address, id, err)
		}
		in, err := c.GetInstance(context.Background(), n, false)
		if err != nil {
			t.Fatalf("reading %s: %v", address, err)
		}
		return in
	}
	resource.ParallelTest(t, cloneSteps(t, b,
		resource.TestStep{
			Config: cloneConfig(b, planMedium),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("reseller_instance.clone0", tfjsonpath.New("template_id"), knownvalue.Int64Exact(tmplDebian)),
				statecheck.ExpectKnownValue("reseller_instance.clone0", tfjsonpath.New("status"), knownvalue.StringExact("online")),
				statecheck.ExpectKnownValue("reseller_instance.clone0", tfjsonpath.New("active_features"),
					knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(featureBacks)})),
				statecheck.ExpectKnownValue("reseller_snapshot.src", tfjsonpath.New("features"), knownvalue.ListSizeExact(1)),
				statecheck.CompareValuePairs("reseller_instance.clone0", tfjsonpath.New("password"),
					"reseller_instance.src", tfjsonpath.New("password"), compare.ValuesSame()),
				statecheck.CompareValuePairs("reseller_instance.clone0", tfjsonpath.New("datacenter_id"),
					"reseller_snapshot.src", tfjsonpath.New("datacenter_id"), compare.ValuesSame()),
			},
			Check: func(s *terraform.State) error {
				clone := read(s, "reseller_instance.clone0")
				snapAttrs := s.RootModule().Resources["reseller_snapshot.src"].Primary.Attributes
				if clone.Template == nil || clone.Template.OSType != snapAttrs["os_type"] || clone.Template.ID != tmplDebian {
					return fmt.Errorf("clone template: got %+v, want Debian (%d), OS %s like the snapshot", clone.Template, tmplDebian, snapAttrs["os_type"])
				}
				if !slices.Contains(clone.ActiveFeatures, featureBacks) || clone.ServerProductID != planMedium {
					return fmt.Errorf("clone: got plan %d features %v, want plan %d with the snapshot's backups feature %s",
						clone.ServerProductID, clone.ActiveFeatures, planMedium, featureBacks)
				}
				return nil
			},
		},
		resource.TestStep{
			Config:      cloneConfig(b, planMedium, planEurope),
			PlanOnly:    true,
			ExpectError: acctest.ErrorRegexp(`Snapshot incompatible with the plan.*plan 201 cannot be built from snapshot \d+.*datacenter 1 and the plan in datacenter 2`),
		},
	))
}

// TestAccInstance_cloneIncompatibleAtApply: when the snapshot does not exist yet at plan time,
// the same check runs during the apply, once Terraform plans the server again with the
// snapshot's id, and fails it before anything is ordered for that server.
func TestAccInstance_cloneIncompatibleAtApply(t *testing.T) {
	b := acctest.StartBackend(t)
	tc := cloneSteps(t, b, resource.TestStep{
		Config:      cloneConfig(b, planEurope),
		ExpectError: acctest.ErrorRegexp(`Snapshot incompatible with the plan.*datacenter 1 and the plan in datacenter 2`),
	})
	destroyed := tc.CheckDestroy
	tc.CheckDestroy = func(s *terraform.State) error {
		if orders := b.Orders(t); len(orders) != 1 || orders[0].Server == nil || orders[0].Server.ServerProductID != planSmall {
			return fmt.Errorf("backend orders: got %+v, want only the source server's", orders)
		}
		return destroyed(s)
	}
	resource.ParallelTest(t, tc)
}

// TestAccInstance_cloneWaitsForRestore: while the snapshot is being restored (409
// snapshot_unavailable), building a server from it waits for the restore to finish instead of
// failing.
func TestAccInstance_cloneWaitsForRestore(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t, acctest.WithDelays(200*time.Millisecond, 3*time.Second))
	c := b.Client(t, "en")
	resource.ParallelTest(t, cloneSteps(t, b,
		resource.TestStep{Config: cloneConfig(b)},
		resource.TestStep{
			PreConfig: func() {
				// Any snapshot of the account is the configuration's.
				list, err := c.ListSnapshots(context.Background(), false)
				if err != nil || len(list) != 1 {
					t.Fatalf("listing snapshots: got %d, %v, want one", len(list), err)
				}
				if _, err := c.RestoreSnapshot(context.Background(), list[0].ID); err != nil {
					t.Fatalf("restoring snapshot %d: %v", list[0].ID, err)
				}
			},
			// The restore leaves the source server off. Whether a plan sees that depends on when the
			// restore ends (before this step's refresh or during its apply), so the source's power is
			// left out of the comparison: what this test shows is the clone waiting for the restore.
			Config: strings.Replace(cloneConfig(b, planMedium), "features    = [", "lifecycle {\n    ignore_changes = [power]\n  }\n  features    = [", 1),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("reseller_instance.clone0", tfjsonpath.New("status"), knownvalue.StringExact("online")),
			},
		},
	))
}

// TestAccInstance_cloneLocked: building a server from a snapshot locked for an unpaid charge
// fails on snapshot_id with what to do about it (top up the wallet; the snapshot unlocks once the
// debt is paid), and nothing is ordered: no server in the backend, none in the state. Once the
// snapshot is unlocked the same configuration builds it.
func TestAccInstance_cloneLocked(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	var snapshotID, sourceID int64
	idOf := func(s *terraform.State, address string) int64 {
		var n int64
		if _, err := fmt.Sscan(s.RootModule().Resources[address].Primary.Attributes["id"], &n); err != nil {
			t.Fatalf("%s.id: %v", address, err)
		}
		return n
	}
	resource.ParallelTest(t, cloneSteps(t, b,
		resource.TestStep{
			Config: cloneConfig(b),
			Check: func(s *terraform.State) error {
				snapshotID, sourceID = idOf(s, "reseller_snapshot.src"), idOf(s, "reseller_instance.src")
				return nil
			},
		},
		resource.TestStep{
			PreConfig: func() { b.LockSnapshotUnpaid(t, snapshotID) },
			Config:    cloneConfig(b, planMedium),
			ExpectError: acctest.ErrorRegexp(`Snapshot locked.*Snapshot \d+ is locked, so no server can be built from it; nothing was ordered` +
				`.*locked \(unpaid\).*Error code: snapshot_locked.*top up the wallet by at least the account's debt` +
				`.*unlocks as soon as nothing is owed; then apply again`),
		},
		resource.TestStep{
			PreConfig: func() {
				if err := b.CheckActiveInstances(t, sourceID)(nil); err != nil {
					t.Fatalf("after the refused build: %v", err)
				}
				if orders := b.Orders(t); len(orders) != 1 || orders[0].Server == nil || orders[0].Server.ServerProductID != planSmall {
					t.Fatalf("backend orders after the refused build: got %+v, want only the source server's", orders)
				}
				b.UnlockSnapshot(t, snapshotID)
			},
			Config: cloneConfig(b, planMedium),
			// A create, not a replace: the refused build left nothing (not even a tainted server) in the state.
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("reseller_instance.clone0", plancheck.ResourceActionCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("reseller_instance.clone0", tfjsonpath.New("status"), knownvalue.StringExact("online")),
				statecheck.ExpectKnownValue("reseller_instance.clone0", tfjsonpath.New("template_id"), knownvalue.Int64Exact(tmplDebian)),
			},
		},
	))
}
