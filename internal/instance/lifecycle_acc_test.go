package instance_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
)

// keptFleet is reseller_instance.kept with n servers (count) under Terraform 1.16's
// lifecycle { destroy = false }: a server that leaves the configuration is forgotten, not
// deleted.
func keptFleet(b *acctest.Backend, n int) string {
	return b.ProviderConfig() + fmt.Sprintf(`
resource "reseller_instance" "kept" {
  count       = %d
  plan_id     = %d
  template_id = %d
  name        = "kept-${count.index}"
  lifecycle {
    destroy = false
  }
}
`, n, planSmall, tmplUbuntu)
}

// TestAccInstance_destroyFalse_terraform116: with lifecycle { destroy = false } (Terraform 1.16) a server that
// leaves the configuration stays active and billed at the API while Terraform forgets it; an
// import block naming its identity brings the same server back, with no second order.
func TestAccInstance_destroyFalse_terraform116(t *testing.T) {
	b := acctest.StartBackend(t)
	var id int64
	// The server's id is found by name at plan time (the data source), as a user would after
	// Terraform forgot it.
	back := b.ProviderConfig() + fmt.Sprintf(`
data "reseller_instances" "all" {}

import {
  to       = reseller_instance.back
  identity = { id = one([for s in data.reseller_instances.all.instances : s.id if s.name == "kept-0"]) }
}

resource "reseller_instance" "back" {
  plan_id     = %d
  template_id = %d
  name        = "kept-0"
}
`, planSmall, tmplUbuntu)
	tc := steps(t, b,
		resource.TestStep{
			Config: keptFleet(b, 1),
			Check: func(s *terraform.State) error {
				rs, ok := s.RootModule().Resources["reseller_instance.kept.0"]
				if !ok {
					return fmt.Errorf("reseller_instance.kept[0] not in the state")
				}
				var err error
				id, err = strconv.ParseInt(rs.Primary.ID, 10, 64)
				return err
			},
		},
		resource.TestStep{
			Config: keptFleet(b, 0),
			Check: func(s *terraform.State) error {
				if n := len(s.RootModule().Resources); n != 0 {
					return fmt.Errorf("state: got %d resources, want none (the server forgotten)", n)
				}
				if err := b.CheckActiveInstances(t, id)(s); err != nil {
					return fmt.Errorf("after destroy = false: %w", err)
				}
				return nil
			},
		},
		resource.TestStep{
			Config: back,
			Check: func(s *terraform.State) error {
				rs, ok := s.RootModule().Resources["reseller_instance.back"]
				if !ok || rs.Primary.ID != strconv.FormatInt(id, 10) {
					return fmt.Errorf("reseller_instance.back: got %v, want server %d imported", rs, id)
				}
				if n := b.Requests("POST /instances"); n != 1 {
					return fmt.Errorf("orders: got %d POST /instances, want 1 (the import orders nothing)", n)
				}
				return b.CheckActiveInstances(t, id)(s)
			},
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check("reseller_instance.back", "status", knownvalue.StringExact("online")),
			},
		},
	)
	tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{acctest.SkipBelow1_16(t)}
	resource.ParallelTest(t, tc)
}
