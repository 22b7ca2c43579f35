// Package plan implements the reseller_plans and reseller_plan data sources: the orderable
// server plans of the catalogue, filtered and sorted by hourly price.
package plan

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

const (
	// PlansTypeName is the type name of the list data source.
	PlansTypeName = "reseller_plans"
	// TypeName is the type name of the single-plan data source.
	TypeName = "reseller_plan"
)

var (
	_ datasource.DataSourceWithConfigure        = (*PlansDataSource)(nil)
	_ datasource.DataSourceWithConfigure        = (*DataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*DataSource)(nil)
)

// PlansDataSource is reseller_plans.
type PlansDataSource struct {
	tfutil.DataSourceBase
}

// NewPlansDataSource returns reseller_plans.
func NewPlansDataSource() datasource.DataSource { return &PlansDataSource{} }

// Metadata sets the type name.
func (d *PlansDataSource) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = PlansTypeName
}

// Schema describes reseller_plans.
func (d *PlansDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = PlansSchema()
}

// PlansSchema is the schema of reseller_plans.
func PlansSchema() schema.Schema {
	attrs := filterAttributes(false)
	attrs["plans"] = schema.ListNestedAttribute{
		MarkdownDescription: "The plans matching every filter, cheapest hourly price first, then by id. " +
			"Empty when nothing matches.",
		Computed:     true,
		NestedObject: schema.NestedAttributeObject{Attributes: planAttributes()},
	}
	return schema.Schema{
		MarkdownDescription: "Lists the server plans of the catalogue (hourly billing), narrowed by optional " +
			"filters and sorted by hourly price. Only plans of datacenters taking orders now are listed " +
			"unless `include_unavailable` is true. Names follow the provider's `language`.",
		Attributes: attrs,
	}
}

// Read lists the matching plans.
func (d *PlansDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	c := d.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var data PlansModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	f := data.filterValues().parse(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	plans, err := c.ListPlans(ctx, f.apiFilter())
	if err != nil {
		tfutil.AddAPIError(&resp.Diagnostics, "Unable to list plans", err)
		return
	}
	data.Plans = newItems(selectPlans(plans, f))
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}

// DataSource is reseller_plan.
type DataSource struct {
	tfutil.DataSourceBase
}

// NewDataSource returns reseller_plan.
func NewDataSource() datasource.DataSource { return &DataSource{} }

// Metadata sets the type name.
func (d *DataSource) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = TypeName
}

// Schema describes reseller_plan.
func (d *DataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = Schema()
}

// Schema is the schema of reseller_plan.
func Schema() schema.Schema {
	attrs := planAttributes()
	for name, a := range filterAttributes(true) {
		attrs[name] = a
	}
	attrs["id"] = schema.Int64Attribute{
		MarkdownDescription: "Id of the plan to read. Conflicts with every filter; without it the cheapest " +
			"plan matching the filters is found and its id is exported here.",
		Optional:   true,
		Computed:   true,
		Validators: []validator.Int64{int64validator.AtLeast(1)},
	}
	attrs["datacenter_id"] = withDescription(attrs["datacenter_id"],
		"Filter: only plans of this datacenter. Result: the found plan's datacenter id.")
	attrs["country_code"] = withDescription(attrs["country_code"],
		"Filter: only plans in this country (two-letter ISO 3166-1 code, case-insensitive). "+
			"Result: the found plan's country code.")
	attrs["type"] = withDescription(attrs["type"],
		"Filter: only plans of this type (exact match). Result: the found plan's type.")
	attrs["local_snapshots"] = withDescription(attrs["local_snapshots"],
		"Filter: `false` finds a plan whose snapshots outlive the server, `true` one whose snapshots are "+
			"restore points on the server's own disk (plans whose datacenter does not say are skipped). "+
			"Result: the found plan's value, null when the API does not say.")
	return schema.Schema{
		MarkdownDescription: "Reads one server plan of the catalogue: either the plan with the given `id`, " +
			"or the cheapest plan (by hourly price, then lowest id) matching the filters, which are the " +
			"same as those of `reseller_plans` (plans of datacenters not taking orders are skipped unless " +
			"`include_unavailable` is true). With neither `id` nor filters it is the cheapest orderable " +
			"plan of the catalogue. Finding nothing is an error. Names follow the provider's `language`.",
		Attributes: attrs,
	}
}

// ConfigValidators makes id and the filters mutually exclusive.
func (d *DataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	out := make([]datasource.ConfigValidator, 0, len(filterNames))
	for _, name := range filterNames {
		out = append(out, datasourcevalidator.Conflicting(path.MatchRoot("id"), path.MatchRoot(name)))
	}
	return out
}

