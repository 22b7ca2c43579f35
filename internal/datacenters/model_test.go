package datacenters

import (
	"testing"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil/schemacheck"
)

func TestModelsMatchSchemas(t *testing.T) {
	s := Schema()
	schemacheck.Fields(t, "reseller_datacenters.datacenters", ItemModel{}, schemacheck.Nested(t, s.Attributes, "datacenters"))

	desc, status := "Frankfurt", "available"
	items := newItems([]client.Datacenter{
		{ID: 1, Name: "FRA", Description: &desc, Status: &status, Enabled: true,
			Terms: []client.DatacenterTerm{{Term: "hourly", Enabled: true}, {Term: "monthly", Enabled: false}}},
		{ID: 2, Name: "Bare"},
	})
	if got := len(items[0].Terms); got != 1 {
		t.Errorf("enabled terms: got %d, want 1", got)
	}
	if !items[1].Description.IsNull() || !items[1].Status.IsNull() {
		t.Errorf("nil description and status: got %v and %v, want null", items[1].Description, items[1].Status)
	}
	schemacheck.DataSource(t, TypeName, s, Model{Datacenters: items})
}
