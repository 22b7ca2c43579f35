package instance_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/echoprovider"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/provider"
)

// woRootPassword is the write-only input the test sends; it must never appear in the state.
const woRootPassword = "wo-Root-Secret-4711"

// TestAccInstance_appInputsWriteOnly sends an app input through app_inputs_wo: a key the app does
// not have is refused by the API (so the write-only map is really sent), a good one is applied
// and never reaches the state, and a new app_inputs_wo_version replaces the server.
func TestAccInstance_appInputsWriteOnly(t *testing.T) {
	b := acctest.StartBackend(t)
	config := func(key string, version int) string {
		return b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planMedium), acctest.Attr("template_id", tmplUbuntu),
			`apps = ["mysql"]`, `app_inputs = { mysql = { DATABASE = "shop" } }`,
			fmt.Sprintf(`app_inputs_wo = { mysql = { %s = %q } }`, key, woRootPassword),
			acctest.Attr("app_inputs_wo_version", version))
	}
	tc := steps(t, b,
		resource.TestStep{
			Config:      config("NOT_AN_INPUT", 1),
			ExpectError: acctest.ErrorRegexp(`app_inputs\.mysql\.NOT_AN_INPUT`),
		},
		resource.TestStep{
			Config: config("ROOT_PASSWORD", 1),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ExpectAbsentFromState("app_inputs_wo's ROOT_PASSWORD", woRootPassword),
				acctest.ExpectPresentInState("app_inputs' DATABASE", "shop"),
				acctest.Check(res, "app_inputs_wo", knownvalue.Null()),
				acctest.Check(res, "app_inputs_wo_version", knownvalue.Int64Exact(1)),
			},
		},
		resource.TestStep{
			Config: config("ROOT_PASSWORD", 2),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ExpectAbsentFromState("app_inputs_wo's ROOT_PASSWORD", woRootPassword),
			},
		},
	)
	tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)}
	resource.ParallelTest(t, tc)
}

// TestAccInstance_storePassword keeps the password out of the state with store_password = false,
// reads it when needed through reseller_instance_credentials (copied out by the echo provider,
// since an ephemeral value is never in the state), then stores it again and drops it again in
// place.
func TestAccInstance_storePassword(t *testing.T) {
	b := acctest.StartBackend(t)
	instance := func(store bool) string {
		return b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu),
			acctest.Attr("store_password", store))
	}
	withCredentials := instance(false) + `
ephemeral "reseller_instance_credentials" "login" {
  instance_id = reseller_instance.test.id
}

provider "echo" {
  data = ephemeral.reseller_instance_credentials.login
}

resource "echo" "login" {}
`
	apiPassword := func(s *terraform.State) (string, error) {
		in, err := b.Client(t, "en").GetInstance(context.Background(), instanceOf(t, b, s).ID, false)
		if err != nil {
			return "", fmt.Errorf("reading the password from the API: %w", err)
		}
		if in.Credentials == nil || in.Credentials.Password == nil {
			return "", fmt.Errorf("instance %d: the API has no password", in.ID)
		}
		return *in.Credentials.Password, nil
	}
	echoMatchesAPI := func(s *terraform.State) error {
		want, err := apiPassword(s)
		if err != nil {
			return err
		}
		if got := s.RootModule().Resources["echo.login"].Primary.Attributes["data.password"]; got != want {
			return fmt.Errorf("credentials password: got %d characters not matching the API's, want the API's password", len(got))
		}
		return nil
	}
	tc := steps(t, b,
		resource.TestStep{
			Config: withCredentials,
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "password", knownvalue.Null()),
				acctest.Check(res, "store_password", knownvalue.Bool(false)),
				acctest.Check(res, "username", acctest.NotEmpty()),
				statecheck.ExpectKnownValue("echo.login", tfjsonpath.New("data").AtMapKey("username"), knownvalue.StringExact("root")),
				statecheck.ExpectKnownValue("echo.login", tfjsonpath.New("data").AtMapKey("port"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue("echo.login", tfjsonpath.New("data").AtMapKey("ipv4"), acctest.NotEmpty()),
			},
			Check: echoMatchesAPI,
		},
		resource.TestStep{
			Config: instance(true),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{acctest.Check(res, "password", acctest.NotEmpty())},
		},
		resource.TestStep{
			Config: instance(false),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{acctest.Check(res, "password", knownvalue.Null())},
		},
		resource.TestStep{
			// A refresh keeps it null, so the plan stays empty.
			RefreshState: true,
			Check:        resource.TestCheckNoResourceAttr(res, "password"),
		},
	)
	tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_10_0)}
	tc.ProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
		provider.TypeName: acctest.ProtoV6ProviderFactories[provider.TypeName],
		"echo":            echoprovider.NewProviderServer(),
	}
	resource.ParallelTest(t, tc)
}
