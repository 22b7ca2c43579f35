package serverplan_test

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// listed returns every plan the API lists for the test account, orderable now or not.
func listed(t *testing.T, b *acctest.Backend, lang string) []client.Plan {
	t.Helper()
	plans, err := b.Client(t, lang).ListPlans(context.Background(), client.PlanFilter{})
	if err != nil {
		t.Fatalf("listing plans from the backend: %v", err)
	}
	return plans
}

func orderable(p client.Plan) bool {
	return p.Datacenter.Enabled && p.Datacenter.Status != nil && *p.Datacenter.Status == "available"
}

// catalogue returns the plans the test account may order now, which the data sources consider
// by default.
func catalogue(t *testing.T, b *acctest.Backend, lang string) []client.Plan {
	t.Helper()
	var out []client.Plan
	for _, p := range listed(t, b, lang) {
		if orderable(p) {
			out = append(out, p)
		}
	}
	if len(out) < 3 {
		t.Fatalf("backend catalogue: got %d orderable plans, want at least 3", len(out))
	}
	return out
}

func hourly(t *testing.T, p client.Plan) float64 {
	t.Helper()
	price, ok := p.HourlyPrice()
	if !ok {
		t.Fatalf("plan %d has no hourly price", p.ID)
	}
	return price
}

// byPrice sorts like the data source promises: hourly price, then id.
func byPrice(t *testing.T, plans []client.Plan) []client.Plan {
	out := append([]client.Plan(nil), plans...)
	sort.SliceStable(out, func(i, j int) bool {
		pi, pj := hourly(t, out[i]), hourly(t, out[j])
		if pi != pj {
			return pi < pj
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func idsOf(path string) func(items []map[string]any) ([]int64, error) {
	return func(items []map[string]any) ([]int64, error) {
		out := make([]int64, 0, len(items))
		for _, it := range items {
			id, err := acctest.Int64Of(it, path)
			if err != nil {
				return nil, err
			}
			out = append(out, id)
		}
		return out, nil
	}
}

// planIDs checks the ids of the plans list, in order.
func planIDs(want []client.Plan) knownvalue.Check {
	return acctest.Objects("plan ids in order", func(items []map[string]any) error {
		got, err := idsOf("id")(items)
		if err != nil {
			return err
		}
		if len(got) != len(want) {
			return fmt.Errorf("got ids %v, want %d plans %v", got, len(want), wantIDs(want))
		}
		for i := range got {
			if got[i] != want[i].ID {
				return fmt.Errorf("got ids %v, want %v", got, wantIDs(want))
			}
		}
		return nil
	})
}

func wantIDs(plans []client.Plan) []int64 {
	out := make([]int64, 0, len(plans))
	for _, p := range plans {
		out = append(out, p.ID)
	}
	return out
}

func TestAccPlans_basic(t *testing.T) {
	b := acctest.StartBackend(t)
	sorted := byPrice(t, catalogue(t, b, "en"))
	first := sorted[0]
	path := tfjsonpath.New("plans").AtSliceIndex(0)

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: b.ProviderConfig() + `data "reseller_plans" "all" {}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.reseller_plans.all", tfjsonpath.New("plans"), planIDs(sorted)),
				statecheck.ExpectKnownValue("data.reseller_plans.all", path.AtMapKey("name"), knownvalue.StringExact(first.Name)),
				statecheck.ExpectKnownValue("data.reseller_plans.all", path.AtMapKey("type"), knownvalue.StringExact(first.Type)),
				statecheck.ExpectKnownValue("data.reseller_plans.all", path.AtMapKey("cpu"), knownvalue.Int64Exact(first.CPU)),
				statecheck.ExpectKnownValue("data.reseller_plans.all", path.AtMapKey("memory"), knownvalue.Int64Exact(first.Memory)),
				statecheck.ExpectKnownValue("data.reseller_plans.all", path.AtMapKey("disk"), knownvalue.Int64Exact(first.Disk)),
				statecheck.ExpectKnownValue("data.reseller_plans.all", path.AtMapKey("price"), knownvalue.Float64Exact(hourly(t, first))),
				statecheck.ExpectKnownValue("data.reseller_plans.all", path.AtMapKey("creation_fee"), knownvalue.Float64Exact(first.CreationFee)),
				statecheck.ExpectKnownValue("data.reseller_plans.all", path.AtMapKey("datacenter_id"), knownvalue.Int64Exact(first.Datacenter.ID)),
				statecheck.ExpectKnownValue("data.reseller_plans.all", path.AtMapKey("location_id"), knownvalue.Int64Exact(first.Location.ID)),
				statecheck.ExpectKnownValue("data.reseller_plans.all", path.AtMapKey("country_code"), knownvalue.StringExact(first.Location.CountryCode)),
				statecheck.ExpectKnownValue("data.reseller_plans.all", path.AtMapKey("templates"), knownvalue.ListSizeExact(len(first.Templates))),
				statecheck.ExpectKnownValue("data.reseller_plans.all", path.AtMapKey("templates").AtSliceIndex(0).AtMapKey("id"),
					knownvalue.Int64Exact(first.Templates[0].ID)),
				statecheck.ExpectKnownValue("data.reseller_plans.all", path.AtMapKey("features"), knownvalue.ListSizeExact(len(first.Features))),
				statecheck.ExpectKnownValue("data.reseller_plans.all", path.AtMapKey("actions"), knownvalue.ListSizeExact(len(first.Actions))),
				statecheck.ExpectKnownValue("data.reseller_plans.all", path.AtMapKey("traffic_included"), knownvalue.Int64Exact(first.Traffic.Included)),
				statecheck.ExpectKnownValue("data.reseller_plans.all", path.AtMapKey("available"), knownvalue.Bool(true)),
			},
		}},
	})
}

// TestAccPlans_filters applies every filter at once; the expected plans are computed here from
// the backend's own list.
func TestAccPlans_filters(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	all := catalogue(t, b, "en")
	// Filter on the datacenter and country of the most expensive plan, which leaves cheaper
	// plans of other sizes in the same place to be cut by the size and price filters.
	top := byPrice(t, all)[len(all)-1]
	dc, country := top.Datacenter.ID, top.Location.CountryCode
	const minCPU, minMemory, minDisk = 2, 2, 40
	maxPrice := hourly(t, top)
	var want []client.Plan
	for _, p := range all {
		if p.Datacenter.ID == dc && p.Location.CountryCode == country && p.CPU >= minCPU && p.Memory >= minMemory &&
			p.Disk >= minDisk && hourly(t, p) <= maxPrice && p.Type == top.Type {
			want = append(want, p)
		}
	}
	want = byPrice(t, want)

	config := b.ProviderConfig() + fmt.Sprintf(`
data "reseller_plans" "some" {
  datacenter_id = %d
  country_code  = %q
  min_cpu       = %d
  min_memory    = %d
  min_disk      = %d
  max_price     = %v
  type          = %q
  name_regex    = ".+"
}
`, dc, lower(country), minCPU, minMemory, minDisk, maxPrice, top.Type)

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.reseller_plans.some", tfjsonpath.New("plans"), planIDs(want)),
			},
		}},
	})
}

func lower(s string) string {
	out := []byte(s)
	for i, c := range out {
		if c >= 'A' && c <= 'Z' {
			out[i] = c + 'a' - 'A'
		}
	}
	return string(out)
}

// TestAccPlans_nameRegexAndNoMatch: a regex matching one plan's exact name finds that plan; a
// filter nothing satisfies gives an empty list, not an error.
func TestAccPlans_nameRegexAndNoMatch(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	all := catalogue(t, b, "en")
	target := all[len(all)/2]

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: b.ProviderConfig() + fmt.Sprintf(`
data "reseller_plans" "named" {
  name_regex = %q
}

data "reseller_plans" "none" {
  min_cpu = 100000
}
`, "^"+regexp.QuoteMeta(target.Name)+"$"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.reseller_plans.named", tfjsonpath.New("plans"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"id": knownvalue.Int64Exact(target.ID), "name": knownvalue.StringExact(target.Name),
					})})),
				statecheck.ExpectKnownValue("data.reseller_plans.none", tfjsonpath.New("plans"), knownvalue.ListSizeExact(0)),
			},
		}},
	})
}

// TestAccPlans_unavailable: plans of a datacenter that takes no orders (maintenance) are left
// out unless include_unavailable is set, and are marked as not available.
func TestAccPlans_unavailable(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	all := listed(t, b, "en")
	var closed client.Plan
	for _, p := range byPrice(t, all) {
		if !orderable(p) {
			closed = p
			break
		}
	}
	if closed.ID == 0 {
		t.Fatal("backend: every listed plan is orderable; want one in a datacenter under maintenance")
	}
	dc := closed.Datacenter.ID
	var closedPlans []client.Plan
	for _, p := range all {
		if p.Datacenter.ID == dc {
			closedPlans = append(closedPlans, p)
		}
	}

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: b.ProviderConfig() + fmt.Sprintf(`
data "reseller_plans" "default" {
  datacenter_id = %[1]d
}

data "reseller_plans" "all" {
  datacenter_id       = %[1]d
  include_unavailable = true
}

data "reseller_plan" "by_id" {
  id = %[2]d
}
`, dc, closed.ID),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.reseller_plans.default", tfjsonpath.New("plans"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue("data.reseller_plans.all", tfjsonpath.New("plans"), planIDs(byPrice(t, closedPlans))),
					statecheck.ExpectKnownValue("data.reseller_plans.all", tfjsonpath.New("plans").AtSliceIndex(0).AtMapKey("available"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue("data.reseller_plan.by_id", tfjsonpath.New("available"), knownvalue.Bool(false)),
				},
			},
			{
				Config:      b.ProviderConfig() + fmt.Sprintf(`data "reseller_plan" "x" { datacenter_id = %d }`, dc),
				ExpectError: acctest.ErrorRegexp(fmt.Sprintf(`No plan matches the filters.*datacenter_id = %d.*include_unavailable = true`, dc)),
			},
		},
	})
}

func TestAccPlans_invalidInput(t *testing.T) {
	b := acctest.StartBackend(t)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      b.ProviderConfig() + `data "reseller_plans" "bad" { name_regex = "([" }`,
				ExpectError: acctest.ErrorRegexp(`Invalid regular expression.*name_regex`),
			},
			{
				Config:      b.ProviderConfig() + `data "reseller_plans" "bad" { country_code = "Germany" }`,
				ExpectError: acctest.ErrorRegexp(`country_code.*two-letter ISO 3166-1 country code`),
			},
			{
				Config:      b.ProviderConfig() + `data "reseller_plans" "bad" { max_price = -1 }`,
				ExpectError: acctest.ErrorRegexp(`max_price.*at least 0`),
			},
		},
	})
}

// arabicScript matches a name written in Persian.
var arabicScript = regexp.MustCompile(`\p{Arabic}`)

func TestAccPlans_persian(t *testing.T) {
	b := acctest.StartBackend(t)
	sortedFA := byPrice(t, catalogue(t, b, "fa"))
	if !arabicScript.MatchString(sortedFA[0].Name) {
		t.Fatalf("backend Persian plan name: got %q, want Persian script", sortedFA[0].Name)
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: b.ProviderConfigLanguage("fa") + `data "reseller_plans" "all" {}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.reseller_plans.all", tfjsonpath.New("plans").AtSliceIndex(0).AtMapKey("name"),
					knownvalue.StringExact(sortedFA[0].Name)),
				statecheck.ExpectKnownValue("data.reseller_plans.all", tfjsonpath.New("plans").AtSliceIndex(0).AtMapKey("name"),
					knownvalue.StringRegexp(arabicScript)),
			},
		}},
	})
}

