package instance_test

import (
	"context"
	"fmt"
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
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

const res = "reseller_instance.test"

// Seeded catalogue (backend README): plans 101 → 102 → 103 resize in place at location 11 of
// datacenter 1, where an IP change is free; 105 is at another location; 201 is in datacenter 2,
// where an IP change costs money. Templates 1 and 3 are Linux, 5 is Windows (offered by 102).
const (
	planSmall    = 101
	planMedium   = 102
	planOther    = 105
	planPaidIP   = 201
	tmplUbuntu   = 1
	tmplDebian   = 3
	tmplWindows  = 5
	featureIPv4  = "1"
	featureBacks = "2"
)

func steps(t *testing.T, b *acctest.Backend, s ...resource.TestStep) resource.TestCase {
	t.Helper()
	return resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             b.CheckNoActiveInstances(t),
		Steps:                    s,
	}
}

// instanceOf reads the instance the state points at from the backend.
func instanceOf(t *testing.T, b *acctest.Backend, s *terraform.State) *client.Instance {
	t.Helper()
	rs, ok := s.RootModule().Resources[res]
	if !ok {
		t.Fatalf("%s not in the state", res)
	}
	id, err := strconv.ParseInt(rs.Primary.Attributes["id"], 10, 64)
	if err != nil {
		t.Fatalf("%s.id %q: %v", res, rs.Primary.Attributes["id"], err)
	}
	in, err := b.Client(t, "en").GetInstance(context.Background(), id, false)
	if err != nil {
		t.Fatalf("reading instance %d from the backend: %v", id, err)
	}
	return in
}

// TestAccInstance_basic creates a server, imports it, renames it, sets its note, switches off
// auto-renew, and destroys it; the backend is asked at each step.
func TestAccInstance_basic(t *testing.T) {
	b := acctest.StartBackend(t)
	samePassword := statecheck.CompareValue(compare.ValuesSame())
	sameID := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, steps(t, b,
		resource.TestStep{
			Config: b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu), acctest.Attr("hostname", "web-1.example"),
				acctest.Attr("name", "web one"), acctest.Attr("note", "first")),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "id", knownvalue.NotNull()),
				acctest.Check(res, "order_id", knownvalue.NotNull()),
				acctest.Check(res, "status", knownvalue.StringExact("online")),
				acctest.Check(res, "hostname", knownvalue.StringExact("web-1.example")),
				acctest.Check(res, "name", knownvalue.StringExact("web one")),
				acctest.Check(res, "note", knownvalue.StringExact("first")),
				acctest.Check(res, "renew", knownvalue.Bool(true)),
				acctest.Check(res, "power", knownvalue.StringExact("on")),
				acctest.Check(res, "ipv4", acctest.NotEmpty()),
				acctest.Check(res, "username", knownvalue.StringExact("root")),
				acctest.Check(res, "password", acctest.NotEmpty()),
				acctest.Check(res, "port", knownvalue.Int64Exact(22)),
				acctest.Check(res, "datacenter_id", knownvalue.Int64Exact(1)),
				acctest.Check(res, "location_id", knownvalue.Int64Exact(11)),
				acctest.Check(res, "price", knownvalue.NotNull()),
				acctest.Check(res, "renewal_due", acctest.NotEmpty()),
				acctest.Check(res, "created_at", acctest.NotEmpty()),
				acctest.Check(res, "locked", knownvalue.Bool(false)),
				acctest.Check(res, "ip_change_cost", knownvalue.Float64Exact(0)),
				acctest.Check(res, "features", knownvalue.SetSizeExact(0)),
				acctest.Check(res, "apps", knownvalue.ListSizeExact(0)),
				acctest.Check(res, "actions", knownvalue.ListPartial(map[int]knownvalue.Check{0: knownvalue.NotNull()})),
				acctest.Check(res, "traffic", knownvalue.ObjectPartial(map[string]knownvalue.Check{"included": knownvalue.NotNull()})),
				samePassword.AddStateValue(res, tfjsonpath.New("password")),
				sameID.AddStateValue(res, tfjsonpath.New("id")),
			},
			Check: func(s *terraform.State) error {
				in := instanceOf(t, b, s)
				if in.Name != "web one" || in.Note == nil || *in.Note != "first" || !in.Renew {
					return fmt.Errorf("backend instance: got name %q note %v renew %v, want web one, first, true", in.Name, in.Note, in.Renew)
				}
				return nil
			},
		},
		resource.TestStep{
			ResourceName:            res,
			ImportState:             true,
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"price", "features", "apps", "app_inputs"},
		},
		resource.TestStep{
			Config: b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu), acctest.Attr("hostname", "web-1.example"),
				acctest.Attr("name", "web renamed"), acctest.Attr("renew", false)),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "name", knownvalue.StringExact("web renamed")),
				acctest.Check(res, "note", knownvalue.Null()),
				acctest.Check(res, "renew", knownvalue.Bool(false)),
				samePassword.AddStateValue(res, tfjsonpath.New("password")),
				sameID.AddStateValue(res, tfjsonpath.New("id")),
			},
			Check: func(s *terraform.State) error {
				in := instanceOf(t, b, s)
				if in.Name != "web renamed" || (in.Note != nil && *in.Note != "") || in.Renew {
					return fmt.Errorf("backend instance: got name %q note %v renew %v, want web renamed, no note, false", in.Name, in.Note, in.Renew)
				}
				return nil
			},
		},
	))
}

