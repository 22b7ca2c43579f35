package instance_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// TestAccInstances_dataSource lists the server the configuration creates, with its summary
// fields; once only_active is false it also lists a server canceled earlier outside Terraform,
// after it (newest first).
func TestAccInstances_dataSource(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	config := b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu), acctest.Attr("name", "listed")) + `
data "reseller_instances" "active" {
  depends_on = [reseller_instance.test]
}

data "reseller_instances" "all" {
  only_active = false
  depends_on  = [reseller_instance.test]
}
`
	var id, canceled int64
	resource.ParallelTest(t, steps(t, b, resource.TestStep{
		PreConfig: func() {
			tmpl := int64(tmplUbuntu)
			canceled = b.CreateServer(t, "early", client.CreateInstanceRequest{ServerID: planSmall, TemplateID: &tmpl}).ID
			b.CancelServer(t, canceled)
		},
		Config: config,
		Check: func(s *terraform.State) error {
			id = instanceOf(t, b, s).ID
			return nil
		},
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("data.reseller_instances.active", tfjsonpath.New("instances"),
				acctest.Objects("one active instance, the one created", func(items []map[string]any) error {
					if len(items) != 1 {
						return fmt.Errorf("got %d instances, want 1", len(items))
					}
					got, err := acctest.Int64Of(items[0], "id")
					if err != nil {
						return err
					}
					if got != id || items[0]["name"] != "listed" || items[0]["status"] != "online" ||
						items[0]["active"] != true {
						return fmt.Errorf("got %v, want instance %d named listed, online and active", items[0], id)
					}
					if plan, _ := acctest.Int64Of(items[0], "plan_id"); plan != planSmall {
						return fmt.Errorf("plan_id: got %d, want %d", plan, planSmall)
					}
					return nil
				})),
			statecheck.ExpectKnownValue("data.reseller_instances.all", tfjsonpath.New("instances"),
				acctest.Objects("the created server, then the canceled one", func(items []map[string]any) error {
					var got []int64
					for _, item := range items {
						n, err := acctest.Int64Of(item, "id")
						if err != nil {
							return err
						}
						got = append(got, n)
					}
					if !slices.Equal(got, []int64{id, canceled}) {
						return fmt.Errorf("got ids %v, want %v", got, []int64{id, canceled})
					}
					return nil
				})),
			statecheck.ExpectKnownValue("data.reseller_instances.active", tfjsonpath.New("only_active"), knownvalue.Null()),
		},
	}))
}
