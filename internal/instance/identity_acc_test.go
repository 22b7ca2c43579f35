package instance_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
)

// TestAccInstance_identity: an import block names the server by its identity, or by its id,
// and the plan after either import changes nothing. Import blocks with an identity need
// Terraform 1.12 (OpenTofu 1.12 has them too).
func TestAccInstance_identity(t *testing.T) {
	b := acctest.StartBackend(t)
	config := b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu), acctest.Attr("name", "known"))
	tc := steps(t, b,
		resource.TestStep{Config: config},
		resource.TestStep{Config: config, ResourceName: res, ImportState: true, ImportStateKind: resource.ImportBlockWithResourceIdentity},
		resource.TestStep{Config: config, ResourceName: res, ImportState: true, ImportStateKind: resource.ImportBlockWithID},
	)
	tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)}
	resource.ParallelTest(t, tc)
}