// TestAccInstance_importInvalidID: an import id that is not a number is refused clearly.
func TestAccInstance_importInvalidID(t *testing.T) {
	b := acctest.StartBackend(t)
	resource.ParallelTest(t, steps(t, b, resource.TestStep{
		Config:        b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu)),
		ResourceName:  res,
		ImportState:   true,
		ImportStateId: "web-1",
		ExpectError:   acctest.ErrorRegexp(`Invalid import ID.*"web-1".*positive integer`),
	}))
}

// TestAccInstance_resize: a bigger plan of the same location is an in-place resize; a plan of
// another location is not a resize option, so the plan shows a replacement.
func TestAccInstance_resize(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	newID := statecheck.CompareValue(compare.ValuesDiffer())
	resource.ParallelTest(t, steps(t, b,
		resource.TestStep{
			Config: b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu)),
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(res, tfjsonpath.New("id")),
				newID.AddStateValue(res, tfjsonpath.New("id")),
			},
		},
		resource.TestStep{
			Config: b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planMedium), acctest.Attr("template_id", tmplUbuntu)),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
				plancheck.ExpectUnknownValue(res, tfjsonpath.New("active_features")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "plan_id", knownvalue.Int64Exact(planMedium)),
				acctest.Check(res, "status", knownvalue.StringExact("online")),
				sameID.AddStateValue(res, tfjsonpath.New("id")),
			},
			Check: func(s *terraform.State) error {
				if in := instanceOf(t, b, s); in.ServerProductID != planMedium {
					return fmt.Errorf("backend plan: got %d, want %d", in.ServerProductID, planMedium)
				}
				return nil
			},
		},
		resource.TestStep{
			Config: b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planOther), acctest.Attr("template_id", tmplUbuntu)),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "plan_id", knownvalue.Int64Exact(planOther)),
				acctest.Check(res, "location_id", knownvalue.Int64Exact(12)),
				newID.AddStateValue(res, tfjsonpath.New("id")),
			},
		},
	))
}

