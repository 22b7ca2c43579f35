package instance_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// plannedPrice remembers the price planned for a resource, so a state check can compare the
// price the apply recorded (the order's) with it.
type plannedPrice struct {
	address string
	value   *float64
}

func newPlannedPrice(address string) plannedPrice {
	return plannedPrice{address: address, value: new(float64)}
}

// CheckPlan fails unless the plan knows the resource's price, and remembers it.
func (p plannedPrice) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != p.address {
			continue
		}
		after, _ := rc.Change.After.(map[string]any)
		price, ok := after["price"].(json.Number)
		if !ok {
			resp.Error = fmt.Errorf("%s.price: got %v (unknown or null) in the plan, want a known price", p.address, after["price"])
			return
		}
		v, err := price.Float64()
		if err != nil {
			resp.Error = err
			return
		}
		*p.value = v
		return
	}
	resp.Error = fmt.Errorf("%s: not in the plan", p.address)
}

// CheckState fails unless the applied price equals the planned one.
func (p plannedPrice) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address != p.address {
			continue
		}
		got, ok := r.AttributeValues["price"].(json.Number)
		if !ok || got.String() != fmt.Sprint(*p.value) {
			resp.Error = fmt.Errorf("%s.price: got %v applied, want the planned %v", p.address, r.AttributeValues["price"], *p.value)
		}
		return
	}
	resp.Error = fmt.Errorf("%s: not in the state", p.address)
}

// TestAccInstance_priceAtPlan: a new server's price is known in the plan and equals the price
// its order charged, forced features included (Windows bills IPv4); a resize plans the new
// price; a plan id known only after apply leaves the price unknown.
func TestAccInstance_priceAtPlan(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	quote, err := b.Client(t, "en").Quote(context.Background(), client.QuoteRequest{ServerID: planMedium, TemplateID: new(int64(tmplWindows))})
	if err != nil {
		t.Fatal(err)
	}
	servers := func(linuxPlan int, extra string) string {
		return b.ProviderConfig() + fmt.Sprintf(`
resource "reseller_instance" "win" {
  plan_id     = %d
  template_id = %d
}

resource "reseller_instance" "linux" {
  plan_id     = %d
  template_id = %d
  features    = [%q]
}
`, planMedium, tmplWindows, linuxPlan, tmplUbuntu, featureBacks) + extra
	}
	win, linux, resized := newPlannedPrice("reseller_instance.win"), newPlannedPrice("reseller_instance.linux"), newPlannedPrice("reseller_instance.linux")
	resource.ParallelTest(t, steps(t, b,
		resource.TestStep{
			Config: servers(planSmall, ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				win, linux,
				plancheck.ExpectKnownValue("reseller_instance.win", tfjsonpath.New("price"), knownvalue.Float64Exact(quote.Cost)),
			}},
			ConfigStateChecks: []statecheck.StateCheck{win, linux},
		},
		resource.TestStep{
			Config: servers(planMedium, ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("reseller_instance.linux", plancheck.ResourceActionUpdate), resized,
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				resized,
				statecheck.ExpectKnownValue("reseller_instance.linux", tfjsonpath.New("plan_id"), knownvalue.Int64Exact(planMedium)),
			},
		},
		resource.TestStep{
			Config: servers(planMedium, fmt.Sprintf(`
resource "terraform_data" "plan" {
  input = %d
}

resource "reseller_instance" "later" {
  plan_id     = terraform_data.plan.output
  template_id = %d
}
`, planSmall, tmplUbuntu)),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("reseller_instance.later", tfjsonpath.New("price")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("reseller_instance.later", tfjsonpath.New("price"), knownvalue.NotNull()),
			},
		},
	))
}

// TestAccInstance_clonePriceAtPlan: a server built from an existing snapshot is priced from its
// plan at plan time, and the order charges that price.
func TestAccInstance_clonePriceAtPlan(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	clone := newPlannedPrice("reseller_instance.clone0")
	resource.ParallelTest(t, cloneSteps(t, b,
		resource.TestStep{Config: cloneConfig(b)},
		resource.TestStep{
			Config:            cloneConfig(b, planMedium),
			ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{clone}},
			ConfigStateChecks: []statecheck.StateCheck{clone},
		},
	))
}

// withPlanChecks adds plan_checks = mode to the backend's provider block.
func withPlanChecks(b *acctest.Backend, mode string) string {
	return strings.Replace(b.ProviderConfig(), "provider \"reseller\" {", "provider \"reseller\" {\n  plan_checks = \""+mode+"\"", 1)
}

// TestAccInstance_planChecksReplacementAtLimit: replacing a server on an account at its
// server_limit is no new server, so even plan_checks = "error" lets the plan and the apply
// (whose re-plan runs after the old server is destroyed) through.
func TestAccInstance_planChecksReplacementAtLimit(t *testing.T) {
	b := acctest.StartBackend(t, acctest.WithLimits(1, 5))
	config := func(hostname string) string {
		return withPlanChecks(b, "error") + fmt.Sprintf("\nresource \"reseller_instance\" \"test\" {\n  %s\n  %s\n  %s\n}\n",
			acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu), acctest.Attr("hostname", hostname))
	}
	resource.ParallelTest(t, steps(t, b,
		resource.TestStep{Config: config("a.example")},
		resource.TestStep{
			Config: config("b.example"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{acctest.Check(res, "hostname", knownvalue.StringExact("b.example"))},
		},
	))
}

