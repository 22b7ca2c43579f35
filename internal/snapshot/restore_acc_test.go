package snapshot_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

const restoreRes = "reseller_snapshot_restore.test"

// restoreOf restores the snapshot "test" with the given trigger.
func restoreOf(trigger string) string {
	return fmt.Sprintf(`
resource "reseller_snapshot_restore" "test" {
  snapshot_id = reseller_snapshot.test.id
  triggers = {
    run = %q
  }
}
`, trigger)
}

// TestAccSnapshotRestore_basic: a restore puts the snapshot's disk and login back onto the server
// (a password reset made after the snapshot is undone), leaves the server off, and the snapshot
// available; changing the trigger restores again. Destroying the restore only forgets it.
func TestAccSnapshotRestore_basic(t *testing.T) {
	b := acctest.StartBackend(t)
	c := b.Client(t, "en")
	base := server(b, planSmall, tmplUbuntu) + snapshotOf(`name = "golden"`)
	var instanceID int64
	var snapshotPassword string
	instance := func(s *terraform.State) *client.Instance {
		in, err := c.GetInstance(context.Background(), idOf(t, s, "reseller_instance.src"), false)
		if err != nil {
			t.Fatalf("reading the instance: %v", err)
		}
		return in
	}
	restored := func(s *terraform.State) error {
		in := instance(s)
		if in.StatusValue() != client.StatusOffline {
			return fmt.Errorf("instance status after the restore: got %q, want offline", in.StatusValue())
		}
		if in.Credentials == nil || in.Credentials.Password == nil || *in.Credentials.Password != snapshotPassword {
			return fmt.Errorf("instance password after the restore: got another, want the snapshot's")
		}
		if snap := snapshotOfState(t, b, s); snap.Status != client.SnapshotAvailable {
			return fmt.Errorf("snapshot status after the restore: got %q, want available", snap.Status)
		}
		return nil
	}
	resource.ParallelTest(t, testCase(t, b,
		resource.TestStep{
			Config: base,
			Check: func(s *terraform.State) error {
				instanceID = idOf(t, s, "reseller_instance.src")
				snapshotPassword = s.RootModule().Resources["reseller_instance.src"].Primary.Attributes["password"]
				// Changed after the snapshot, behind Terraform's back: the restore undoes it.
				res, err := c.RunAction(context.Background(), instanceID, client.ActionRequest{Action: client.ActionResetPassword})
				if err != nil {
					return fmt.Errorf("resetting the password: %w", err)
				}
				if res.Password == nil || *res.Password == snapshotPassword {
					return fmt.Errorf("reset_password gave no new password")
				}
				return nil
			},
		},
		resource.TestStep{
			Config: base + restoreOf("1"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(restoreRes, tfjsonpath.New("id"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue(restoreRes, tfjsonpath.New("restored_at"), knownvalue.NotNull()),
				statecheck.CompareValuePairs(restoreRes, tfjsonpath.New("instance_id"), "reseller_instance.src", tfjsonpath.New("id"), compareSame),
			},
			Check: restored,
			// The server is off after the restore, so the instance plans power "on" again.
			ExpectNonEmptyPlan: true,
		},
		resource.TestStep{
			// Switch the server on again and change the password once more; a new trigger restores again.
			PreConfig: func() {
				ctx := context.Background()
				if _, err := c.RunAction(ctx, instanceID, client.ActionRequest{Action: client.ActionPowerOn}); err != nil {
					t.Fatalf("power on: %v", err)
				}
				if _, err := c.RunAction(ctx, instanceID, client.ActionRequest{Action: client.ActionResetPassword}); err != nil {
					t.Fatalf("reset_password: %v", err)
				}
			},
			Config: base + restoreOf("2"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(restoreRes, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			Check:              restored,
			ExpectNonEmptyPlan: true,
		},
		resource.TestStep{
			// Without the restore: nothing happens to the server, which the instance switches on.
			Config: base,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(restoreRes, plancheck.ResourceActionDestroy),
				plancheck.ExpectResourceAction("reseller_instance.src", plancheck.ResourceActionUpdate),
			}},
			Check: func(s *terraform.State) error {
				if in := instance(s); in.StatusValue() != client.StatusOnline {
					return fmt.Errorf("instance status: got %q, want online", in.StatusValue())
				}
				return nil
			},
		},
	))
}

// TestAccSnapshotRestore_snapshotGone: a restore whose snapshot was deleted behind Terraform's
// back is removed from the state, so the next plan restores again (here: a new snapshot).
func TestAccSnapshotRestore_snapshotGone(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	config := server(b, planSmall, tmplUbuntu) + snapshotOf() + restoreOf("1")
	var snapshotID int64
	resource.ParallelTest(t, testCase(t, b,
		resource.TestStep{
			Config: config,
			Check: func(s *terraform.State) error {
				snapshotID = idOf(t, s, res)
				return nil
			},
			ExpectNonEmptyPlan: true, // the server is off after the restore
		},
		resource.TestStep{
			PreConfig: func() {
				if _, err := b.Client(t, "en").DeleteSnapshot(context.Background(), snapshotID); err != nil {
					t.Fatalf("deleting snapshot %d: %v", snapshotID, err)
				}
			},
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionCreate),
				plancheck.ExpectResourceAction(restoreRes, plancheck.ResourceActionCreate),
			}},
			ExpectNonEmptyPlan: true,
		},
	))
}

