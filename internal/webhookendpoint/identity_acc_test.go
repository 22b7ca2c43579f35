package webhookendpoint_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
)

// TestAccWebhook_identity: an import block names the account's webhook by its identity
// ({ id = "webhook" }). The secret cannot be read back, so the import plans the documented
// in-place update that sends the configured secret. Import blocks with an identity need
// Terraform 1.12 (OpenTofu 1.12 has them too).
func TestAccWebhook_identity(t *testing.T) {
	b := acctest.StartBackend(t)
	config := b.ResourceConfig("reseller_webhook", acctest.Attr("url", "https://hooks.example.com/x"), acctest.Attr("secret", secretOne), acctest.Attr("verify", false))
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		Steps: []resource.TestStep{
			{Config: config},
			{Config: config, ResourceName: res, ImportState: true, ImportStateKind: resource.ImportBlockWithResourceIdentity, ExpectNonEmptyPlan: true},
		},
	})
}