// TestAccInstance_rebuildAndPower: a new template rebuilds in place (same id and address, new
// password); power off and on again.
func TestAccInstance_rebuildAndPower(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	sameIPv4 := statecheck.CompareValue(compare.ValuesSame())
	password := statecheck.CompareValue(compare.ValuesDiffer())
	resource.ParallelTest(t, steps(t, b,
		resource.TestStep{
			Config: b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu)),
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(res, tfjsonpath.New("id")),
				sameIPv4.AddStateValue(res, tfjsonpath.New("ipv4")),
				password.AddStateValue(res, tfjsonpath.New("password")),
			},
		},
		resource.TestStep{
			Config: b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplDebian)),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
				plancheck.ExpectUnknownValue(res, tfjsonpath.New("password")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "template_id", knownvalue.Int64Exact(tmplDebian)),
				acctest.Check(res, "status", knownvalue.StringExact("online")),
				sameID.AddStateValue(res, tfjsonpath.New("id")),
				sameIPv4.AddStateValue(res, tfjsonpath.New("ipv4")),
				password.AddStateValue(res, tfjsonpath.New("password")),
			},
		},
		resource.TestStep{
			Config: b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplDebian), acctest.Attr("power", "off")),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "power", knownvalue.StringExact("off")),
				acctest.Check(res, "status", knownvalue.StringExact("offline")),
				sameID.AddStateValue(res, tfjsonpath.New("id")),
			},
		},
		resource.TestStep{
			Config: b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplDebian), acctest.Attr("power", "on")),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "status", knownvalue.StringExact("online")),
			},
		},
	))
}

// TestAccInstance_triggers: changing password_reset_trigger sets a new password, changing
// ip_change_trigger a new address (free on this datacenter); removing a trigger runs nothing.
func TestAccInstance_triggers(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	password := statecheck.CompareValue(compare.ValuesDiffer())
	ipv4 := statecheck.CompareValue(compare.ValuesDiffer())
	keptIPv4 := statecheck.CompareValue(compare.ValuesSame())
	base := []string{acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu)}
	with := func(extra ...string) string {
		return b.ResourceConfig("reseller_instance", append(append([]string{}, base...), extra...)...)
	}
	resource.ParallelTest(t, steps(t, b,
		resource.TestStep{
			Config: with(acctest.Attr("password_reset_trigger", "1"), acctest.Attr("ip_change_trigger", "1")),
			ConfigStateChecks: []statecheck.StateCheck{
				password.AddStateValue(res, tfjsonpath.New("password")),
				ipv4.AddStateValue(res, tfjsonpath.New("ipv4")),
			},
		},
		resource.TestStep{
			Config: with(acctest.Attr("password_reset_trigger", "2"), acctest.Attr("ip_change_trigger", "1")),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
				plancheck.ExpectUnknownValue(res, tfjsonpath.New("password")),
				plancheck.ExpectKnownValue(res, tfjsonpath.New("ipv4"), knownvalue.NotNull()),
			}},
			ConfigStateChecks: []statecheck.StateCheck{password.AddStateValue(res, tfjsonpath.New("password"))},
			Check: func(s *terraform.State) error {
				in := instanceOf(t, b, s)
				if got := s.RootModule().Resources[res].Primary.Attributes["password"]; in.Credentials == nil ||
					in.Credentials.Password == nil || *in.Credentials.Password != got {
					return fmt.Errorf("password: the state's differs from the backend's")
				}
				return nil
			},
		},
		resource.TestStep{
			Config: with(acctest.Attr("password_reset_trigger", "2"), acctest.Attr("ip_change_trigger", "2")),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue(res, tfjsonpath.New("ipv4")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				ipv4.AddStateValue(res, tfjsonpath.New("ipv4")),
				keptIPv4.AddStateValue(res, tfjsonpath.New("ipv4")),
			},
			Check: func(s *terraform.State) error {
				in := instanceOf(t, b, s)
				if got := s.RootModule().Resources[res].Primary.Attributes["ipv4"]; in.IPv4 == nil || *in.IPv4 != got {
					return fmt.Errorf("ipv4: got %q in the state, want the backend's %v", got, in.IPv4)
				}
				return nil
			},
		},
		resource.TestStep{
			// Removing the triggers changes nothing on the server.
			Config: with(),
			ConfigStateChecks: []statecheck.StateCheck{
				keptIPv4.AddStateValue(res, tfjsonpath.New("ipv4")),
			},
		},
	))
}