func TestAccPlan_byID(t *testing.T) {
	b := acctest.StartBackend(t)
	all := catalogue(t, b, "en")
	target := byPrice(t, all)[len(all)-1]
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: b.ProviderConfig() + fmt.Sprintf(`data "reseller_plan" "one" { id = %d }`, target.ID),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.reseller_plan.one", tfjsonpath.New("id"), knownvalue.Int64Exact(target.ID)),
				statecheck.ExpectKnownValue("data.reseller_plan.one", tfjsonpath.New("name"), knownvalue.StringExact(target.Name)),
				statecheck.ExpectKnownValue("data.reseller_plan.one", tfjsonpath.New("price"), knownvalue.Float64Exact(hourly(t, target))),
				statecheck.ExpectKnownValue("data.reseller_plan.one", tfjsonpath.New("creation_fee"), knownvalue.Float64Exact(target.CreationFee)),
				statecheck.ExpectKnownValue("data.reseller_plan.one", tfjsonpath.New("datacenter_id"), knownvalue.Int64Exact(target.Datacenter.ID)),
				statecheck.ExpectKnownValue("data.reseller_plan.one", tfjsonpath.New("country_code"), knownvalue.StringExact(target.Location.CountryCode)),
				statecheck.ExpectKnownValue("data.reseller_plan.one", tfjsonpath.New("type"), knownvalue.StringExact(target.Type)),
				statecheck.ExpectKnownValue("data.reseller_plan.one", tfjsonpath.New("templates"), knownvalue.ListSizeExact(len(target.Templates))),
				statecheck.ExpectKnownValue("data.reseller_plan.one", tfjsonpath.New("features").AtSliceIndex(0).AtMapKey("price"),
					knownvalue.Float64Exact(target.Features[0].Price)),
				statecheck.ExpectKnownValue("data.reseller_plan.one", tfjsonpath.New("min_cpu"), knownvalue.Null()),
			},
		}},
	})
}

