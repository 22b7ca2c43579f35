package serverplan

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// PlansModel is the state of reseller_plans.
type PlansModel struct {
	DatacenterID types.Int64   `tfsdk:"datacenter_id"`
	CountryCode  types.String  `tfsdk:"country_code"`
	MinCPU       types.Int64   `tfsdk:"min_cpu"`
	MinMemory    types.Int64   `tfsdk:"min_memory"`
	MinDisk      types.Int64   `tfsdk:"min_disk"`
	MaxPrice     types.Float64 `tfsdk:"max_price"`
	Type         types.String  `tfsdk:"type"`
	NameRegex    types.String  `tfsdk:"name_regex"`
	// IncludeUnavailable is a filter: keep plans of datacenters not taking orders.
	IncludeUnavailable types.Bool  `tfsdk:"include_unavailable"`
	LocalSnapshots     types.Bool  `tfsdk:"local_snapshots"`
	Plans              []ItemModel `tfsdk:"plans"`
}

func (m PlansModel) filterValues() filterValues {
	return filterValues{
		DatacenterID: m.DatacenterID, CountryCode: m.CountryCode, MinCPU: m.MinCPU, MinMemory: m.MinMemory,
		MinDisk: m.MinDisk, MaxPrice: m.MaxPrice, Type: m.Type, NameRegex: m.NameRegex,
		IncludeUnavailable: m.IncludeUnavailable, LocalSnapshots: m.LocalSnapshots,
	}
}

// ItemModel is one plan of reseller_plans.
type ItemModel struct {
	ID              types.Int64     `tfsdk:"id"`
	Name            types.String    `tfsdk:"name"`
	Type            types.String    `tfsdk:"type"`
	CPU             types.Int64     `tfsdk:"cpu"`
	Memory          types.Int64     `tfsdk:"memory"`
	Disk            types.Int64     `tfsdk:"disk"`
	Price           types.Float64   `tfsdk:"price"`
	CreationFee     types.Float64   `tfsdk:"creation_fee"`
	DatacenterID    types.Int64     `tfsdk:"datacenter_id"`
	LocationID      types.Int64     `tfsdk:"location_id"`
	CountryCode     types.String    `tfsdk:"country_code"`
	Templates       []TemplateModel `tfsdk:"templates"`
	Features        []FeatureModel  `tfsdk:"features"`
	Actions         []types.String  `tfsdk:"actions"`
	TrafficIncluded types.Int64     `tfsdk:"traffic_included"`
	Available       types.Bool      `tfsdk:"available"`
	LocalSnapshots  types.Bool      `tfsdk:"local_snapshots"`
}

// Model is the state of reseller_plan: the filters and the found plan's fields side by side.
// datacenter_id, country_code and type are both filters and results.
type Model struct {
	ID                 types.Int64     `tfsdk:"id"`
	DatacenterID       types.Int64     `tfsdk:"datacenter_id"`
	CountryCode        types.String    `tfsdk:"country_code"`
	MinCPU             types.Int64     `tfsdk:"min_cpu"`
	MinMemory          types.Int64     `tfsdk:"min_memory"`
	MinDisk            types.Int64     `tfsdk:"min_disk"`
	MaxPrice           types.Float64   `tfsdk:"max_price"`
	Type               types.String    `tfsdk:"type"`
	NameRegex          types.String    `tfsdk:"name_regex"`
	IncludeUnavailable types.Bool      `tfsdk:"include_unavailable"`
	Name               types.String    `tfsdk:"name"`
	CPU                types.Int64     `tfsdk:"cpu"`
	Memory             types.Int64     `tfsdk:"memory"`
	Disk               types.Int64     `tfsdk:"disk"`
	Price              types.Float64   `tfsdk:"price"`
	CreationFee        types.Float64   `tfsdk:"creation_fee"`
	LocationID         types.Int64     `tfsdk:"location_id"`
	Templates          []TemplateModel `tfsdk:"templates"`
	Features           []FeatureModel  `tfsdk:"features"`
	Actions            []types.String  `tfsdk:"actions"`
	TrafficIncluded    types.Int64     `tfsdk:"traffic_included"`
	Available          types.Bool      `tfsdk:"available"`
	// LocalSnapshots is both a filter and the found plan's value (null when the API does not say).
	LocalSnapshots types.Bool `tfsdk:"local_snapshots"`
}

