// Package template implements the reseller_template data source: one OS template of a plan.
package template

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// TypeName is the type name of the data source.
const TypeName = "reseller_template"

var (
	_ datasource.DataSourceWithConfigure        = (*DataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*DataSource)(nil)
)

// DataSource is reseller_template.
type DataSource struct {
	tfutil.DataSourceBase
}

// NewDataSource returns reseller_template.
func NewDataSource() datasource.DataSource { return &DataSource{} }

// Metadata sets the type name.
func (d *DataSource) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = TypeName
}

// Schema describes reseller_template.
func (d *DataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = Schema()
}

// ConfigValidators requires exactly one of name_regex and os_type.
func (d *DataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("name_regex"), path.MatchRoot("os_type")),
	}
}

// Read finds the template.
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

	planID := data.PlanID.ValueInt64()
	var (
		match     func(client.Template) bool
		criterion string
	)
	if tfutil.IsSet(data.NameRegex) {
		re, err := regexp.Compile(data.NameRegex.ValueString())
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("name_regex"), "Invalid regular expression", err.Error())
			return
		}
		match = func(t client.Template) bool { return re.MatchString(t.Name) }
		criterion = fmt.Sprintf("name_regex = %q", data.NameRegex.ValueString())
	} else {
		osType := data.OSType.ValueString()
		match = func(t client.Template) bool { return strings.EqualFold(t.OSType, osType) }
		criterion = fmt.Sprintf("os_type = %q", osType)
	}

	p, err := c.GetPlan(ctx, planID)
	switch {
	case tfutil.IsNotFound(err):
		resp.Diagnostics.AddAttributeError(path.Root("plan_id"), "Plan not found",
			fmt.Sprintf("plan %d not found in the catalogue.\n\n%s", planID, tfutil.APIErrorDetail(err)))
		return
	case err != nil:
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to read plan %d", planID), err)
		return
	}

	found, ok := pick(p.Templates, match)
	if !ok {
		resp.Diagnostics.AddError("No template matches",
			fmt.Sprintf("No template of plan %d matches %s. The plan offers: %s.", planID, criterion, describe(p.Templates)))
		return
	}
	data.setTemplate(found)
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}

// pick returns the matching template with the lowest id.
func pick(templates []client.Template, match func(client.Template) bool) (client.Template, bool) {
	var (
		best client.Template
		ok   bool
	)
	for _, t := range templates {
		if match(t) && (!ok || t.ID < best.ID) {
			best, ok = t, true
		}
	}
	return best, ok
}

// describe lists templates for an error message, by id.
func describe(templates []client.Template) string {
	if len(templates) == 0 {
		return "no templates"
	}
	sorted := append([]client.Template(nil), templates...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	parts := make([]string, 0, len(sorted))
	for _, t := range sorted {
		parts = append(parts, fmt.Sprintf("%d %q (%s)", t.ID, t.Name, t.OSType))
	}
	return strings.Join(parts, ", ")
}