// TestAccInstance_paidIPChange: where an IP change costs money, it needs max_ip_change_cost of
// at least ip_change_cost; below it the error says what to set, and nothing changes.
func TestAccInstance_paidIPChange(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	ipv4 := statecheck.CompareValue(compare.ValuesSame())
	base := []string{acctest.Attr("plan_id", planPaidIP), acctest.Attr("template_id", tmplUbuntu)}
	with := func(extra ...string) string {
		return b.ResourceConfig("reseller_instance", append(append([]string{}, base...), extra...)...)
	}
	resource.ParallelTest(t, steps(t, b,
		resource.TestStep{
			Config: with(acctest.Attr("ip_change_trigger", "a")),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "ip_change_cost", knownvalue.Float64Exact(0.5)),
				ipv4.AddStateValue(res, tfjsonpath.New("ipv4")),
			},
		},
		resource.TestStep{
			Config:      with(acctest.Attr("ip_change_trigger", "b"), acctest.Attr("max_ip_change_cost", 0.1)),
			ExpectError: acctest.ErrorRegexp(`IP change cost not accepted.*costs 0.5 USD.*max_ip_change_cost to at least 0.5`),
		},
		resource.TestStep{
			Config: with(acctest.Attr("ip_change_trigger", "a")),
			ConfigStateChecks: []statecheck.StateCheck{
				ipv4.AddStateValue(res, tfjsonpath.New("ipv4")),
			},
		},
		resource.TestStep{
			Config: with(acctest.Attr("ip_change_trigger", "b"), acctest.Attr("max_ip_change_cost", 0.5)),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue(res, tfjsonpath.New("ipv4")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{acctest.Check(res, "ipv4", acctest.NotEmpty())},
		},
	))
}

// TestAccInstance_drift: a server switched off behind Terraform's back is switched on again; a
// server canceled behind its back is planned for creation.
func TestAccInstance_drift(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	c := b.Client(t, "en")
	config := b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu))
	var id int64
	resource.ParallelTest(t, steps(t, b,
		resource.TestStep{
			Config: config,
			Check: func(s *terraform.State) error {
				id = instanceOf(t, b, s).ID
				return nil
			},
		},
		resource.TestStep{
			PreConfig: func() {
				if _, err := c.RunAction(context.Background(), id, client.ActionRequest{Action: client.ActionPowerOff}); err != nil {
					t.Fatalf("power off behind Terraform's back: %v", err)
				}
			},
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(res, tfjsonpath.New("power"), knownvalue.StringExact("on")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{acctest.Check(res, "status", knownvalue.StringExact("online"))},
		},
		resource.TestStep{
			PreConfig: func() {
				if _, err := c.CancelInstance(context.Background(), id); err != nil {
					t.Fatalf("cancel behind Terraform's back: %v", err)
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
			ConfigStateChecks: []statecheck.StateCheck{acctest.Check(res, "status", knownvalue.StringExact("online"))},
		},
	))
}

// TestAccInstance_timedOutOrder: an order the datacenter never builds times out; the error
// quotes its support reference and nothing is left in the state or charged.
func TestAccInstance_timedOutOrder(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t, acctest.WithFailRate(1), acctest.WithOrderWindow(2*time.Second))
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			orders := b.Orders(t)
			if len(orders) != 1 || orders[0].Status != client.OrderTimedOut || orders[0].Reference == nil {
				return fmt.Errorf("backend orders: got %+v, want one timed_out order with a reference", orders)
			}
			return b.CheckNoActiveInstances(t)(nil)
		},
		Steps: []resource.TestStep{{
			Config:      b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu)),
			ExpectError: acctest.ErrorRegexp(`Order timed out.*support reference [A-Za-z0-9]+`),
		}},
	})
}

// TestAccInstance_insufficientBalance: an order the wallet cannot cover is refused with advice
// to top up, and nothing is ordered.
func TestAccInstance_insufficientBalance(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t, acctest.WithBalance(0.001))
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if orders := b.Orders(t); len(orders) != 0 {
				return fmt.Errorf("backend orders: got %d, want none", len(orders))
			}
			return b.CheckNoActiveInstances(t)(nil)
		},
		Steps: []resource.TestStep{{
			Config:      b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu)),
			ExpectError: acctest.ErrorRegexp(`Unable to order the server.*insufficient_balance.*Top up the wallet`),
		}},
	})
}

