package provider_test

import (
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
)

// TestAccProvider_validateCatchesBadEndpoint runs `terraform validate` itself (no plan, no
// configured provider, no backend) on a provider block with a malformed endpoint and an unknown
// plan_checks mode: it must fail and name both attributes.
func TestAccProvider_validateCatchesBadEndpoint(t *testing.T) {
	cli := acctest.NewCLI(t)
	cli.Write("main.tf", acctest.ProviderRequirement()+`
provider "reseller" {
  endpoint    = "not a url"
  api_key     = "k"
  plan_checks = "loud"
}
`+accountData)
	out, _ := cli.Run([]string{"validate"}, 1)
	for _, want := range []string{`Invalid URL`, `endpoint value "not a url" is not a usable URL`, `Invalid plan_checks`} {
		if !strings.Contains(out, want) {
			t.Errorf("terraform validate output lacks %q:\n%s", want, out)
		}
	}

	cli.Write("main.tf", acctest.ProviderRequirement()+`
provider "reseller" {
  endpoint = "http://127.0.0.1:1/api/v1"
  api_key  = "k"
}
`+accountData)
	if out, code := cli.Run([]string{"validate"}, 0, 1); code != 0 {
		t.Errorf("terraform validate of a good block exited %d:\n%s", code, out)
	}
}