func (m Model) filterValues() filterValues {
	return filterValues{
		DatacenterID: m.DatacenterID, CountryCode: m.CountryCode, MinCPU: m.MinCPU, MinMemory: m.MinMemory,
		MinDisk: m.MinDisk, MaxPrice: m.MaxPrice, Type: m.Type, NameRegex: m.NameRegex,
		IncludeUnavailable: m.IncludeUnavailable, LocalSnapshots: m.LocalSnapshots,
	}
}

// setPlan copies the found plan's fields into the model, leaving the filters as configured
// except the three that are also results.
func (m *Model) setPlan(p client.Plan) {
	item := newItem(p)
	m.ID = item.ID
	m.Name = item.Name
	m.Type = item.Type
	m.CPU = item.CPU
	m.Memory = item.Memory
	m.Disk = item.Disk
	m.Price = item.Price
	m.CreationFee = item.CreationFee
	m.DatacenterID = item.DatacenterID
	m.LocationID = item.LocationID
	m.CountryCode = item.CountryCode
	m.Templates = item.Templates
	m.Features = item.Features
	m.Actions = item.Actions
	m.TrafficIncluded = item.TrafficIncluded
	m.Available = item.Available
	m.LocalSnapshots = item.LocalSnapshots
}

// TemplateModel is an OS template a plan can be built from.
type TemplateModel struct {
	ID     types.Int64  `tfsdk:"id"`
	Name   types.String `tfsdk:"name"`
	OSType types.String `tfsdk:"os_type"`
}

// FeatureModel is an optional, priced extra of a plan.
type FeatureModel struct {
	ID                 types.Int64    `tfsdk:"id"`
	Name               types.String   `tfsdk:"name"`
	Price              types.Float64  `tfsdk:"price"`
	RequiredForOSTypes []types.String `tfsdk:"required_for_os_types"`
}

// newItem converts an API plan. Missing nested objects become null attributes; arrays are
// never null.
func newItem(p client.Plan) ItemModel {
	item := ItemModel{
		ID:              types.Int64Value(p.ID),
		Name:            types.StringValue(p.Name),
		Type:            types.StringValue(p.Type),
		CPU:             types.Int64Value(p.CPU),
		Memory:          types.Int64Value(p.Memory),
		Disk:            types.Int64Value(p.Disk),
		Price:           types.Float64Null(),
		CreationFee:     types.Float64Value(p.CreationFee),
		DatacenterID:    types.Int64Null(),
		LocationID:      types.Int64Null(),
		CountryCode:     types.StringNull(),
		Templates:       make([]TemplateModel, 0, len(p.Templates)),
		Features:        make([]FeatureModel, 0, len(p.Features)),
		Actions:         stringValues(p.Actions),
		TrafficIncluded: types.Int64Null(),
		Available:       types.BoolValue(Orderable(p)),
		LocalSnapshots:  types.BoolPointerValue(LocalSnapshots(p)),
	}
	if price, ok := p.HourlyPrice(); ok {
		item.Price = types.Float64Value(price)
	}
	if p.Datacenter != nil {
		item.DatacenterID = types.Int64Value(p.Datacenter.ID)
	}
	if p.Location != nil {
		item.LocationID = types.Int64Value(p.Location.ID)
		item.CountryCode = types.StringValue(p.Location.CountryCode)
		if p.Datacenter == nil && p.Location.DatacenterID != 0 {
			item.DatacenterID = types.Int64Value(p.Location.DatacenterID)
		}
	}
	if p.Traffic != nil {
		item.TrafficIncluded = types.Int64Value(p.Traffic.Included)
	}
	for _, t := range p.Templates {
		item.Templates = append(item.Templates, TemplateModel{
			ID:     types.Int64Value(t.ID),
			Name:   types.StringValue(t.Name),
			OSType: types.StringValue(t.OSType),
		})
	}
	for _, f := range p.Features {
		item.Features = append(item.Features, FeatureModel{
			ID:                 types.Int64Value(f.ID),
			Name:               types.StringValue(f.Name),
			Price:              types.Float64Value(f.Price),
			RequiredForOSTypes: stringValues(f.RequiredForOSTypes),
		})
	}
	return item
}

func stringValues(in []string) []types.String {
	out := make([]types.String, 0, len(in))
	for _, s := range in {
		out = append(out, types.StringValue(s))
	}
	return out
}

// newItems converts API plans in order.
func newItems(plans []client.Plan) []ItemModel {
	out := make([]ItemModel, 0, len(plans))
	for _, p := range plans {
		out = append(out, newItem(p))
	}
	return out
}