// TestAccInstance_locked: a server locked for debt refuses changes with an error naming the
// reason and the remedy; once unlocked the same change applies.
func TestAccInstance_locked(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	var id int64
	resource.ParallelTest(t, steps(t, b,
		resource.TestStep{
			Config: b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu), acctest.Attr("name", "a")),
			Check: func(s *terraform.State) error {
				id = instanceOf(t, b, s).ID
				return nil
			},
		},
		resource.TestStep{
			PreConfig: func() {
				if err := b.Server.LockInstance(context.Background(), id, "debt"); err != nil {
					t.Fatalf("locking instance %d: %v", id, err)
				}
			},
			Config:      b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu), acctest.Attr("name", "b")),
			ExpectError: acctest.ErrorRegexp(`Instance is locked.*reason: debt.*Top up the wallet`),
		},
		resource.TestStep{
			PreConfig: func() {
				if err := b.Server.UnlockInstance(context.Background(), id); err != nil {
					t.Fatalf("unlocking instance %d: %v", id, err)
				}
			},
			Config:            b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu), acctest.Attr("name", "b")),
			ConfigStateChecks: []statecheck.StateCheck{acctest.Check(res, "name", knownvalue.StringExact("b")), acctest.Check(res, "locked", knownvalue.Bool(false))},
		},
	))
}

// TestAccInstance_adoptAfterTimeout: a create cut short by its timeout keeps the order in the
// state with a warning; the next apply resumes waiting for the same order (an in-place update),
// and exactly one order exists in the end.
func TestAccInstance_adoptAfterTimeout(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	// The order window outlasts the held order however slowly the first step runs (acctest's
	// default minute does not on a loaded machine: the held order timed out).
	b := acctest.StartBackend(t, acctest.WithDelays(200*time.Millisecond, 100*time.Millisecond), acctest.WithOrderWindow(10*time.Minute))
	config := func(timeout string) string {
		return b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu), acctest.Attr("name", "adopted"),
			fmt.Sprintf("timeouts {\n    create = %q\n  }", timeout))
	}
	resource.ParallelTest(t, steps(t, b,
		resource.TestStep{
			// The order stays pending until the next step (Server.HoldDeploys), so the create's
			// timeout cuts it short however slowly the apply runs.
			PreConfig:          b.Server.HoldDeploys,
			Config:             config("10s"),
			ExpectNonEmptyPlan: true,
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "order_id", knownvalue.NotNull()),
				acctest.Check(res, "id", knownvalue.Null()),
				acctest.Check(res, "status", knownvalue.StringExact("pending")),
			},
			Check: func(*terraform.State) error {
				if orders := b.Orders(t); len(orders) != 1 || orders[0].Status != client.OrderPending {
					return fmt.Errorf("backend orders after the cut-short create: got %+v, want one pending", orders)
				}
				return nil
			},
		},
		resource.TestStep{
			PreConfig: b.Server.ReleaseDeploys,
			Config:    config("2m"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "id", knownvalue.NotNull()),
				acctest.Check(res, "status", knownvalue.StringExact("online")),
				acctest.Check(res, "name", knownvalue.StringExact("adopted")),
				acctest.Check(res, "password", acctest.NotEmpty()),
			},
			Check: func(s *terraform.State) error {
				orders := b.Orders(t)
				if len(orders) != 1 || orders[0].Status != client.OrderDeployed {
					return fmt.Errorf("backend orders: got %+v, want exactly one, deployed", orders)
				}
				if in := instanceOf(t, b, s); in.Name != "adopted" || orders[0].Server == nil || orders[0].Server.ID != in.ID {
					return fmt.Errorf("the state's instance %d (name %q) is not the order's server", in.ID, in.Name)
				}
				return nil
			},
		},
	))
}

