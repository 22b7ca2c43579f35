package location_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

func locationIDs(want []client.Location) knownvalue.Check {
	return acctest.Objects("locations", func(items []map[string]any) error {
		if len(items) != len(want) {
			return fmt.Errorf("got %d locations, want %d", len(items), len(want))
		}
		for i, it := range items {
			id, err := acctest.Int64Of(it, "id")
			if err != nil {
				return err
			}
			if id != want[i].ID {
				return fmt.Errorf("location %d: got id %d, want %d", i, id, want[i].ID)
			}
		}
		return nil
	})
}

func TestAccLocations_basic(t *testing.T) {
	b := acctest.StartBackend(t)
	ctx := context.Background()
	c := b.Client(t, "en")
	all, err := c.ListLocations(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 2 {
		t.Fatalf("backend: got %d locations, want at least 2", len(all))
	}
	// The datacenter of the first location, whose list must be shorter than the whole one.
	dcID := all[0].DatacenterID
	var want []client.Location
	for _, l := range all {
		if l.DatacenterID == dcID {
			want = append(want, l)
		}
	}
	if len(want) == len(all) {
		t.Fatalf("backend: every location is in datacenter %d; the filter test needs more than one datacenter", dcID)
	}
	first := all[0]

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: b.ProviderConfig() + fmt.Sprintf(`
data "reseller_locations" "all" {}

data "reseller_locations" "one_dc" {
  datacenter_id = %d
}
`, dcID),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.reseller_locations.all", tfjsonpath.New("locations"), locationIDs(all)),
				statecheck.ExpectKnownValue("data.reseller_locations.one_dc", tfjsonpath.New("locations"), locationIDs(want)),
				statecheck.ExpectKnownValue("data.reseller_locations.all", tfjsonpath.New("locations").AtSliceIndex(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
					"id":            knownvalue.Int64Exact(first.ID),
					"datacenter_id": knownvalue.Int64Exact(first.DatacenterID),
					"name":          knownvalue.StringExact(first.Name),
					"country":       knownvalue.StringExact(first.Country),
					"country_code":  knownvalue.StringExact(first.CountryCode),
					"flag":          knownvalue.StringExact(*first.Flag),
					"active":        knownvalue.Bool(first.Active),
					"status":        knownvalue.StringExact(*first.Status),
				})),
			},
		}},
	})
}
