package acctest

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// SkipWithoutQuery skips a test of list resources on a CLI without `terraform query`: Terraform
// before 1.14, and OpenTofu (1.12 has no list resources; its versions are below 1.14 too).
func SkipWithoutQuery() tfversion.TerraformVersionCheck {
	return tfversion.SkipBelow(tfversion.Version1_14_0)
}

// ListBlock is a list block of a .tfquery.hcl for the list resource TYPE.NAME with the given
// config lines (none: no config block) and, with includeResource, include_resource = true.
func ListBlock(typ, name string, includeResource bool, config ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "list %q %q {\n  provider = reseller\n", typ, name)
	if includeResource {
		b.WriteString("  include_resource = true\n")
	}
	if len(config) > 0 {
		b.WriteString("  config {\n    " + strings.Join(config, "\n    ") + "\n  }\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// ExpectFound checks that the list block at address (TYPE.NAME) found exactly the objects whose
// identities are ids (identity attributes other than id must be null, as a list of
// summaries leaves them).
func ExpectFound(address string, ids []int64, nullAttrs ...string) []querycheck.QueryResultCheck {
	checks := []querycheck.QueryResultCheck{querycheck.ExpectLength(address, len(ids))}
	for _, id := range ids {
		identity := map[string]knownvalue.Check{"id": knownvalue.Int64Exact(id)}
		for _, name := range nullAttrs {
			identity[name] = knownvalue.Null()
		}
		checks = append(checks, querycheck.ExpectIdentity(address, identity))
	}
	return checks
}
