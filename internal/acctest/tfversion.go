package acctest

import (
	"fmt"
	"strings"
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
// are below it, and OpenTofu has none of them. The test must be named *_terraform116
// (RequireNewFeatureName): the release candidate's leg of .ci/testacc-matrix runs those alone.
func SkipBelow1_16(t *testing.T) tfversion.TerraformVersionCheck {
	t.Helper()
	RequireNewFeatureName(t, Terraform116)
	return tfversion.SkipBelow(Version1_16_0)
}

// Terraform116 ends the name of every test of a feature Terraform 1.16 adds.
const Terraform116 = "_terraform116"

// RequireNewFeatureName fails a test of a feature a Terraform release adds whose top-level name
// does not end in suffix. .ci/testacc-matrix runs a release candidate's leg (1.16.0-rc2) on
// those tests alone (-run '_terraform116$'): what the candidate shares with the newest release
// runs on that release's leg. A test of a 1.16 feature named otherwise would run on no 1.16 CLI
// in .ci/run, so its name is checked where it asks for the feature, on every CLI.
func RequireNewFeatureName(t *testing.T, suffix string) {
	t.Helper()
	if !hasNewFeatureName(t.Name(), suffix) {
		t.Fatalf("%s tests a feature of a newer Terraform: its name must end in %s, which the release candidate's leg of .ci/testacc-matrix runs", t.Name(), suffix)
	}
}

// hasNewFeatureName tells whether the top-level test of name (a subtest's name starts with its
// parent's, up to a slash) ends in suffix.
func hasNewFeatureName(name, suffix string) bool {
	top, _, _ := strings.Cut(name, "/")
	return strings.HasSuffix(top, suffix)
}

// NewCLI1_16 is NewCLI for a test of a Terraform 1.16 feature whose proof is in the CLI's own
// output (a warning of an action's result, which terraform-plugin-testing does not show): on
// an older Terraform, or on OpenTofu, the test is skipped with the reason before the provider is
// built.
func NewCLI1_16(t *testing.T) *CLI {
	t.Helper()
	RequireNewFeatureName(t, Terraform116)
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