// TestAccPlan_cheapest finds the cheapest plan with filters, chained from reseller_plans.
func TestAccPlan_cheapest(t *testing.T) {
	b := acctest.StartBackend(t)
	all := catalogue(t, b, "en")
	const minCPU = 2
	var want []client.Plan
	for _, p := range all {
		if p.CPU >= minCPU {
			want = append(want, p)
		}
	}
	want = byPrice(t, want)
	country := want[0].Location.CountryCode

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: b.ProviderConfig() + fmt.Sprintf(`
data "reseller_plan" "cheapest" {
  min_cpu = %d
}

data "reseller_plan" "here" {
  min_cpu      = %d
  country_code = %q
  max_price    = data.reseller_plan.cheapest.price
}
`, minCPU, minCPU, country),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.reseller_plan.cheapest", tfjsonpath.New("id"), knownvalue.Int64Exact(want[0].ID)),
				statecheck.ExpectKnownValue("data.reseller_plan.cheapest", tfjsonpath.New("price"), knownvalue.Float64Exact(hourly(t, want[0]))),
				statecheck.ExpectKnownValue("data.reseller_plan.cheapest", tfjsonpath.New("country_code"), knownvalue.StringExact(country)),
				statecheck.ExpectKnownValue("data.reseller_plan.here", tfjsonpath.New("id"), knownvalue.Int64Exact(want[0].ID)),
			},
		}},
	})
}

