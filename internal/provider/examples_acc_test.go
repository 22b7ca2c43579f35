package provider_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

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
			},
		}},
	})
}
