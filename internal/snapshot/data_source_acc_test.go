package snapshot_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
)

var compareSame = compare.ValuesSame()

// snapshots is two snapshots of the source server, "a" then "b" (optional), and the data sources.
func snapshotsConfig(b *acctest.Backend, withB bool) string {
	config := server(b, planSmall, tmplDebian) + `
resource "reseller_snapshot" "a" {
  instance_id = reseller_instance.src.id
  name        = "a"
}
`
	deps := "[reseller_snapshot.a]"
	if withB {
		config += `
resource "reseller_snapshot" "b" {
  instance_id = reseller_instance.src.id
  name        = "b"
  depends_on  = [reseller_snapshot.a]
}
`
		deps = "[reseller_snapshot.a, reseller_snapshot.b]"
	}
	return config + fmt.Sprintf(`
data "reseller_snapshots" "all" {
  depends_on = %[1]s
}

data "reseller_snapshots" "of_server" {
  instance_id = reseller_instance.src.id
  depends_on  = %[1]s
}

data "reseller_snapshots" "of_server_inactive" {
  instance_id      = reseller_instance.src.id
  include_inactive = true
  depends_on       = %[1]s
}
`, deps)
}

// names checks a list of snapshots by name and status, in order.
func names(want ...string) func([]map[string]any) error {
	return func(items []map[string]any) error {
		var got []string
		for _, it := range items {
			got = append(got, fmt.Sprintf("%v:%v", it["name"], it["status"]))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("got %v, want %v", got, want)
		}
		return nil
	}
}

// TestAccSnapshots_dataSource lists the account's snapshots and a server's, newest first, with
// their fields; with include_inactive the deleted one shows too.
func TestAccSnapshots_dataSource(t *testing.T) {
	b := acctest.StartBackend(t)
	list := func(name string, fn func([]map[string]any) error) statecheck.StateCheck {
		return statecheck.ExpectKnownValue("data.reseller_snapshots."+name, tfjsonpath.New("snapshots"), acctest.Objects(name, fn))
	}
	resource.ParallelTest(t, testCase(t, b,
		resource.TestStep{
			Config: snapshotsConfig(b, true),
			ConfigStateChecks: []statecheck.StateCheck{
				list("all", names("b:available", "a:available")),
				list("of_server", names("b:available", "a:available")),
				list("of_server", func(items []map[string]any) error {
					it := items[1]
					size, err := acctest.Float64Of(it, "size_gb")
					if err != nil {
						return err
					}
					if it["os_type"] != "linux" || size != 10 || it["restore"] != true || it["source_name"] != "source" {
						return fmt.Errorf("snapshot a: got %v, want linux, 10 GB, restorable, of server source", it)
					}
					if tmpl, _ := acctest.Int64Of(it, "template_id"); tmpl != tmplDebian {
						return fmt.Errorf("template_id: got %d, want %d", tmpl, tmplDebian)
					}
					if plan, _ := acctest.Int64Of(it, "plan_id"); plan != planSmall {
						return fmt.Errorf("plan_id: got %d, want %d", plan, planSmall)
					}
					return nil
				}),
				statecheck.CompareValuePairs("data.reseller_snapshots.of_server", tfjsonpath.New("snapshots").AtSliceIndex(1).AtMapKey("id"),
					"reseller_snapshot.a", tfjsonpath.New("id"), compareSame),
			},
		},
		// Snapshot b is deleted; the data sources read during that plan still list it.
		resource.TestStep{Config: snapshotsConfig(b, false)},
		resource.TestStep{
			Config: snapshotsConfig(b, false),
			ConfigStateChecks: []statecheck.StateCheck{
				list("all", names("a:available")),
				list("of_server", names("a:available")),
				list("of_server_inactive", names("b:deleted", "a:available")),
			},
		},
	))
}