func TestAccPlan_errors(t *testing.T) {
	b := acctest.StartBackend(t)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      b.ProviderConfig() + `data "reseller_plan" "x" { id = 987654 }`,
				ExpectError: acctest.ErrorRegexp(`plan 987654 not found`),
			},
			{
				Config: b.ProviderConfig() + `
data "reseller_plan" "x" {
  min_cpu = 100000
  type    = "standard"
}
`,
				ExpectError: acctest.ErrorRegexp(`No plan matches the filters.*min_cpu = 100000.*type = "standard"`),
			},
			{
				Config: b.ProviderConfig() + `
data "reseller_plan" "x" {
  id      = 1
  min_cpu = 2
}
`,
				ExpectError: acctest.ErrorRegexp(`Invalid Attribute Combination.*id.*min_cpu`),
			},
			{
				Config:      b.ProviderConfig() + `data "reseller_plan" "x" { name_regex = "*" }`,
				ExpectError: acctest.ErrorRegexp(`Invalid regular expression`),
			},
		},
	})
}

// TestAccPlan_localSnapshots: resellerd's local_snapshots extension is shown on every plan and
// chooses, before any server exists, the cheapest plan whose snapshots outlive the server (or
// the cheapest whose snapshots end with it); reseller_datacenters shows it too.
func TestAccPlan_localSnapshots(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	var local, apart []client.Plan
	for _, p := range catalogue(t, b, "en") {
		if p.Datacenter.LocalSnapshots == nil {
			t.Fatalf("plan %d: the backend sends no local_snapshots", p.ID)
		}
		if *p.Datacenter.LocalSnapshots {
			local = append(local, p)
		} else {
			apart = append(apart, p)
		}
	}
	if len(local) == 0 || len(apart) == 0 {
		t.Fatalf("backend catalogue: %d plans with local snapshots, %d without; want some of each", len(local), len(apart))
	}
	local, apart = byPrice(t, local), byPrice(t, apart)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: b.ProviderConfig() + `
data "reseller_plan" "outlives" {
  local_snapshots = false
}

data "reseller_plan" "on_disk" {
  local_snapshots = true
}

data "reseller_plans" "outlive" {
  local_snapshots = false
}

data "reseller_plan" "by_id" {
  id = data.reseller_plan.on_disk.id
}

data "reseller_datacenters" "all" {}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.reseller_plan.outlives", tfjsonpath.New("id"), knownvalue.Int64Exact(apart[0].ID)),
				statecheck.ExpectKnownValue("data.reseller_plan.outlives", tfjsonpath.New("local_snapshots"), knownvalue.Bool(false)),
				statecheck.ExpectKnownValue("data.reseller_plan.on_disk", tfjsonpath.New("id"), knownvalue.Int64Exact(local[0].ID)),
				statecheck.ExpectKnownValue("data.reseller_plan.by_id", tfjsonpath.New("local_snapshots"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue("data.reseller_plans.outlive", tfjsonpath.New("plans"), acctest.Objects(
					fmt.Sprintf("the %d plans whose snapshots outlive the server, each local_snapshots = false", len(apart)),
					func(items []map[string]any) error {
						if len(items) != len(apart) {
							return fmt.Errorf("got %d plans, want %d", len(items), len(apart))
						}
						for i, item := range items {
							id, err := acctest.Int64Of(item, "id")
							if err != nil {
								return err
							}
							if id != apart[i].ID || item["local_snapshots"] != false {
								return fmt.Errorf("plan %d: id %d, local_snapshots %v; want id %d, false", i, id, item["local_snapshots"], apart[i].ID)
							}
						}
						return nil
					})),
				statecheck.ExpectKnownValue("data.reseller_datacenters.all", tfjsonpath.New("datacenters"), knownvalue.ListPartial(map[int]knownvalue.Check{
					0: knownvalue.ObjectPartial(map[string]knownvalue.Check{"id": knownvalue.Int64Exact(1), "local_snapshots": knownvalue.Bool(false)}),
					1: knownvalue.ObjectPartial(map[string]knownvalue.Check{"id": knownvalue.Int64Exact(2), "local_snapshots": knownvalue.Bool(true)}),
				})),
			},
		}},
	})
}
