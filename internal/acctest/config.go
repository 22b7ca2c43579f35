package acctest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// ResourceConfig is a test configuration: the provider block of b plus one resource of type
// resourceType named "test" whose body is the given lines (see Attr), so each step shows only
// the arguments it is about.
func (b *Backend) ResourceConfig(resourceType string, lines ...string) string {
	return b.ProviderConfig() + "\nresource \"" + resourceType + "\" \"test\" {\n  " +
		strings.Join(lines, "\n  ") + "\n}\n"
}

// Attr renders one argument line of a configuration, `name = value`, with a string value
// quoted as HCL wants it and any other value (numbers, booleans, HCL expressions given as
// non-strings) as Go prints it.
func Attr(name string, v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%s = %s", name, strconv.Quote(s))
	}
	return fmt.Sprintf("%s = %v", name, v)
}

// Check is a state check that the attribute at path of the resource at address (such as
// "reseller_instance.test") holds a value v accepts.
func Check(address, path string, v knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(address, tfjsonpath.New(path), v)
}

// NotEmpty accepts any string of at least one character: for computed values whose content the
// test cannot know, such as passwords and timestamps.
func NotEmpty() knownvalue.Check { return knownvalue.StringRegexp(regexp.MustCompile(`.`)) }
