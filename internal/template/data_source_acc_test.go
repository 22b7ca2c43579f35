package template_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// planWithTemplates returns a plan offering Windows and at least two Linux templates.
func planWithTemplates(t *testing.T, b *acctest.Backend) client.Plan {
	t.Helper()
	plans, err := b.Client(t, "en").ListPlans(context.Background(), client.PlanFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plans {
		var windows, linux int
		for _, tmpl := range p.Templates {
			switch tmpl.OSType {
			case "windows":
				windows++
			case "linux":
				linux++
			}
		}
		if windows > 0 && linux > 1 {
			return p
		}
	}
	t.Fatal("backend: no plan offers Windows and two Linux templates")
	return client.Plan{}
}

// lowest returns the template with the lowest id among those match accepts.
func lowest(templates []client.Template, match func(client.Template) bool) client.Template {
	var best client.Template
	for _, tmpl := range templates {
		if match(tmpl) && (best.ID == 0 || tmpl.ID < best.ID) {
			best = tmpl
		}
	}
	return best
}

func TestAccTemplate_basic(t *testing.T) {
	b := acctest.StartBackend(t)
	p := planWithTemplates(t, b)
	linux := lowest(p.Templates, func(t client.Template) bool { return t.OSType == "linux" })
	windows := lowest(p.Templates, func(t client.Template) bool { return t.OSType == "windows" })
	// The highest-id Linux template, found by its exact name.
	var named client.Template
	for _, tmpl := range p.Templates {
		if tmpl.OSType == "linux" && tmpl.ID > named.ID {
			named = tmpl
		}
	}

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: b.ProviderConfig() + fmt.Sprintf(`
data "reseller_template" "linux" {
  plan_id = %[1]d
  os_type = "LINUX"
}

data "reseller_template" "windows" {
  plan_id = %[1]d
  os_type = "windows"
}

data "reseller_template" "named" {
  plan_id    = %[1]d
  name_regex = %[2]q
}
`, p.ID, "(?i)^"+regexp.QuoteMeta(strings.ToLower(named.Name))+"$"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.reseller_template.linux", tfjsonpath.New("id"), knownvalue.Int64Exact(linux.ID)),
				statecheck.ExpectKnownValue("data.reseller_template.linux", tfjsonpath.New("name"), knownvalue.StringExact(linux.Name)),
				statecheck.ExpectKnownValue("data.reseller_template.linux", tfjsonpath.New("os_type"), knownvalue.StringExact("linux")),
				statecheck.ExpectKnownValue("data.reseller_template.windows", tfjsonpath.New("id"), knownvalue.Int64Exact(windows.ID)),
				statecheck.ExpectKnownValue("data.reseller_template.named", tfjsonpath.New("id"), knownvalue.Int64Exact(named.ID)),
				statecheck.ExpectKnownValue("data.reseller_template.named", tfjsonpath.New("os_type"), knownvalue.StringExact(named.OSType)),
			},
		}},
	})
}

func TestAccTemplate_errors(t *testing.T) {
	b := acctest.StartBackend(t)
	p := planWithTemplates(t, b)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: b.ProviderConfig() + fmt.Sprintf(`
data "reseller_template" "x" {
  plan_id = %d
  os_type = "bsd"
}
`, p.ID),
				ExpectError: acctest.ErrorRegexp(fmt.Sprintf(`No template matches.*plan %d matches os_type = "bsd"`, p.ID)),
			},
			{
				Config: b.ProviderConfig() + `
data "reseller_template" "x" {
  plan_id = 987654
  os_type = "linux"
}
`,
				ExpectError: acctest.ErrorRegexp(`plan 987654 not found`),
			},
			{
				Config: b.ProviderConfig() + fmt.Sprintf(`
data "reseller_template" "x" {
  plan_id    = %d
  os_type    = "linux"
  name_regex = "ubuntu"
}
`, p.ID),
				ExpectError: acctest.ErrorRegexp(`Invalid Attribute Combination.*name_regex.*os_type`),
			},
			{
				Config:      b.ProviderConfig() + fmt.Sprintf(`data "reseller_template" "x" { plan_id = %d }`, p.ID),
				ExpectError: acctest.ErrorRegexp(`Missing Attribute Configuration.*Exactly one of these attributes must be configured: \[name_regex,os_type\]`),
			},
			{
				Config: b.ProviderConfig() + fmt.Sprintf(`
data "reseller_template" "x" {
  plan_id    = %d
  name_regex = "(?<bad"
}
`, p.ID),
				ExpectError: acctest.ErrorRegexp(`Invalid regular expression.*name_regex`),
			},
		},
	})
}
