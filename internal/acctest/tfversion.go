package acctest

import (
	"fmt"
	"testing"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// Version1_16_0 is the first Terraform with actions on before_destroy and after_destroy (and
// the `caller` symbol in action configurations), action_trigger's on_failure, a resource's
// lifecycle { destroy = false }, and planned private data kept from plan to apply.
// terraform-plugin-testing v1.16.0 names versions up to 1.15 only.
var Version1_16_0 = version.Must(version.NewVersion("1.16.0"))

// SkipBelow1_16 skips a test of those features on an older CLI. SkipBelow compares core
// versions, so the release candidates (1.16.0-rc2) run the test; OpenTofu's versions (1.12)
// are below it, and OpenTofu has none of them.
func SkipBelow1_16() tfversion.TerraformVersionCheck {
	return tfversion.SkipBelow(Version1_16_0)
}

// NewCLI1_16 is NewCLI for a test of a Terraform 1.16 feature whose proof is in the CLI's own
// output (a warning of an action's result, which terraform-plugin-testing does not show): on
// an older Terraform, or on OpenTofu, the test is skipped with the reason before the provider is
// built.
func NewCLI1_16(t *testing.T) *CLI {
	t.Helper()
	c := newCLI(t)
	if reason := c.below1_16(); reason != "" {
		t.Skip(reason)
	}
	c.install()
	return c
}

// below1_16 says why the CLI lacks Terraform 1.16's features, or "" when it has them.
func (c *CLI) below1_16() string {
	name, major, minor := c.version()
	if name != "Terraform" || major < 1 || major == 1 && minor < 16 {
		return fmt.Sprintf("this test needs Terraform 1.16 (actions on destroy, on_failure, lifecycle destroy = false); this CLI is %s %d.%d", name, major, minor)
	}
	return ""
}
