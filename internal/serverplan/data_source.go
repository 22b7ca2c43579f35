// Package serverplan implements the reseller_plans and reseller_plan data sources: the orderable
// server plans of the catalogue, filtered and sorted by hourly price.
package serverplan

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"

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
