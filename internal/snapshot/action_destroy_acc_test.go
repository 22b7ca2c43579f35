package snapshot_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// planLocal is plan 201 (Frankfurt, datacenter 2), whose snapshots are local: restore points on
// the server's disk that expire with it (backend README, Local snapshots). planSmall's
// datacenter 1 keeps snapshots apart from the server.
const planLocal = 201

// guardedFleet is the provider and reseller_instance.fleet, one server per name (count; dropping
// the last name destroys its server), each of which runs reseller_snapshot_create on itself
// (caller.id) before Terraform destroys it, with the given on_failure mode ("" leaves
// Terraform's default, halt). (for_each works the same on Terraform 1.16; count is used because
// terraform-plugin-testing's state checks cannot read for_each addresses.)
func guardedFleet(b *acctest.Backend, plan int, onFailure string, names ...string) string {
	quoted := make([]string, 0, len(names))
	for _, n := range names {
		quoted = append(quoted, fmt.Sprintf("%q", n))
	}
	mode := ""
	if onFailure != "" {
		mode = "\n      on_failure = " + onFailure
	}
	return b.ProviderConfig() + fmt.Sprintf(`
action "reseller_snapshot_create" "last" {
  config {
    instance_id = caller.id
  }
}

locals {
  names = [%s]
}

resource "reseller_instance" "fleet" {
  count       = length(local.names)
  plan_id     = %d
  template_id = %d
  name        = local.names[count.index]
  lifecycle {
    action_trigger {
      events  = [before_destroy]
      actions = [action.reseller_snapshot_create.last]%s
    }
  }
}
`, strings.Join(quoted, ", "), plan, tmplUbuntu, mode)
}

// destroyActionCase is a test case of Terraform 1.16's destroy actions (skipped below 1.16,
// and on OpenTofu) whose CheckDestroy is check.
func destroyActionCase(t *testing.T, check func(*terraform.State) error, s ...resource.TestStep) resource.TestCase {
	t.Helper()
	return resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{acctest.SkipBelow1_16(t)},
		CheckDestroy:             check,
		Steps:                    s,
	}
}

// snapshotsOf lists the account's snapshots (ended ones too) by the name of their server.
func snapshotsOf(t *testing.T, b *acctest.Backend) (map[string][]client.Snapshot, error) {
	t.Helper()
	list, err := b.Client(t, "en").ListSnapshots(context.Background(), true)
	if err != nil {
		return nil, fmt.Errorf("listing the backend's snapshots: %w", err)
	}
	out := map[string][]client.Snapshot{}
	for _, s := range list {
		if s.SourceName != nil {
			out[*s.SourceName] = append(out[*s.SourceName], s)
		}
	}
	return out, nil
}

// TestAccSnapshotAction_beforeDestroy_terraform116: `terraform destroy` of servers (count) on a plan whose
// snapshots outlive the server takes one snapshot of each before deleting it, and each is left
// `available`, named after its server (source_name), no longer tied to an instance.
func TestAccSnapshotAction_beforeDestroy_terraform116(t *testing.T) {
	b := acctest.StartBackend(t)
	names := []string{"web-a", "web-b"}
	check := func(*terraform.State) error {
		if err := b.CheckNoActiveInstances(t)(nil); err != nil {
			return err
		}
		byServer, err := snapshotsOf(t, b)
		if err != nil {
			return err
		}
		for _, name := range names {
			snaps := byServer[name]
			if len(snaps) != 1 {
				return fmt.Errorf("server %s: got %d snapshots, want the one taken before its destroy", name, len(snaps))
			}
			s := snaps[0]
			if s.Status != client.SnapshotAvailable || s.Local || s.InstanceID != nil {
				return fmt.Errorf("snapshot %d of %s: status %s, local %v, instance_id %v; want available, not local, "+
					"instance_id null (its server is gone)", s.ID, name, s.Status, s.Local, s.InstanceID)
			}
		}
		return nil
	}
	resource.ParallelTest(t, destroyActionCase(t, check,
		resource.TestStep{
			Config: guardedFleet(b, planSmall, "", names...),
			Check: func(*terraform.State) error {
				if byServer, err := snapshotsOf(t, b); err != nil || len(byServer) != 0 {
					return fmt.Errorf("snapshots before any destroy: got %v (%v), want none", byServer, err)
				}
				return nil
			},
		},
	))
}