// Read finds the plan by id or by filters.
func (d *DataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	c := d.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var data Model
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}

	if tfutil.IsSet(data.ID) {
		id := data.ID.ValueInt64()
		p, err := c.GetPlan(ctx, id)
		switch {
		case tfutil.IsNotFound(err):
			resp.Diagnostics.AddAttributeError(path.Root("id"), "Plan not found",
				fmt.Sprintf("plan %d not found in the catalogue. List the orderable plans with the "+
					"reseller_plans data source.\n\n%s", id, tfutil.APIErrorDetail(err)))
			return
		case err != nil:
			tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to read plan %d", id), err)
			return
		}
		data.setPlan(*p)
		resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
		return
	}

	f := data.filterValues().parse(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	plans, err := c.ListPlans(ctx, f.apiFilter())
	if err != nil {
		tfutil.AddAPIError(&resp.Diagnostics, "Unable to list plans", err)
		return
	}
	found := selectPlans(plans, f)
	if len(found) == 0 {
		resp.Diagnostics.AddError("No plan matches the filters",
			fmt.Sprintf("No plan matches %s. Relax the filters, or list what is available "+
				"with the reseller_plans data source.%s", f, unavailableHint(f)))
		return
	}
	data.setPlan(found[0])
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}

func unavailableHint(f filter) string {
	if f.includeUnavailable {
		return ""
	}
	return " Plans of datacenters not taking orders now are left out unless include_unavailable = true."
}

// planAttributes returns the computed attributes of one plan.
func planAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":           schema.Int64Attribute{MarkdownDescription: "Plan id (the API's `server_id`).", Computed: true},
		"name":         schema.StringAttribute{MarkdownDescription: "Plan name in the provider's `language`.", Computed: true},
		"type":         schema.StringAttribute{MarkdownDescription: "Plan type.", Computed: true},
		"cpu":          schema.Int64Attribute{MarkdownDescription: "CPU cores.", Computed: true},
		"memory":       schema.Int64Attribute{MarkdownDescription: "Memory in GB.", Computed: true},
		"disk":         schema.Int64Attribute{MarkdownDescription: "Disk in GB.", Computed: true},
		"price":        schema.Float64Attribute{MarkdownDescription: "Hourly price in USD.", Computed: true},
		"creation_fee": schema.Float64Attribute{MarkdownDescription: "One-time fee in USD added to the first charge; `0` when none.", Computed: true},
		"datacenter_id": schema.Int64Attribute{
			MarkdownDescription: "Id of the plan's datacenter.",
			Computed:            true,
		},
		"location_id": schema.Int64Attribute{MarkdownDescription: "Id of the plan's location; null when the API gives none.", Computed: true},
		"country_code": schema.StringAttribute{
			MarkdownDescription: "ISO 3166-1 code of the plan's country; null when the API gives no location.",
			Computed:            true,
		},
		"templates": schema.ListNestedAttribute{
			MarkdownDescription: "OS templates the plan can be built from.",
			Computed:            true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"id":      schema.Int64Attribute{MarkdownDescription: "Template id.", Computed: true},
				"name":    schema.StringAttribute{MarkdownDescription: "Template name.", Computed: true},
				"os_type": schema.StringAttribute{MarkdownDescription: "OS type, such as `linux` or `windows`.", Computed: true},
			}},
		},
		"features": schema.ListNestedAttribute{
			MarkdownDescription: "Optional, priced extras of the plan.",
			Computed:            true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"id":    schema.Int64Attribute{MarkdownDescription: "Feature id; pass it as a string in `features` of `reseller_quote` and `reseller_instance`.", Computed: true},
				"name":  schema.StringAttribute{MarkdownDescription: "Feature name.", Computed: true},
				"price": schema.Float64Attribute{MarkdownDescription: "Hourly price in USD.", Computed: true},
				"required_for_os_types": schema.ListAttribute{
					MarkdownDescription: "OS types for which the feature is forced on (for example `windows` forces IPv4).",
					Computed:            true,
					ElementType:         types.StringType,
				},
			}},
		},
		"actions": schema.ListAttribute{
			MarkdownDescription: "Actions instances of this plan support.",
			Computed:            true,
			ElementType:         types.StringType,
		},
		"available": schema.BoolAttribute{
			MarkdownDescription: "Whether the plan's datacenter takes orders now (enabled, status `available`).",
			Computed:            true,
		},
		"traffic_included": schema.Int64Attribute{
			MarkdownDescription: "Traffic included per 30 days in GB; `0` is unlimited; null when the API gives no traffic terms.",
			Computed:            true,
		},
		"local_snapshots": schema.BoolAttribute{
			MarkdownDescription: "Whether snapshots of this plan's servers are restore points on the server's own " +
				"disk (`true`: they end with the server, so a snapshot taken before a destroy does not survive " +
				"it) or are kept apart from it (`false`: they outlive the server). Null when the API does not " +
				"say: it is resellerd's `local_snapshots` extension of the datacenter; the API's own spec shows " +
				"it only on a snapshot (`reseller_snapshot.local`), once a server exists.",
			Computed: true,
		},
	}
}

// withDescription returns a copy of a filter attribute with another description.
func withDescription(a schema.Attribute, desc string) schema.Attribute {
	switch a := a.(type) {
	case schema.Int64Attribute:
		a.MarkdownDescription = desc
		return a
	case schema.StringAttribute:
		a.MarkdownDescription = desc
		return a
	case schema.BoolAttribute:
		a.MarkdownDescription = desc
		return a
	}
	return a
}