// TestAccInstance_features: features the OS forces are computed when features is omitted and
// never cause a diff when it is set without them; active_features shows what is billed.
func TestAccInstance_features(t *testing.T) {
	b := acctest.StartBackend(t)
	resource.ParallelTest(t, steps(t, b,
		resource.TestStep{
			Config: b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planMedium), acctest.Attr("template_id", tmplWindows)),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "features", knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(featureIPv4)})),
				acctest.Check(res, "active_features", knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(featureIPv4)})),
				acctest.Check(res, "username", knownvalue.StringExact("Administrator")),
			},
		},
		resource.TestStep{
			// Writing the forced feature out changes nothing.
			Config: b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planMedium), acctest.Attr("template_id", tmplWindows), `features = ["1"]`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectEmptyPlan(),
			}},
		},
		resource.TestStep{
			// Another feature replaces the server; the forced one stays billed without being listed.
			Config: b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planMedium), acctest.Attr("template_id", tmplWindows), `features = ["2"]`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "features", knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(featureBacks)})),
				acctest.Check(res, "active_features", knownvalue.SetExact([]knownvalue.Check{
					knownvalue.StringExact(featureIPv4), knownvalue.StringExact(featureBacks),
				})),
			},
		},
	))
}

// TestAccInstance_apps: apps are installed (dependencies included) before the create returns.
func TestAccInstance_apps(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	resource.ParallelTest(t, steps(t, b, resource.TestStep{
		Config: b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planMedium), acctest.Attr("template_id", tmplUbuntu), `apps = ["wordpress"]`,
			`app_inputs = { wordpress = { SITE_TITLE = "Demo" } }`),
		ConfigStateChecks: []statecheck.StateCheck{
			acctest.Check(res, "apps", knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("wordpress")})),
		},
		Check: func(s *terraform.State) error {
			in := instanceOf(t, b, s)
			apps, err := b.Client(t, "en").ListInstanceApps(context.Background(), in.ID)
			if err != nil {
				return err
			}
			got := map[string]string{}
			for _, a := range apps.Installs {
				got[a.AppID] = a.Status
			}
			if got["wordpress"] != client.AppInstalled || got["mysql"] != client.AppInstalled {
				return fmt.Errorf("installs: got %v, want wordpress and its dependency mysql installed", got)
			}
			return nil
		},
	}))
}

// TestAccInstance_invalidInput: hostname, name and note are checked at plan time, and exactly
// one of template_id and snapshot_id is required; nothing is ordered.
func TestAccInstance_invalidInput(t *testing.T) {
	b := acctest.StartBackend(t)
	base := []string{acctest.Attr("plan_id", planSmall)}
	with := func(extra ...string) string {
		return b.ResourceConfig("reseller_instance", append(append([]string{}, base...), extra...)...)
	}
	tests := []struct {
		config string
		want   string
	}{
		{with(acctest.Attr("template_id", tmplUbuntu), acctest.Attr("hostname", "web_1")), `Invalid hostname.*"web_1"`},
		{with(acctest.Attr("template_id", tmplUbuntu), acctest.Attr("hostname", strings.Repeat("a", 64))), `Invalid hostname.*64 characters`},
		{with(acctest.Attr("template_id", tmplUbuntu), acctest.Attr("name", strings.Repeat("n", 65))), `name.*character count must be between 1 and 64, got: 65`},
		{with(acctest.Attr("template_id", tmplUbuntu), acctest.Attr("note", strings.Repeat("n", 513))), `note.*character count must be between 1 and 512, got: 513`},
		{with(acctest.Attr("template_id", tmplUbuntu), acctest.Attr("power", "sleep")), `power.*value must be one of`},
		{with(), `template_id.*snapshot_id`},
		{with(acctest.Attr("template_id", tmplUbuntu), acctest.Attr("snapshot_id", 4)), `template_id.*snapshot_id`},
		{with(acctest.Attr("template_id", tmplUbuntu), `features = ["ipv4"]`), `must be a feature id`},
	}
	var s []resource.TestStep
	for _, tc := range tests {
		s = append(s, resource.TestStep{Config: tc.config, PlanOnly: true, ExpectError: acctest.ErrorRegexp(tc.want)})
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if orders := b.Orders(t); len(orders) != 0 {
				return fmt.Errorf("backend orders: got %d, want none", len(orders))
			}
			return nil
		},
		Steps: s,
	})
}

