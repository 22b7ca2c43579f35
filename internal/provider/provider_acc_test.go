package provider_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/provider"
)

const accountData = `
data "reseller_account" "me" {}
`

// TestAccProvider_envVars configures the provider from the environment alone. It cannot run in
// parallel because it sets process environment variables.
func TestAccProvider_envVars(t *testing.T) {
	b := acctest.StartBackend(t)
	t.Setenv(provider.EnvEndpoint, b.URL)
	t.Setenv(provider.EnvAPIKey, b.APIKey)
	t.Setenv(provider.EnvAltEndpoint, "")
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `provider "reseller" {}` + accountData,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.reseller_account.me", tfjsonpath.New("id"), knownvalue.Int64Exact(b.AccountID)),
			},
		}},
	})
}

// TestAccProvider_attributeWinsOverEnv points the environment at a wrong key and endpoint; the
// attributes must be used instead.
func TestAccProvider_attributeWinsOverEnv(t *testing.T) {
	b := acctest.StartBackend(t)
	t.Setenv(provider.EnvEndpoint, "http://127.0.0.1:1/api/v1")
	t.Setenv(provider.EnvAPIKey, "wrong-key")
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: b.ProviderConfig() + accountData,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.reseller_account.me", tfjsonpath.New("id"), knownvalue.Int64Exact(b.AccountID)),
			},
		}},
	})
}

// TestAccProvider_missingSettings checks that a missing key or endpoint is reported with the
// attribute and the environment variable, before any request: the endpoint used with a missing
// key has nothing listening, so a request would fail differently.
func TestAccProvider_missingSettings(t *testing.T) {
	t.Setenv(provider.EnvEndpoint, "")
	t.Setenv(provider.EnvAPIKey, "")
	t.Setenv(provider.EnvAltEndpoint, "")
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      `provider "reseller" { endpoint = "http://127.0.0.1:1/api/v1" }` + accountData,
				ExpectError: acctest.ErrorRegexp(`Missing API key.*"api_key".*RESELLER_API_KEY`),
			},
			{
				Config:      `provider "reseller" { api_key = "some-key" }` + accountData,
				ExpectError: acctest.ErrorRegexp(`Missing API endpoint.*"endpoint".*RESELLER_ENDPOINT`),
			},
		},
	})
}

// TestAccProvider_invalidEnvEndpoint: an endpoint from the environment is checked like the
// attribute, and the error names both.
func TestAccProvider_invalidEnvEndpoint(t *testing.T) {
	t.Setenv(provider.EnvEndpoint, "127.0.0.1:8080/api/v1")
	t.Setenv(provider.EnvAPIKey, "some-key")
	t.Setenv(provider.EnvAltEndpoint, "")
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      `provider "reseller" {}` + accountData,
			ExpectError: acctest.ErrorRegexp(`Invalid API endpoint.*from the RESELLER_ENDPOINT environment variable.*not a usable URL`),
		}},
	})
}

func TestAccProvider_invalidSettings(t *testing.T) {
	cases := []struct {
		name, block string
		want        *regexp.Regexp
	}{
		{
			name: "language",
			block: `
provider "reseller" {
  endpoint = "http://127.0.0.1:1/api/v1"
  api_key  = "k"
  language = "de"
}
`,
			want: acctest.ErrorRegexp(`Invalid language.*language.*"de".*not supported.*"en" "fa"`),
		},
		{
			name: "endpoint",
			block: `
provider "reseller" {
  endpoint = "ftp://example.com/api/v1"
  api_key  = "k"
}
`,
			want: acctest.ErrorRegexp(`Invalid URL.*endpoint.*scheme must be http or https`),
		},
		{
			name: "max_retries",
			block: `
provider "reseller" {
  endpoint    = "http://127.0.0.1:1/api/v1"
  api_key     = "k"
  max_retries = -1
}
`,
			want: acctest.ErrorRegexp(`max_retries.*at least 0`),
		},
		{
			name: "rate_limit_scale",
			block: `
provider "reseller" {
  endpoint         = "http://127.0.0.1:1/api/v1"
  api_key          = "k"
  rate_limit_scale = -0.5
}
`,
			want: acctest.ErrorRegexp(`rate_limit_scale.*at least 0`),
		},
		{
			name: "plan_checks",
			block: `
provider "reseller" {
  endpoint    = "http://127.0.0.1:1/api/v1"
  api_key     = "k"
  plan_checks = "loud"
}
`,
			want: acctest.ErrorRegexp(`Invalid plan_checks.*plan_checks.*"loud".*"warn" "error" "off"`),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.ParallelTest(t, resource.TestCase{
				PreCheck:                 func() { acctest.PreCheck(t) },
				ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      tc.block + accountData,
					ExpectError: tc.want,
				}},
			})
		})
	}
}

// TestAccProvider_wrongKey shows the API's error code and request id in the diagnostic.
func TestAccProvider_wrongKey(t *testing.T) {
	b := acctest.StartBackend(t)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`provider "reseller" {
  endpoint = %q
  api_key  = "not-the-key"
}`, b.URL) + accountData,
			ExpectError: acctest.ErrorRegexp(`Unable to read the account.*Error code: unauthorized.*Request ID: \S+`),
		}},
	})
}

// TestAccProvider_unknownConfig feeds the provider a value known only after apply. The plan must
// not crash; the data source explains why it cannot be read yet.
func TestAccProvider_unknownConfig(t *testing.T) {
	b := acctest.StartBackend(t)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
resource "terraform_data" "endpoint" {
  input = %q
}

provider "reseller" {
  endpoint = terraform_data.endpoint.output
  api_key  = %q
}
`, b.URL, b.APIKey) + accountData,
			ExpectError: acctest.ErrorRegexp(`Provider not configured.*not known until apply`),
		}},
	})
}
