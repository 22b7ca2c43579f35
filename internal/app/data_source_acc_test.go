package app_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

func appIDs(want []client.App) knownvalue.Check {
	checks := make([]knownvalue.Check, 0, len(want))
	for _, a := range want {
		checks = append(checks, knownvalue.ObjectPartial(map[string]knownvalue.Check{"id": knownvalue.StringExact(a.ID)}))
	}
	return knownvalue.ListExact(checks)
}

func TestAccApps_basic(t *testing.T) {
	b := acctest.StartBackend(t)
	all, err := b.Client(t, "en").ListApps(context.Background(), client.AppFilter{})
	if err != nil {
		t.Fatal(err)
	}
	// The app with the most inputs, to compare them field by field.
	var rich client.App
	idx := -1
	for i, a := range all {
		if len(a.Inputs) > len(rich.Inputs) {
			rich, idx = a, i
		}
	}
	if idx < 0 {
		t.Fatal("backend: no app has inputs")
	}
	inputs := make([]knownvalue.Check, 0, len(rich.Inputs))
	for _, in := range rich.Inputs {
		var def, help knownvalue.Check = knownvalue.Null(), knownvalue.Null()
		if in.Default != nil {
			def = knownvalue.StringExact(*in.Default)
		}
		if in.Help != nil {
			help = knownvalue.StringExact(*in.Help)
		}
		inputs = append(inputs, knownvalue.ObjectExact(map[string]knownvalue.Check{
			"key": knownvalue.StringExact(in.Key), "label": knownvalue.StringExact(in.Label),
			"kind": knownvalue.StringExact(in.Kind), "required": knownvalue.Bool(in.Required),
			"default": def, "help": help,
		}))
	}
	item := tfjsonpath.New("apps").AtSliceIndex(idx)

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: b.ProviderConfig() + `data "reseller_apps" "all" {}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.reseller_apps.all", tfjsonpath.New("apps"), appIDs(all)),
				statecheck.ExpectKnownValue("data.reseller_apps.all", item.AtMapKey("inputs"), knownvalue.ListExact(inputs)),
				statecheck.ExpectKnownValue("data.reseller_apps.all", item.AtMapKey("name"), knownvalue.StringExact(rich.Name)),
				statecheck.ExpectKnownValue("data.reseller_apps.all", item.AtMapKey("requires"), knownvalue.ListSizeExact(len(rich.Requires))),
				statecheck.ExpectKnownValue("data.reseller_apps.all", item.AtMapKey("conflicts"), knownvalue.ListSizeExact(len(rich.Conflicts))),
				statecheck.ExpectKnownValue("data.reseller_apps.all", item.AtMapKey("min_memory_mb"), knownvalue.Int64Exact(rich.MinMemoryMB)),
				statecheck.ExpectKnownValue("data.reseller_apps.all", item.AtMapKey("os_families"), knownvalue.ListSizeExact(len(rich.OSFamilies))),
			},
		}},
	})
}

// TestAccApps_filtered narrows the apps to what a plan and a Windows template can run, and
// checks the result is the backend's and smaller than the whole list.
func TestAccApps_filtered(t *testing.T) {
	b := acctest.StartBackend(t)
	ctx := context.Background()
	c := b.Client(t, "en")
	all, err := c.ListApps(ctx, client.AppFilter{})
	if err != nil {
		t.Fatal(err)
	}
	plans, err := c.ListPlans(ctx, client.PlanFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var planID, windowsID, linuxID int64
	for _, p := range plans {
		var w, l int64
		for _, tmpl := range p.Templates {
			if tmpl.OSType == "windows" && w == 0 {
				w = tmpl.ID
			}
			if tmpl.OSType == "linux" && l == 0 {
				l = tmpl.ID
			}
		}
		if w != 0 && l != 0 {
			planID, windowsID, linuxID = p.ID, w, l
			break
		}
	}
	if planID == 0 {
		t.Fatal("backend: no plan offers both a Windows and a Linux template")
	}
	windows, err := c.ListApps(ctx, client.AppFilter{PlanID: planID, TemplateID: windowsID})
	if err != nil {
		t.Fatal(err)
	}
	linux, err := c.ListApps(ctx, client.AppFilter{PlanID: planID, TemplateID: linuxID})
	if err != nil {
		t.Fatal(err)
	}
	if len(windows) == 0 || len(windows) >= len(all) {
		t.Fatalf("backend: got %d apps for plan %d with Windows out of %d, want some but not all", len(windows), planID, len(all))
	}

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: b.ProviderConfig() + fmt.Sprintf(`
data "reseller_apps" "windows" {
  plan_id     = %d
  template_id = %d
}

data "reseller_apps" "linux" {
  plan_id     = %d
  template_id = %d
}
`, planID, windowsID, planID, linuxID),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.reseller_apps.windows", tfjsonpath.New("apps"), appIDs(windows)),
					statecheck.ExpectKnownValue("data.reseller_apps.linux", tfjsonpath.New("apps"), appIDs(linux)),
				},
			},
			{
				Config:      b.ProviderConfig() + `data "reseller_apps" "x" { plan_id = 987654 }`,
				ExpectError: acctest.ErrorRegexp(`Plan or template not found.*plan 987654`),
			},
		},
	})
}

// TestAccApps_disabled: an account without apps sees an empty list, not an error.
func TestAccApps_disabled(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	if err := b.Server.SetAppsEnabled(context.Background(), b.AccountID, false); err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: b.ProviderConfig() + `data "reseller_apps" "all" {}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.reseller_apps.all", tfjsonpath.New("apps"), knownvalue.ListSizeExact(0)),
			},
		}},
	})
}
