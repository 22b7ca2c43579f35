package snapshot_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
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

const res = "reseller_snapshot.test"

// Seeded catalogue (backend README): plan 101 (25 GB disk) is at location 11 of datacenter 1,
// whose snapshots cost 0.02 USD per GB and month, are restorable in place and outlive their
// server; a simulated image holds 40 % of the disk (10 GB for plan 101). Plan 401 is in
// datacenter 4 (identity check required), whose snapshots can only be cloned.
const (
	planSmall  = 101
	planDubai  = 401
	tmplUbuntu = 1
	tmplDebian = 3
)

// server is the configuration of the instance the snapshots are taken from.
func server(b *acctest.Backend, plan, template int) string {
	return b.ProviderConfig() + fmt.Sprintf(`
resource "reseller_instance" "src" {
  plan_id     = %d
  template_id = %d
  name        = "source"
}
`, plan, template)
}

// snapshotOf is a reseller_snapshot "test" of the source server with the given body lines.
func snapshotOf(lines ...string) string {
	return "\nresource \"reseller_snapshot\" \"test\" {\n  instance_id = reseller_instance.src.id\n  " +
		strings.Join(lines, "\n  ") + "\n}\n"
}

func testCase(t *testing.T, b *acctest.Backend, s ...resource.TestStep) resource.TestCase {
	t.Helper()
	return resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.AllOf(b.CheckNoSnapshots(t), b.CheckNoActiveInstances(t)),
		Steps:                    s,
	}
}

// idOf reads the numeric id of a resource in the state.
func idOf(t *testing.T, s *terraform.State, address string) int64 {
	t.Helper()
	rs, ok := s.RootModule().Resources[address]
	if !ok {
		t.Fatalf("%s not in the state", address)
	}
	id, err := strconv.ParseInt(rs.Primary.Attributes["id"], 10, 64)
	if err != nil {
		t.Fatalf("%s.id %q: %v", address, rs.Primary.Attributes["id"], err)
	}
	return id
}

// snapshotOfState reads the snapshot the state points at from the backend.
func snapshotOfState(t *testing.T, b *acctest.Backend, s *terraform.State) *client.Snapshot {
	t.Helper()
	id := idOf(t, s, res)
	snap, err := b.Client(t, "en").GetSnapshot(context.Background(), id)
	if err != nil {
		t.Fatalf("reading snapshot %d from the backend: %v", id, err)
	}
	return snap
}

