package instance_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
)

// TestAccInstance_planChecksReplacementAtLimit_terraform116: the replacement case of the run-wide
// plan checks on Terraform 1.16, which keeps a provider's planned private data from plan to
// apply. The replacement of a server on an account at its server_limit is recognised through
// the private data its plan marked (plan_tally.go), so plan_checks = "error" lets the saved plan
// through, and its apply (another provider process) replaces the server with one order.
func TestAccInstance_planChecksReplacementAtLimit_terraform116(t *testing.T) {
	b := acctest.StartBackend(t, acctest.WithLimits(1, 5))
	config := func(hostname string) string {
		return withPlanChecks(b, "error") + fmt.Sprintf("\nresource \"reseller_instance\" \"test\" {\n  %s\n  %s\n  %s\n}\n",
			acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu), acctest.Attr("hostname", hostname))
	}
	var first string
	tc := steps(t, b,
		resource.TestStep{
			Config: config("a.example"),
			Check: func(s *terraform.State) error {
				first = s.RootModule().Resources[res].Primary.ID
				return nil
			},
		},
		resource.TestStep{
			Config: config("b.example"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{acctest.Check(res, "hostname", knownvalue.StringExact("b.example"))},
			Check: func(s *terraform.State) error {
				rs := s.RootModule().Resources[res]
				if rs.Primary.ID == first {
					return fmt.Errorf("server %s was not replaced", first)
				}
				if n := b.Requests("POST /instances"); n != 2 {
					return fmt.Errorf("orders: got %d POST /instances, want 2 (one server, then its replacement)", n)
				}
				return nil
			},
		},
	)
	tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{acctest.SkipBelow1_16(t)}
	resource.ParallelTest(t, tc)
}
