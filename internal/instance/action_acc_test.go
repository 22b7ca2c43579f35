package instance_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// actionSteps is steps for tests of actions, which Terraform runs from 1.14 on; OpenTofu (whose
// versions are below 1.14) has no actions, so the same check skips it.
func actionSteps(t *testing.T, b *acctest.Backend, s ...resource.TestStep) resource.TestCase {
	tc := steps(t, b, s...)
	tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)}
	return tc
}

// serverConfig is the provider and reseller_instance.test, whose power the actions change
// outside its configuration.
func serverConfig(b *acctest.Backend) string {
	return b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu),
		acctest.Attr("name", "acted-on"), "lifecycle {\n    ignore_changes = [power]\n  }")
}

// invoking is a configuration that invokes the action TYPE.test configured with the given
// arguments whenever terraform_data.trigger is created or its input (run) changes.
func invoking(actionType, run string, args ...string) string {
	body := ""
	for _, a := range args {
		body += "\n    " + a
	}
	return fmt.Sprintf(`
action %[1]q "test" {
  config {%[3]s
  }
}

resource "terraform_data" "trigger" {
  input = %[2]q
  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.%[1]s.test]
    }
  }
}
`, actionType, run, body)
}

// expectInstance is a check that the backend's instance of the state passes ok.
func expectInstance(t *testing.T, b *acctest.Backend, ok func(in *client.Instance) error) func(*terraform.State) error {
	return func(s *terraform.State) error { return ok(instanceOf(t, b, s)) }
}

func statusIs(want string) func(in *client.Instance) error {
	return func(in *client.Instance) error {
		if in.StatusValue() != want || !in.Settled() {
			return fmt.Errorf("instance %d is %s (settled %v), want %s", in.ID, in.StatusValue(), in.Settled(), want)
		}
		return nil
	}
}

// TestAccPowerAction: reseller_instance_power switches the server off, then on, and reboots it;
// each time the server has settled in the status asked for when the apply ends.
func TestAccPowerAction(t *testing.T) {
	b := acctest.StartBackend(t)
	power := func(state string) string {
		return serverConfig(b) + invoking("reseller_instance_power", state,
			"instance_id = reseller_instance.test.id", acctest.Attr("state", state))
	}
	resource.ParallelTest(t, actionSteps(t, b,
		resource.TestStep{Config: power("off"), Check: expectInstance(t, b, statusIs(client.StatusOffline))},
		resource.TestStep{Config: power("on"), Check: expectInstance(t, b, statusIs(client.StatusOnline))},
		resource.TestStep{Config: power("reboot"), Check: expectInstance(t, b, statusIs(client.StatusOnline))},
	))
}

// TestAccResetPasswordAction: the action gives the server a new password, which the next
// refresh brings into the state.
func TestAccResetPasswordAction(t *testing.T) {
	b := acctest.StartBackend(t)
	var before string
	resource.ParallelTest(t, actionSteps(t, b,
		resource.TestStep{
			Config: serverConfig(b),
			Check: expectInstance(t, b, func(in *client.Instance) error {
				before = passwordOf(in)
				return nil
			}),
		},
		resource.TestStep{
			Config: serverConfig(b) + invoking("reseller_instance_reset_password", "1", "instance_id = reseller_instance.test.id"),
			Check: expectInstance(t, b, func(in *client.Instance) error {
				if after := passwordOf(in); after == "" || after == before {
					return fmt.Errorf("password of instance %d: %q after the reset, %q before", in.ID, after, before)
				}
				return nil
			}),
		},
	))
}

func passwordOf(in *client.Instance) string {
	if in.Credentials == nil || in.Credentials.Password == nil {
		return ""
	}
	return *in.Credentials.Password
}

// TestAccPowerAction_locked: on a server locked for debt the action fails with the lock advice
// and the server stays as it was.
func TestAccPowerAction_locked(t *testing.T) {
	b := acctest.StartBackend(t)
	var id int64
	resource.ParallelTest(t, actionSteps(t, b,
		resource.TestStep{
			Config: serverConfig(b),
			Check: expectInstance(t, b, func(in *client.Instance) error {
				id = in.ID
				return nil
			}),
		},
		resource.TestStep{
			PreConfig: func() {
				if err := b.Server.LockInstance(context.Background(), id, "debt"); err != nil {
					t.Fatalf("locking instance %d: %v", id, err)
				}
			},
			Config: serverConfig(b) + invoking("reseller_instance_power", "off",
				"instance_id = reseller_instance.test.id", acctest.Attr("state", "off")),
			ExpectError: acctest.ErrorRegexp(`Instance is locked.*reason: debt.*Top up the wallet`),
		},
		resource.TestStep{
			PreConfig: func() {
				in, err := b.Client(t, "en").GetInstance(context.Background(), id, false)
				if err != nil {
					t.Fatalf("reading instance %d: %v", id, err)
				}
				if err := statusIs(client.StatusOnline)(in); err != nil {
					t.Fatalf("the refused action changed the server: %v", err)
				}
				if err := b.Server.UnlockInstance(context.Background(), id); err != nil {
					t.Fatalf("unlocking instance %d: %v", id, err)
				}
			},
			Config: serverConfig(b),
		},
	))
}

// TestAccSnapshotAction_beforeUpdate: a server whose lifecycle runs reseller_snapshot_create
// before every update keeps a snapshot of its old disk when a new template rebuilds it.
func TestAccSnapshotAction_beforeUpdate(t *testing.T) {
	b := acctest.StartBackend(t)
	server := func(template int) string {
		return b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", template),
			acctest.Attr("name", "guarded"), `lifecycle {
    action_trigger {
      events  = [before_update]
      actions = [action.reseller_snapshot_create.backup]
    }
  }`) + `
data "reseller_instances" "all" {}

action "reseller_snapshot_create" "backup" {
  config {
    instance_id = data.reseller_instances.all.instances[0].id
    name        = "before-update"
  }
}
`
	}
	resource.ParallelTest(t, actionSteps(t, b,
		resource.TestStep{Config: b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall),
			acctest.Attr("template_id", tmplUbuntu), acctest.Attr("name", "guarded"))},
		resource.TestStep{
			Config: server(tmplDebian),
			Check: expectInstance(t, b, func(in *client.Instance) error {
				snaps, err := b.Client(t, "en").ListSnapshots(context.Background(), false)
				if err != nil {
					return err
				}
				if len(snaps) != 1 {
					return fmt.Errorf("want one snapshot, got %d", len(snaps))
				}
				s := snaps[0]
				if s.Name != "before-update" || s.Status != client.SnapshotAvailable || s.TemplateID == nil || *s.TemplateID != tmplUbuntu {
					return fmt.Errorf("snapshot %d: name %q, status %s, template %v; want an available before-update of template %d",
						s.ID, s.Name, s.Status, s.TemplateID, tmplUbuntu)
				}
				if in.TemplateID == nil || *in.TemplateID != tmplDebian {
					return fmt.Errorf("instance %d was not rebuilt: template %v", in.ID, in.TemplateID)
				}
				return nil
			}),
		},
	))
}