// TestAccSnapshot_basic takes a snapshot, imports it, renames it, changes and clears its note,
// and destroys it; the backend is asked at each step.
func TestAccSnapshot_basic(t *testing.T) {
	b := acctest.StartBackend(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, testCase(t, b,
		resource.TestStep{
			Config: server(b, planSmall, tmplUbuntu) + snapshotOf(`name = "before upgrade"`, `note = "first"`),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "id", knownvalue.NotNull()),
				acctest.Check(res, "status", knownvalue.StringExact(client.SnapshotAvailable)),
				acctest.Check(res, "name", knownvalue.StringExact("before upgrade")),
				acctest.Check(res, "note", knownvalue.StringExact("first")),
				acctest.Check(res, "size_gb", knownvalue.Float64Exact(10)),
				acctest.Check(res, "price", knownvalue.Float64Exact(0.000274)),
				acctest.Check(res, "price_monthly", knownvalue.Float64Exact(0.20002)), // price × 730
				acctest.Check(res, "accrued", knownvalue.NotNull()),
				acctest.Check(res, "local", knownvalue.Bool(false)),
				acctest.Check(res, "restore", knownvalue.Bool(true)),
				acctest.Check(res, "features", knownvalue.ListSizeExact(0)),
				acctest.Check(res, "os_type", knownvalue.StringExact("linux")),
				acctest.Check(res, "datacenter_id", knownvalue.Int64Exact(1)),
				acctest.Check(res, "location_id", knownvalue.Int64Exact(11)),
				acctest.Check(res, "created_at", acctest.NotEmpty()),
				acctest.Check(res, "available_at", acctest.NotEmpty()),
				acctest.Check(res, "locked", knownvalue.Bool(false)),
				acctest.Check(res, "lock_reason", knownvalue.Null()),
				statecheck.CompareValuePairs(res, tfjsonpath.New("instance_id"), "reseller_instance.src", tfjsonpath.New("id"), compare.ValuesSame()),
				sameID.AddStateValue(res, tfjsonpath.New("id")),
			},
			Check: func(s *terraform.State) error {
				snap := snapshotOfState(t, b, s)
				if snap.Status != client.SnapshotAvailable || snap.Name != "before upgrade" || snap.Note == nil || *snap.Note != "first" {
					return fmt.Errorf("backend snapshot: got %s %q note %v, want available, before upgrade, first", snap.Status, snap.Name, snap.Note)
				}
				return nil
			},
		},
		resource.TestStep{
			ResourceName:      res,
			ImportState:       true,
			ImportStateVerify: true,
			// accrued grows every hour on its own.
			ImportStateVerifyIgnore: []string{"accrued"},
		},
		resource.TestStep{
			Config: server(b, planSmall, tmplUbuntu) + snapshotOf(`name = "renamed"`, `note = "second"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
				plancheck.ExpectResourceAction("reseller_instance.src", plancheck.ResourceActionNoop),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "name", knownvalue.StringExact("renamed")),
				acctest.Check(res, "note", knownvalue.StringExact("second")),
				acctest.Check(res, "status", knownvalue.StringExact(client.SnapshotAvailable)),
				sameID.AddStateValue(res, tfjsonpath.New("id")),
			},
			Check: func(s *terraform.State) error {
				if snap := snapshotOfState(t, b, s); snap.Name != "renamed" || snap.Note == nil || *snap.Note != "second" {
					return fmt.Errorf("backend snapshot: got %q note %v, want renamed, second", snap.Name, snap.Note)
				}
				return nil
			},
		},
		resource.TestStep{
			// Removing the note clears it; removing the name keeps the current one.
			Config: server(b, planSmall, tmplUbuntu) + snapshotOf(),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "name", knownvalue.StringExact("renamed")),
				acctest.Check(res, "note", knownvalue.Null()),
				sameID.AddStateValue(res, tfjsonpath.New("id")),
			},
			Check: func(s *terraform.State) error {
				if snap := snapshotOfState(t, b, s); snap.Note != nil && *snap.Note != "" {
					return fmt.Errorf("backend note: got %q, want none", *snap.Note)
				}
				return nil
			},
		},
	))
}

// TestAccSnapshot_defaultName: without name the API names the snapshot after the server and the
// time, and the next plan is empty.
func TestAccSnapshot_defaultName(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	resource.ParallelTest(t, testCase(t, b, resource.TestStep{
		Config:            server(b, planSmall, tmplUbuntu) + snapshotOf(),
		ConfigStateChecks: []statecheck.StateCheck{acctest.Check(res, "name", knownvalue.StringRegexp(regexp.MustCompile(`^source \d{4}-`)))},
	}))
}

// TestAccSnapshot_drift: a snapshot deleted behind Terraform's back is planned for creation and
// taken again.
func TestAccSnapshot_drift(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	c := b.Client(t, "en")
	config := server(b, planSmall, tmplUbuntu) + snapshotOf(`name = "drift"`)
	var id int64
	newID := statecheck.CompareValue(compare.ValuesDiffer())
	resource.ParallelTest(t, testCase(t, b,
		resource.TestStep{
			Config:            config,
			ConfigStateChecks: []statecheck.StateCheck{newID.AddStateValue(res, tfjsonpath.New("id"))},
			Check: func(s *terraform.State) error {
				id = idOf(t, s, res)
				return nil
			},
		},
		resource.TestStep{
			PreConfig: func() {
				if _, err := c.DeleteSnapshot(context.Background(), id); err != nil {
					t.Fatalf("deleting snapshot %d behind Terraform's back: %v", id, err)
				}
			},
			Config:             config,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		},
		resource.TestStep{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "status", knownvalue.StringExact(client.SnapshotAvailable)),
				newID.AddStateValue(res, tfjsonpath.New("id")),
			},
		},
	))
}

// TestAccSnapshot_failed: an image the datacenter cannot make fails the create with an error
// saying so, and nothing is left in the state; the failed snapshot is final and not billed.
func TestAccSnapshot_failed(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	failRate := func(rate float64) func() {
		return func() {
			if err := b.Server.SetFailRate(t.Context(), rate); err != nil {
				t.Fatalf("setting the fail rate to %v: %v", rate, err)
			}
		}
	}
	resource.ParallelTest(t, testCase(t, b,
		resource.TestStep{Config: server(b, planSmall, tmplUbuntu)},
		resource.TestStep{
			PreConfig:   failRate(1),
			Config:      server(b, planSmall, tmplUbuntu) + snapshotOf(`name = "doomed"`),
			ExpectError: acctest.ErrorRegexp(`Snapshot failed.*could not make the image of snapshot \d+.*Nothing is left in the state`),
		},
		resource.TestStep{
			PreConfig: failRate(0),
			Config:    server(b, planSmall, tmplUbuntu),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectEmptyPlan(), // the failed snapshot is not in the state
			}},
			Check: func(*terraform.State) error {
				all, err := b.Client(t, "en").ListSnapshots(context.Background(), true)
				if err != nil {
					return err
				}
				if len(all) != 1 || all[0].Status != client.SnapshotFailed || all[0].Name != "doomed" {
					return fmt.Errorf("backend snapshots: got %+v, want one, failed", all)
				}
				if all[0].PaidAmount != nil && *all[0].PaidAmount != 0 {
					return fmt.Errorf("failed snapshot paid_amount: got %v, want 0", *all[0].PaidAmount)
				}
				return nil
			},
		},
	))
}

// TestAccSnapshot_invalidInput: name, note and instance_id are checked at plan time, and nothing
// is created.
func TestAccSnapshot_invalidInput(t *testing.T) {
	b := acctest.StartBackend(t)
	body := func(lines ...string) string {
		return b.ProviderConfig() + "\nresource \"reseller_snapshot\" \"test\" {\n  " + strings.Join(lines, "\n  ") + "\n}\n"
	}
	tests := []struct {
		config, want string
	}{
		{body(`instance_id = 1`, `name = "`+strings.Repeat("n", 65)+`"`), `name.*character count must be between 1 and 64, got: 65`},
		{body(`instance_id = 1`, `name = ""`), `name.*character count must be between 1 and 64, got: 0`},
		{body(`instance_id = 1`, `note = "`+strings.Repeat("n", 513)+`"`), `note.*character count must be between 1 and 512, got: 513`},
		{body(`instance_id = 0`), `instance_id.*must be at least 1`},
		{body(`name = "x"`), `"instance_id" is required`},
	}
	var s []resource.TestStep
	for _, tc := range tests {
		s = append(s, resource.TestStep{Config: tc.config, PlanOnly: true, ExpectError: acctest.ErrorRegexp(tc.want)})
	}
	resource.ParallelTest(t, testCase(t, b, s...))
}

// TestAccSnapshot_instanceNotFound: a snapshot of a server that is not the account's is refused
// with an error on instance_id.
func TestAccSnapshot_instanceNotFound(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	resource.ParallelTest(t, testCase(t, b, resource.TestStep{
		Config:      b.ProviderConfig() + "\nresource \"reseller_snapshot\" \"test\" {\n  instance_id = 999\n}\n",
		ExpectError: acctest.ErrorRegexp(`Instance not found.*Instance 999 does not exist`),
	}))
}

// TestAccSnapshot_createTimeout: a create cut short by its timeout fails and keeps the snapshot
// in the state, tainted; the next apply deletes it and takes a new one.
func TestAccSnapshot_createTimeout(t *testing.T) {
	b := acctest.StartBackend(t, acctest.WithSnapshotDelay(4*time.Second))
	config := func(timeout string) string {
		return server(b, planSmall, tmplUbuntu) + snapshotOf(fmt.Sprintf("timeouts {\n    create = %q\n  }", timeout))
	}
	resource.ParallelTest(t, testCase(t, b,
		resource.TestStep{
			Config:      config("1s"),
			ExpectError: acctest.ErrorRegexp(`Snapshot not available yet.*timed out.*kept in the state.*tainted`),
		},
		resource.TestStep{
			Config: config("2m"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{acctest.Check(res, "status", knownvalue.StringExact(client.SnapshotAvailable))},
			Check: func(*terraform.State) error {
				all, err := b.Client(t, "en").ListSnapshots(context.Background(), true)
				if err != nil {
					return err
				}
				if len(all) != 2 || all[0].Status != client.SnapshotAvailable || all[1].Status != client.SnapshotDeleted {
					return fmt.Errorf("backend snapshots: got %+v, want the new one available and the cut-short one deleted", all)
				}
				return nil
			},
		},
	))
}
