package serverplan

import (
	"testing"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil/schemacheck"
)

func samplePlan() client.Plan {
	return client.Plan{
		ID: 7, Name: "Small", Type: "cloud", CPU: 2, Memory: 4, Disk: 40, TermFilter: "hourly",
		Prices:      []client.Price{{Term: "hourly", Price: 0.01, Currency: "USD"}},
		CreationFee: 0.5,
		Templates:   []client.Template{{ID: 1, Name: "Ubuntu", OSType: "linux"}},
		Features:    []client.Feature{{ID: 3, Name: "IPv4", Price: 0.002, RequiredForOSTypes: []string{"windows"}}},
		Actions:     []string{"reboot"},
		Datacenter:  &client.Datacenter{ID: 2},
		Location:    &client.Location{ID: 5, DatacenterID: 2, CountryCode: "DE"},
		Traffic:     &client.PlanTraffic{Included: 1000},
	}
}

func TestModelsMatchSchemas(t *testing.T) {
	plans := PlansSchema()
	items := schemacheck.Nested(t, plans.Attributes, "plans")
	schemacheck.Fields(t, "reseller_plans.plans", ItemModel{}, items)
	schemacheck.Fields(t, "reseller_plans.plans.templates", TemplateModel{}, schemacheck.Nested(t, items, "templates"))
	schemacheck.Fields(t, "reseller_plans.plans.features", FeatureModel{}, schemacheck.Nested(t, items, "features"))

	single := Schema()
	schemacheck.Fields(t, "reseller_plan.templates", TemplateModel{}, schemacheck.Nested(t, single.Attributes, "templates"))
	schemacheck.Fields(t, "reseller_plan.features", FeatureModel{}, schemacheck.Nested(t, single.Attributes, "features"))

	schemacheck.DataSource(t, "reseller_plans", plans, PlansModel{Plans: newItems([]client.Plan{samplePlan(), {ID: 8}})})
	var m Model
	m.setPlan(samplePlan())
	schemacheck.DataSource(t, "reseller_plan", single, m)
}

func TestSelectPlans(t *testing.T) {
	hourly := func(id int64, price float64, cpu int64, typ, name string) client.Plan {
		return client.Plan{ID: id, Name: name, Type: typ, CPU: cpu, Memory: cpu * 2, Disk: cpu * 20,
			Prices: []client.Price{{Term: "hourly", Price: price}}}
	}
	status := "maintenance"
	maintenance := hourly(5, 0.001, 4, "cloud", "Closed")
	maintenance.Datacenter = &client.Datacenter{ID: 3, Enabled: true, Status: &status}
	local, apart := true, false
	onDisk := hourly(6, 0.03, 1, "cloud", "Local")
	onDisk.Datacenter = &client.Datacenter{ID: 2, Enabled: true, LocalSnapshots: &local}
	kept := hourly(7, 0.04, 1, "cloud", "Kept")
	kept.Datacenter = &client.Datacenter{ID: 1, Enabled: true, LocalSnapshots: &apart}
	all := []client.Plan{
		hourly(4, 0.02, 2, "cloud", "Medium"),
		hourly(2, 0.01, 1, "cloud", "Small"),
		hourly(1, 0.02, 2, "dedicated", "Medium-D"),
		{ID: 9, Name: "No price"},
		hourly(3, 0.08, 8, "cloud", "Large"),
		maintenance,
		onDisk, kept,
	}
	tests := []struct {
		name string
		f    filter
		want []int64
	}{
		{"all sorted by price then id", filter{}, []int64{2, 1, 4, 6, 7, 3, 9}},
		{"min cpu", filter{minCPU: 2}, []int64{1, 4, 3}},
		{"max price excludes unpriced", filter{maxPrice: 0.02, hasMaxPrice: true}, []int64{2, 1, 4}},
		{"type", filter{typ: "dedicated"}, []int64{1}},
		{"nothing", filter{minCPU: 64}, []int64{}},
		{"include unavailable", filter{minCPU: 4, includeUnavailable: true}, []int64{5, 3}},
		// Plans whose datacenter does not say are left out of both answers.
		{"snapshots outlive the server", filter{localSnapshots: &apart}, []int64{7}},
		{"snapshots on the server's disk", filter{localSnapshots: &local}, []int64{6}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := selectPlans(all, tc.f)
			ids := make([]int64, 0, len(got))
			for _, p := range got {
				ids = append(ids, p.ID)
			}
			if len(ids) != len(tc.want) {
				t.Fatalf("got ids %v, want %v", ids, tc.want)
			}
			for i := range ids {
				if ids[i] != tc.want[i] {
					t.Fatalf("got ids %v, want %v", ids, tc.want)
				}
			}
		})
	}
}
