package provider_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
)

// examplesDir is the repository's examples folder, relative to this package.
const examplesDir = "../../examples"

// withoutBlocks drops the top-level terraform and provider blocks of an example, so the test can
// supply its own provider block pointing at the test backend.
func withoutBlocks(src string) string {
	var out []string
	skipping := false
	for _, line := range strings.Split(src, "\n") {
		if !skipping && (strings.HasPrefix(line, "terraform {") || strings.HasPrefix(line, `provider "reseller" {`)) {
			skipping = !strings.HasSuffix(strings.TrimSpace(line), "}")
			continue
		}
		if skipping {
			if line == "}" {
				skipping = false
			}
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// TestAccExamples_dataSources runs every data source example against a backend with the seeded
// catalogue, so the documentation's examples keep working.
func TestAccExamples_dataSources(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(examplesDir, "data-sources", "*", "data-source.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no data source examples under %s", examplesDir)
	}
	for _, file := range files {
		name := filepath.Base(filepath.Dir(file))
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			b := acctest.StartBackend(t)
			resource.ParallelTest(t, resource.TestCase{
				PreCheck:                 func() { acctest.PreCheck(t) },
				ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
				Steps:                    []resource.TestStep{{Config: b.ProviderConfig() + withoutBlocks(string(src))}},
			})
		})
	}
}

// TestAccExamples_demo runs the demo configuration and checks its outputs.
func TestAccExamples_demo(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(examplesDir, "demo", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	b := acctest.StartBackend(t, acctest.WithBalance(25))
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: b.ProviderConfig() + withoutBlocks(string(src)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("balance", knownvalue.Float64Exact(25)),
				statecheck.ExpectKnownOutputValue("account_id", knownvalue.Int64Exact(b.AccountID)),
				statecheck.ExpectKnownOutputValue("quote_sufficient_balance", knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("cheapest_plan", knownvalue.ObjectExact(map[string]knownvalue.Check{
					"id": knownvalue.NotNull(), "name": knownvalue.NotNull(), "hourly": knownvalue.NotNull(),
				})),
				statecheck.ExpectKnownOutputValue("quote_cost", knownvalue.NotNull()),
				statecheck.ExpectKnownOutputValue("server", knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"ipv4": knownvalue.NotNull(), "username": knownvalue.StringExact("root"),
					"apps": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("docker")}),
				})),
			},
			Check: demoCharged,
			// The demo orders a server, so the wallet read before the order (output "balance")
			// reads lower on the next plan: an output-only change, expected.
			ExpectNonEmptyPlan: true,
		}},
	})
}

// demoCharged checks that the demo's server was charged what the quote said, and that the
// balance read after the order shows it.
func demoCharged(s *terraform.State) error {
	out := s.RootModule().Outputs
	server, ok := out["server"].Value.(map[string]any)
	if !ok {
		return fmt.Errorf("output server: got %T, want an object", out["server"].Value)
	}
	price, cost := number(server["price"]), number(out["quote_cost"].Value)
	before, after := number(out["balance"].Value), number(out["balance_after_order"].Value)
	if price <= 0 || math.Abs(price-cost) > 1e-9 {
		return fmt.Errorf("server price: got %v, want the quoted cost %v", price, cost)
	}
	if math.Abs(before-price-after) > 1e-6 {
		return fmt.Errorf("balance after the order: got %v, want %v - %v", after, before, price)
	}
	return nil
}

// number reads a number of the state shim, which may hold it as a float, a json.Number or text.
func number(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case json.Number:
		f, _ := n.Float64()
		return f
	case string:
		f, _ := strconv.ParseFloat(n, 64)
		return f
	}
	return math.NaN()
}

// TestAccExamples_resources applies the resource and ephemeral resource examples (the console
// example uses the instance example's server), so the documentation's examples keep working.
func TestAccExamples_resources(t *testing.T) {
	instance, err := os.ReadFile(filepath.Join(examplesDir, "resources", "reseller_instance", "resource.tf"))
	if err != nil {
		t.Fatal(err)
	}
	console, err := os.ReadFile(filepath.Join(examplesDir, "ephemeral-resources", "reseller_console", "ephemeral-resource.tf"))
	if err != nil {
		t.Fatal(err)
	}
	b := acctest.StartBackend(t)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: b.ProviderConfig() + withoutBlocks(string(instance)) + withoutBlocks(string(console)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("web_address", knownvalue.NotNull()),
			},
		}},
	})
}