// TestAccInstance_orderLimit: with one order allowed to provision at a time, three servers
// created together wait for a free slot in turn instead of failing, and exactly three orders
// are placed.
func TestAccInstance_orderLimit(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t, acctest.WithLimits(10, 1))
	config := b.ProviderConfig() + fmt.Sprintf(`
resource "reseller_instance" "many" {
  count       = 3
  plan_id     = %d
  template_id = %d
}
`, planSmall, tmplUbuntu)
	resource.ParallelTest(t, steps(t, b, resource.TestStep{
		Config: config,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("reseller_instance.many[2]", tfjsonpath.New("status"), knownvalue.StringExact("online")),
		},
		Check: func(*terraform.State) error {
			orders := b.Orders(t)
			if len(orders) != 3 {
				return fmt.Errorf("backend orders: got %d, want 3", len(orders))
			}
			for _, o := range orders {
				if o.Status != client.OrderDeployed {
					return fmt.Errorf("order %d: got status %s, want deployed", o.OrderID, o.Status)
				}
			}
			return nil
		},
	}))
}

// TestAccInstance_appInstallFails: when an app install fails, the create fails with the
// install's stage and log tail. The root password is changed on the machine behind the
// service's back at the order's deploy, before any install runs, so the installer cannot log in.
func TestAccInstance_appInstallFails(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t, acctest.WithDelays(200*time.Millisecond, 2*time.Second))
	resource.ParallelTest(t, steps(t, b, resource.TestStep{
		PreConfig:   b.Server.ChangeRootPasswordAtDeploy,
		Config:      b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu), `apps = ["docker"]`),
		ExpectError: acctest.ErrorRegexp(`App install failed.*"docker".*auth_failed.*Install log`),
	}))
}

// TestAccInstance_appInstallFailsWriteOnly is the MySQL server of issue 25: with a write-only
// root password, a failed install must still leave the server in the state, tainted, so the next
// apply replaces it rather than ordering a second server beside one nothing tracks. (The state
// saved with the error used to carry app_inputs_wo, and Terraform threw it away whole.)
func TestAccInstance_appInstallFailsWriteOnly(t *testing.T) {
	b := acctest.StartBackend(t, acctest.WithDelays(200*time.Millisecond, 500*time.Millisecond))
	config := b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planMedium), acctest.Attr("template_id", tmplUbuntu),
		`apps = ["mysql"]`, fmt.Sprintf(`app_inputs_wo = { mysql = { ROOT_PASSWORD = %q } }`, woRootPassword),
		acctest.Attr("app_inputs_wo_version", 1))
	var first int64
	tc := steps(t, b,
		resource.TestStep{
			PreConfig:   b.Server.ChangeRootPasswordAtDeploy,
			Config:      config,
			ExpectError: acctest.ErrorRegexp(`App install failed.*"mysql".*auth_failed.*kept in the state.*tainted`),
		},
		resource.TestStep{
			PreConfig: func() {
				orders := b.Orders(t)
				if len(orders) != 1 || orders[0].Server == nil {
					t.Fatalf("backend orders after the failed create: got %+v, want one deployed", orders)
				}
				first = orders[0].Server.ID
			},
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ExpectAbsentFromState("app_inputs_wo's ROOT_PASSWORD", woRootPassword),
				acctest.Check(res, "status", knownvalue.StringExact("online")),
			},
			Check: func(s *terraform.State) error {
				in := instanceOf(t, b, s)
				if in.ID == first {
					return fmt.Errorf("the state still points at the failed server %d, want its replacement", first)
				}
				if n := len(b.Orders(t)); n != 2 {
					return fmt.Errorf("backend orders: got %d, want 2 (the failed server and its replacement)", n)
				}
				return b.CheckActiveInstances(t, in.ID)(s)
			},
		},
	)
	tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)}
	resource.ParallelTest(t, tc)
}