// TestAccSnapshotAction_beforeDestroyLocal_terraform116: on a plan whose snapshots are local the action still
// takes its snapshot before the destroy, and its result warns that the snapshot is deleted with
// the server; after the destroy the snapshot is indeed `expired`. The warning is in the CLI's
// output, so the CLI is driven directly.
func TestAccSnapshotAction_beforeDestroyLocal_terraform116(t *testing.T) {
	cli := acctest.NewCLI1_16(t)
	b := acctest.StartBackend(t)
	cli.Write("main.tf", acctest.ProviderRequirement()+guardedFleet(b, planLocal, "", "frankfurt"))
	cli.Run([]string{"apply", "-input=false", "-auto-approve"})
	out, _ := cli.Run([]string{"destroy", "-input=false", "-auto-approve"})

	byServer, err := snapshotsOf(t, b)
	if err != nil {
		t.Fatal(err)
	}
	snaps := byServer["frankfurt"]
	if len(snaps) != 1 {
		t.Fatalf("got %d snapshots of frankfurt, want the one taken before its destroy:\n%s", len(snaps), out)
	}
	s := snaps[0]
	if !s.Local || s.Status != client.SnapshotExpired {
		t.Errorf("snapshot %d: local %v, status %s; want local and expired with its server", s.ID, s.Local, s.Status)
	}
	want := regexp.MustCompile(fmt.Sprintf(`(?s)Warning: Snapshot %d is local: deleted with its server.*`+
		`it is\s+deleted\s+with\s+its\s+server;\s+it\s+does\s+not\s+survive\s+a\s+destroy`, s.ID))
	if !want.MatchString(out) {
		t.Errorf("the destroy's output does not carry the action's warning %q:\n%s", want, out)
	}
	if err := b.CheckNoActiveInstances(t)(nil); err != nil {
		t.Error(err)
	}
}

// failSnapshots makes every snapshot image fail from now on (the simulated datacenter's fail
// rate; server deletes never reach the datacenter, so they still succeed).
func failSnapshots(t *testing.T, b *acctest.Backend, rate float64) {
	t.Helper()
	if err := b.Server.SetFailRate(context.Background(), rate); err != nil {
		t.Fatalf("setting the fail rate: %v", err)
	}
}

// activeNames returns the sorted names of the account's active servers.
func activeNames(t *testing.T, b *acctest.Backend) []string {
	t.Helper()
	list, err := b.Client(t, "en").ListInstances(context.Background(), true)
	if err != nil {
		t.Fatalf("listing the backend's instances: %v", err)
	}
	var names []string
	for _, in := range list {
		names = append(names, in.Name)
	}
	slices.Sort(names)
	return names
}

func expectActive(t *testing.T, b *acctest.Backend, want ...string) func(*terraform.State) error {
	return func(*terraform.State) error {
		if got := activeNames(t, b); !slices.Equal(got, want) {
			return fmt.Errorf("active servers: got %v, want %v", got, want)
		}
		return nil
	}
}

// TestAccSnapshotAction_onFailureContinue_terraform116: with on_failure = continue a snapshot that fails does
// not stop the apply: the server leaving the configuration (the fleet's count) is destroyed all
// the same.
func TestAccSnapshotAction_onFailureContinue_terraform116(t *testing.T) {
	b := acctest.StartBackend(t)
	resource.ParallelTest(t, destroyActionCase(t, b.CheckNoActiveInstances(t),
		resource.TestStep{Config: guardedFleet(b, planSmall, "continue", "keep", "drop")},
		resource.TestStep{
			PreConfig: func() { failSnapshots(t, b, 1) },
			Config:    guardedFleet(b, planSmall, "continue", "keep"),
			Check: acctest.AllOf(expectActive(t, b, "keep"), func(*terraform.State) error {
				byServer, err := snapshotsOf(t, b)
				if err != nil {
					return err
				}
				if s := byServer["drop"]; len(s) != 1 || s[0].Status != client.SnapshotFailed {
					return fmt.Errorf("snapshots of drop: got %+v, want one failed", s)
				}
				return nil
			}),
		},
	))
}

// TestAccSnapshotAction_onFailureHalt_terraform116: with on_failure = halt (Terraform's default, written out
// here) a snapshot that fails stops the apply with the action's diagnostic, and the server
// whose snapshot failed is not destroyed; once snapshots work again the same apply goes through.
func TestAccSnapshotAction_onFailureHalt_terraform116(t *testing.T) {
	b := acctest.StartBackend(t)
	resource.ParallelTest(t, destroyActionCase(t, b.CheckNoActiveInstances(t),
		resource.TestStep{Config: guardedFleet(b, planSmall, "halt", "keep", "drop")},
		resource.TestStep{
			PreConfig:   func() { failSnapshots(t, b, 1) },
			Config:      guardedFleet(b, planSmall, "halt", "keep"),
			ExpectError: acctest.ErrorRegexp(`Snapshot \d+ of instance \d+ is not available.*could not make the image`),
		},
		resource.TestStep{
			PreConfig: func() {
				if err := expectActive(t, b, "drop", "keep")(nil); err != nil {
					t.Fatalf("after the halted apply: %v", err)
				}
				failSnapshots(t, b, 0)
			},
			Config: guardedFleet(b, planSmall, "halt", "keep"),
			Check:  expectActive(t, b, "keep"),
		},
	))
}