// TestAccInstance_planChecksApplyCountsOnce: the apply re-plans every create in a process of its
// own while its own orders land; with plan_checks = "error" an apply that fills the account
// exactly must not count a server twice, and the next server past the limit must still fail.
func TestAccInstance_planChecksApplyCountsOnce(t *testing.T) {
	b := acctest.StartBackend(t, acctest.WithLimits(3, 5))
	fleet := func(n int) string {
		return withPlanChecks(b, "error") + fmt.Sprintf(`
resource "reseller_instance" "web" {
  count       = %d
  plan_id     = %d
  template_id = %d
}
`, n, planSmall, tmplUbuntu)
	}
	resource.ParallelTest(t, steps(t, b,
		resource.TestStep{Config: fleet(3)},
		resource.TestStep{
			Config:      fleet(4),
			ExpectError: acctest.ErrorRegexp(`Plan exceeds the account's server limit.*at least 1 new server; the account has room for 0.*server_limit 3: 3 active, 0 provisioning`),
		},
	))
	if n := b.Requests("POST /instances"); n != 3 {
		t.Errorf("orders: got %d POST /instances, want 3", n)
	}
}

// planDiagnostic is one diagnostic line of `terraform plan -json`.
type planDiagnostic struct {
	Type       string `json:"type"`
	Diagnostic struct {
		Severity string `json:"severity"`
		Summary  string `json:"summary"`
		Detail   string `json:"detail"`
		Address  string `json:"address"`
	} `json:"diagnostic"`
}

// diagnostics returns the diagnostics with summary in the machine-readable output of a plan
// or apply (-json keeps every diagnostic; the human output folds similar warnings together).
func diagnostics(t *testing.T, out, summary string) []planDiagnostic {
	t.Helper()
	var found []planDiagnostic
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var d planDiagnostic
		if json.Unmarshal(sc.Bytes(), &d) == nil && d.Type == "diagnostic" && d.Diagnostic.Summary == summary {
			found = append(found, d)
		}
	}
	return found
}

// TestAccInstance_planChecks plans new servers past the account's limits with the CLI itself,
// whose -json output lists every warning: 5 servers on an account with room for 3 warn on
// exactly 2 creates, and with plan_checks = "error" the apply fails at plan time without a
// single order; a wallet covering 2 of 3 servers warns on the third.
func TestAccInstance_planChecks(t *testing.T) {
	t.Parallel()
	cli := acctest.NewCLI(t)
	fleet := func(b *acctest.Backend, mode string, n int) string {
		return acctest.ProviderRequirement() + withPlanChecks(b, mode) + fmt.Sprintf(`
resource "reseller_instance" "web" {
  count       = %d
  plan_id     = %d
  template_id = %d
}
`, n, planSmall, tmplUbuntu)
	}

	t.Run("server_limit", func(t *testing.T) {
		b := acctest.StartBackend(t, acctest.WithLimits(3, 5))
		cli.Write("main.tf", fleet(b, "warn", 5))
		out, _ := cli.Run([]string{"plan", "-json", "-input=false"})
		warned := diagnostics(t, out, "Plan exceeds the account's server limit")
		if len(warned) != 2 {
			t.Fatalf("server limit warnings: got %d, want 2 (5 new servers, room for 3):\n%s", len(warned), out)
		}
		var total bool
		for _, w := range warned {
			if w.Diagnostic.Severity != "warning" || !strings.HasPrefix(w.Diagnostic.Address, "reseller_instance.web[") {
				t.Errorf("got %s on %q, want a warning on a reseller_instance.web instance", w.Diagnostic.Severity, w.Diagnostic.Address)
			}
			total = total || strings.Contains(w.Diagnostic.Detail,
				"This plan orders at least 5 new servers; the account has room for 3 (server_limit 3: 0 active, 0 provisioning).")
		}
		if !total {
			t.Errorf("no warning names the whole need:\n%s", out)
		}

		cli.Write("main.tf", fleet(b, "error", 5))
		out, _ = cli.Run([]string{"apply", "-json", "-input=false", "-auto-approve"}, 1)
		if errs := diagnostics(t, out, "Plan exceeds the account's server limit"); len(errs) == 0 || errs[0].Diagnostic.Severity != "error" {
			t.Errorf("plan_checks = \"error\": got %v, want errors:\n%s", errs, out)
		}
		if n := b.Requests("POST /instances"); n != 0 {
			t.Errorf("orders: got %d POST /instances, want none", n)
		}
	})

	t.Run("balance", func(t *testing.T) {
		b := acctest.StartBackend(t, acctest.WithBalance(0))
		q, err := b.Client(t, "en").Quote(context.Background(), client.QuoteRequest{ServerID: planSmall, TemplateID: new(int64(tmplUbuntu))})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Server.TopUp(context.Background(), b.AccountID, int64(q.Cost*2.5*1e6), "card"); err != nil {
			t.Fatal(err)
		}
		cli.Write("main.tf", fleet(b, "warn", 3))
		out, _ := cli.Run([]string{"plan", "-json", "-input=false"})
		warned := diagnostics(t, out, "Plan exceeds the account's available balance")
		if len(warned) != 1 || !strings.Contains(warned[0].Diagnostic.Detail, "Top up the wallet") {
			t.Fatalf("balance warnings: got %v, want exactly 1 (the third of 3 servers):\n%s", warned, out)
		}
		if got := diagnostics(t, out, "Plan exceeds the account's server limit"); len(got) != 0 {
			t.Errorf("server limit warnings: got %d, want none", len(got))
		}
	})
}
