package serverplan

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// filterNames are the filter attributes shared by reseller_plans and reseller_plan.
var filterNames = []string{
	"datacenter_id", "country_code", "min_cpu", "min_memory", "min_disk", "max_price", "type", "name_regex",
	"include_unavailable", "local_snapshots",
}

// filterValues are the filter attributes as configured.
type filterValues struct {
	DatacenterID types.Int64
	CountryCode  types.String
	MinCPU       types.Int64
	MinMemory    types.Int64
	MinDisk      types.Int64
	MaxPrice     types.Float64
	Type         types.String
	NameRegex    types.String
	// IncludeUnavailable keeps plans of datacenters that take no orders now.
	IncludeUnavailable types.Bool
	// LocalSnapshots keeps plans whose datacenter says it keeps snapshots on the server's own
	// disk (true) or apart from the server (false).
	LocalSnapshots types.Bool
}

// filter is a parsed filterValues. The datacenter and the country are sent to the API; the
// rest is applied here because the API has no parameter for them.
type filter struct {
	datacenterID int64
	countryCode  string
	minCPU       int64
	minMemory    int64
	minDisk      int64
	maxPrice     float64
	hasMaxPrice  bool
	typ          string
	nameRegex    *regexp.Regexp
	// includeUnavailable keeps plans whose datacenter takes no orders now.
	includeUnavailable bool
	// localSnapshots, when set, keeps only plans whose datacenter says its snapshots are local
	// (or not) as asked; a plan whose datacenter does not say is left out either way.
	localSnapshots *bool
	described      []string
}

// parse turns configured values into a filter. A regex that does not compile is reported on
// name_regex (the schema validator normally catches it earlier).
func (v filterValues) parse(diags *diag.Diagnostics) filter {
	var f filter
	if tfutil.IsSet(v.DatacenterID) {
		f.datacenterID = v.DatacenterID.ValueInt64()
		f.described = append(f.described, fmt.Sprintf("datacenter_id = %d", f.datacenterID))
	}
	if tfutil.IsSet(v.CountryCode) {
		f.countryCode = strings.ToUpper(v.CountryCode.ValueString())
		f.described = append(f.described, fmt.Sprintf("country_code = %q", v.CountryCode.ValueString()))
	}
	if tfutil.IsSet(v.MinCPU) {
		f.minCPU = v.MinCPU.ValueInt64()
		f.described = append(f.described, fmt.Sprintf("min_cpu = %d", f.minCPU))
	}
	if tfutil.IsSet(v.MinMemory) {
		f.minMemory = v.MinMemory.ValueInt64()
		f.described = append(f.described, fmt.Sprintf("min_memory = %d", f.minMemory))
	}
	if tfutil.IsSet(v.MinDisk) {
		f.minDisk = v.MinDisk.ValueInt64()
		f.described = append(f.described, fmt.Sprintf("min_disk = %d", f.minDisk))
	}
	if tfutil.IsSet(v.MaxPrice) {
		f.maxPrice, f.hasMaxPrice = v.MaxPrice.ValueFloat64(), true
		f.described = append(f.described, fmt.Sprintf("max_price = %g", f.maxPrice))
	}
	if tfutil.IsSet(v.Type) {
		f.typ = v.Type.ValueString()
		f.described = append(f.described, fmt.Sprintf("type = %q", f.typ))
	}
	if tfutil.IsSet(v.NameRegex) {
		re, err := regexp.Compile(v.NameRegex.ValueString())
		if err != nil {
			diags.AddAttributeError(path.Root("name_regex"), "Invalid regular expression", err.Error())
		}
		f.nameRegex = re
		f.described = append(f.described, fmt.Sprintf("name_regex = %q", v.NameRegex.ValueString()))
	}
	if tfutil.IsSet(v.IncludeUnavailable) && v.IncludeUnavailable.ValueBool() {
		f.includeUnavailable = true
		f.described = append(f.described, "include_unavailable = true")
	}
	if tfutil.IsSet(v.LocalSnapshots) {
		f.localSnapshots = v.LocalSnapshots.ValueBoolPointer()
		f.described = append(f.described, fmt.Sprintf("local_snapshots = %t", *f.localSnapshots))
	}
	return f
}

// apiFilter is the part of the filter the API applies.
func (f filter) apiFilter() client.PlanFilter {
	return client.PlanFilter{DatacenterID: f.datacenterID, CountryCode: f.countryCode}
}

// String describes the filter for error messages.
func (f filter) String() string {
	if len(f.described) == 0 {
		return "no filters"
	}
	return strings.Join(f.described, ", ")
}

// Orderable reports whether the plan's datacenter takes orders now: enabled, with status
// `available`. A plan whose datacenter or status the API leaves out counts as orderable, since
// nothing says otherwise.
func Orderable(p client.Plan) bool {
	if p.Datacenter == nil {
		return true
	}
	if !p.Datacenter.Enabled {
		return false
	}
	return p.Datacenter.Status == nil || *p.Datacenter.Status == "available"
}

// matches applies every filter locally. The datacenter and country are checked again so that
// the result does not depend on how strictly the API applies them.
func (f filter) matches(p client.Plan) bool {
	if !f.includeUnavailable && !Orderable(p) {
		return false
	}
	if f.datacenterID != 0 && planDatacenterID(p) != f.datacenterID {
		return false
	}
	if f.countryCode != "" && (p.Location == nil || !strings.EqualFold(p.Location.CountryCode, f.countryCode)) {
		return false
	}
	if p.CPU < f.minCPU || p.Memory < f.minMemory || p.Disk < f.minDisk {
		return false
	}
	if f.hasMaxPrice {
		price, ok := p.HourlyPrice()
		if !ok || price > f.maxPrice {
			return false
		}
	}
	if f.typ != "" && p.Type != f.typ {
		return false
	}
	if f.nameRegex != nil && !f.nameRegex.MatchString(p.Name) {
		return false
	}
	if f.localSnapshots != nil {
		local := LocalSnapshots(p)
		if local == nil || *local != *f.localSnapshots {
			return false
		}
	}
	return true
}

// LocalSnapshots says whether the plan's datacenter keeps snapshots on the server's own disk
// (true: they end with the server), from the `local_snapshots` extension of its datacenter; nil
// when the API does not say (the spec shows it only on a snapshot, after a server exists).
func LocalSnapshots(p client.Plan) *bool {
	if p.Datacenter == nil {
		return nil
	}
	return p.Datacenter.LocalSnapshots
}

func planDatacenterID(p client.Plan) int64 {
	if p.Datacenter != nil {
		return p.Datacenter.ID
	}
	if p.Location != nil {
		return p.Location.DatacenterID
	}
	return 0
}

// selectPlans returns the plans matching f, cheapest hourly price first and then by id; plans
// without an hourly price sort last.
func selectPlans(plans []client.Plan, f filter) []client.Plan {
	out := make([]client.Plan, 0, len(plans))
	for _, p := range plans {
		if f.matches(p) {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		pi, pj := sortPrice(out[i]), sortPrice(out[j])
		if pi != pj {
			return pi < pj
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func sortPrice(p client.Plan) float64 {
	if price, ok := p.HourlyPrice(); ok {
		return price
	}
	return math.Inf(1)
}
