package instance_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/echoprovider"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/provider"
)

// TestAccConsole_ephemeral opens a console on a new server. Ephemeral values never reach the
// state, so the echo provider (terraform-plugin-testing's test helper) copies them into its own
// resource for the assertion.
func TestAccConsole_ephemeral(t *testing.T) {
	b := acctest.StartBackend(t)
	config := b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu)) + `
ephemeral "reseller_console" "c" {
  instance_id = reseller_instance.test.id
}

provider "echo" {
  data = ephemeral.reseller_console.c
}

resource "echo" "console" {}
`
	tc := steps(t, b, resource.TestStep{
		Config: config,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("echo.console", tfjsonpath.New("data").AtMapKey("console_url"),
				knownvalue.StringRegexp(regexp.MustCompile(`^https?://`))),
			statecheck.ExpectKnownValue("echo.console", tfjsonpath.New("data").AtMapKey("console_password"),
				knownvalue.StringRegexp(regexp.MustCompile(`.`))),
			statecheck.ExpectKnownValue("echo.console", tfjsonpath.New("data").AtMapKey("instance_id"), knownvalue.NotNull()),
		},
	})
	tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_10_0)}
	tc.ProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
		provider.TypeName: acctest.ProtoV6ProviderFactories[provider.TypeName],
		"echo":            echoprovider.NewProviderServer(),
	}
	resource.ParallelTest(t, tc)
}

// TestAccConsole_unsupported: a plan without the console action gives a clear error.
func TestAccConsole_unsupported(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	config := b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planOther), acctest.Attr("template_id", tmplUbuntu)) + `
ephemeral "reseller_console" "c" {
  instance_id = reseller_instance.test.id
}

provider "echo" {
  data = ephemeral.reseller_console.c
}

resource "echo" "console" {}
`
	tc := steps(t, b, resource.TestStep{
		Config:      config,
		ExpectError: acctest.ErrorRegexp(`Unable to open a console.*validation_error`),
	})
	tc.ProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
		provider.TypeName: acctest.ProtoV6ProviderFactories[provider.TypeName],
		"echo":            echoprovider.NewProviderServer(),
	}
	resource.ParallelTest(t, tc)
}