// TestAccSnapshotRestore_unsupported: where the datacenter offers only cloning (datacenter 4), the
// snapshot says restore = false and a restore fails with advice to build a server from it.
func TestAccSnapshotRestore_unsupported(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t, acctest.WithKYCVerified())
	base := server(b, planDubai, tmplUbuntu) + snapshotOf()
	resource.ParallelTest(t, testCase(t, b,
		resource.TestStep{
			Config:            base,
			ConfigStateChecks: []statecheck.StateCheck{acctest.Check(res, "restore", knownvalue.Bool(false)), acctest.Check(res, "datacenter_id", knownvalue.Int64Exact(4))},
		},
		resource.TestStep{
			Config:      base + restoreOf("1"),
			ExpectError: acctest.ErrorRegexp(`Unable to restore snapshot \d+.*restore_unsupported.*reseller_instance with snapshot_id`),
		},
	))
}

// TestAccSnapshotRestore_locked: a restore of a snapshot locked for an unpaid charge fails on
// snapshot_id with what to do about it (top up the wallet; the snapshot unlocks once the debt is
// paid), leaves the server as it was and nothing in the state; once the snapshot is unlocked the
// same configuration applies.
func TestAccSnapshotRestore_locked(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	c := b.Client(t, "en")
	base := server(b, planSmall, tmplUbuntu) + snapshotOf()
	var snapshotID, instanceID int64
	resource.ParallelTest(t, testCase(t, b,
		resource.TestStep{
			Config: base,
			Check: func(s *terraform.State) error {
				snapshotID, instanceID = idOf(t, s, res), idOf(t, s, "reseller_instance.src")
				return nil
			},
		},
		resource.TestStep{
			PreConfig: func() { b.LockSnapshotUnpaid(t, snapshotID) },
			Config:    base + restoreOf("1"),
			ExpectError: acctest.ErrorRegexp(`Snapshot locked.*Snapshot \d+ is locked, so it cannot be restored; its server was not changed` +
				`.*locked \(unpaid\).*Error code: snapshot_locked.*top up the wallet by at least the account's debt` +
				`.*unlocks as soon as nothing is owed; then apply again`),
		},
		resource.TestStep{
			PreConfig: func() {
				ctx := context.Background()
				snap, err := c.GetSnapshot(ctx, snapshotID)
				if err != nil || !snap.Locked || snap.Status != client.SnapshotAvailable {
					t.Fatalf("snapshot after the refused restore: %+v, %v; want available and still locked", snap, err)
				}
				in, err := c.GetInstance(ctx, instanceID, false)
				if err != nil || in.StatusValue() != client.StatusOnline {
					t.Fatalf("instance after the refused restore: %v, %v; want it online, untouched", in.StatusValue(), err)
				}
				b.UnlockSnapshot(t, snapshotID)
			},
			Config: base + restoreOf("1"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(restoreRes, plancheck.ResourceActionCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.CompareValuePairs(restoreRes, tfjsonpath.New("instance_id"), "reseller_instance.src", tfjsonpath.New("id"), compareSame),
				acctest.Check(res, "locked", knownvalue.Bool(false)),
			},
			// The server is off after the restore, so the instance plans power "on" again.
			ExpectNonEmptyPlan: true,
		},
	))
}
