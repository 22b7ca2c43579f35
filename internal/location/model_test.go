package location

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil/schemacheck"
)

func TestModelsMatchSchemas(t *testing.T) {
	s := Schema()
	schemacheck.Fields(t, "reseller_locations.locations", ItemModel{}, schemacheck.Nested(t, s.Attributes, "locations"))

	flag := "DE"
	schemacheck.DataSource(t, TypeName, s, Model{
		DatacenterID: types.Int64Value(1),
		Locations: newItems([]client.Location{
			{ID: 1, DatacenterID: 1, Name: "Frankfurt", Country: "Germany", CountryCode: "DE", Flag: &flag, Active: true},
		}),
	})
}
