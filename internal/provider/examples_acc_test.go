package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/provider"
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

// exampleSecret is the webhook secret the examples are run with.
const exampleSecret = "example-secret-0123456789"

// TestAccExamples_demo runs the demo configuration, with a webhook receiver like the one
// `make demo` starts, and checks its outputs, the verified test ping, and that the write-only
// secret stays out of the state.
func TestAccExamples_demo(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(examplesDir, "demo", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	b := acctest.StartBackend(t, acctest.WithBalance(25), acctest.WithHTTPWebhooks())
	rc := acctest.StartReceiver(t, exampleSecret)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.AllOf(b.CheckNoActiveInstances(t), b.CheckNoSnapshots(t), b.CheckNoWebhook(t)),
		Steps: []resource.TestStep{{
			Config: b.ProviderConfig() + withoutBlocks(string(src)),
			ConfigVariables: config.Variables{
				"webhook_url":    config.StringVariable(rc.URL),
				"webhook_secret": config.StringVariable(exampleSecret),
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("snapshot", knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"status": knownvalue.StringExact("available"), "size_gb": knownvalue.NotNull(), "price": knownvalue.NotNull(),
				})),
				statecheck.ExpectKnownOutputValue("webhook", knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"url": knownvalue.StringExact(rc.URL),
				})),
				acctest.ExpectAbsentFromState("the webhook secret", exampleSecret),
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
			Check: resource.ComposeTestCheckFunc(demoCharged, func(*terraform.State) error {
				if rc.Count("ping") != 1 || rc.Refused() != 0 {
					return fmt.Errorf("receiver: got %d verified pings and %d refused deliveries, want 1 and none", rc.Count("ping"), rc.Refused())
				}
				return rc.WaitFor("snapshot.created", 1, acctest.EventWait)
			}),
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

// TestAccExamples_resources applies the instance example with every registered ephemeral
// resource's example (they open on the instance example's server), so the documentation's
// examples keep working.
func TestAccExamples_resources(t *testing.T) {
	src := exampleSource(t, filepath.Join("resources", "reseller_instance", "resource.tf"))
	for _, r := range provider.RegisteredTypes(context.Background()) {
		if r.Kind == provider.KindEphemeralResource {
			src += exampleSource(t, r.Examples()...)
		}
	}
	b := acctest.StartBackend(t)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: b.ProviderConfig() + src,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("web_address", knownvalue.NotNull()),
				statecheck.ExpectKnownValue("reseller_instance.web", tfjsonpath.New("password"), knownvalue.Null()),
			},
		}},
	})
}

// exampleSource reads example files (relative to examplesDir) without their terraform and
// provider blocks, one after the other.
func exampleSource(t *testing.T, files ...string) string {
	t.Helper()
	var src string
	for _, file := range files {
		raw, err := os.ReadFile(filepath.Join(examplesDir, file))
		if err != nil {
			t.Fatal(err)
		}
		src += withoutBlocks(string(raw)) + "\n"
	}
	return src
}

// TestAccExamples_snapshots applies the snapshot and restore examples on the
// instance example's server. The restore leaves the server off, so the plan after the apply
// switches it on again: expected.
func TestAccExamples_snapshots(t *testing.T) {
	src := exampleSource(t,
		filepath.Join("resources", "reseller_instance", "resource.tf"),
		filepath.Join("resources", "reseller_snapshot", "resource.tf"),
		filepath.Join("resources", "reseller_snapshot_restore", "resource.tf"))
	b := acctest.StartBackend(t)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.AllOf(b.CheckNoActiveInstances(t), b.CheckNoSnapshots(t)),
		Steps: []resource.TestStep{{
			Config: b.ProviderConfig() + src,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("snapshot_cost", knownvalue.ObjectExact(map[string]knownvalue.Check{
					"size_gb": knownvalue.NotNull(), "price_monthly": knownvalue.NotNull(),
				})),
				statecheck.ExpectKnownValue("reseller_instance.web_copy", tfjsonpath.New("status"), knownvalue.StringExact("online")),
				statecheck.ExpectKnownValue("reseller_snapshot_restore.rollback", tfjsonpath.New("restored_at"), knownvalue.NotNull()),
			},
			ExpectNonEmptyPlan: true,
		}},
	})
}

// TestAccExamples_webhook applies the webhook example against a local receiver (the example's
// https URL is swapped for the receiver's): the test ping is verified and the write-only secret
// stays out of the state.
func TestAccExamples_webhook(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(examplesDir, "resources", "reseller_webhook", "resource.tf"))
	if err != nil {
		t.Fatal(err)
	}
	const exampleURL = "https://hooks.example.com/reseller"
	if !strings.Contains(string(raw), exampleURL) {
		t.Fatalf("the webhook example no longer uses %s; update this test", exampleURL)
	}
	b := acctest.StartBackend(t, acctest.WithHTTPWebhooks())
	rc := acctest.StartReceiver(t, exampleSecret)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             b.CheckNoWebhook(t),
		Steps: []resource.TestStep{{
			Config:          b.ProviderConfig() + strings.ReplaceAll(withoutBlocks(string(raw)), exampleURL, rc.URL),
			ConfigVariables: config.Variables{"webhook_secret": config.StringVariable(exampleSecret)},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("webhook_events", knownvalue.ListPartial(map[int]knownvalue.Check{0: knownvalue.StringExact("ping")})),
				acctest.ExpectAbsentFromState("the webhook secret", exampleSecret),
			},
			Check: func(*terraform.State) error {
				if rc.Count("ping") != 1 {
					return fmt.Errorf("receiver: got %d verified pings, want 1", rc.Count("ping"))
				}
				return nil
			},
		}},
	})
}
