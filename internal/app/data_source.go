// Package app implements the reseller_apps data source: the one-click apps of the catalogue.
package app

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// TypeName is the type name of the list data source.
const TypeName = "reseller_apps"

var _ datasource.DataSourceWithConfigure = (*DataSource)(nil)

// DataSource is reseller_apps.
type DataSource struct {
	tfutil.DataSourceBase
}

// NewDataSource returns reseller_apps.
func NewDataSource() datasource.DataSource { return &DataSource{} }

// Metadata sets the type name.
func (d *DataSource) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = TypeName
}

// Schema describes reseller_apps.
func (d *DataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = Schema()
}

// Read lists the apps.
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
	var f client.AppFilter
	if tfutil.IsSet(data.PlanID) {
		f.PlanID = data.PlanID.ValueInt64()
	}
	if tfutil.IsSet(data.TemplateID) {
		f.TemplateID = data.TemplateID.ValueInt64()
	}
	apps, err := c.ListApps(ctx, f)
	if err != nil {
		if tfutil.IsNotFound(err) {
			var what string
			switch {
			case f.PlanID != 0 && f.TemplateID != 0:
				what = fmt.Sprintf("plan %d or template %d (of that plan)", f.PlanID, f.TemplateID)
			case f.PlanID != 0:
				what = fmt.Sprintf("plan %d", f.PlanID)
			default:
				what = fmt.Sprintf("template %d", f.TemplateID)
			}
			resp.Diagnostics.AddError("Plan or template not found",
				fmt.Sprintf("The apps could not be listed because %s was not found in the catalogue.\n\n%s",
					what, tfutil.APIErrorDetail(err)))
			return
		}
		tfutil.AddAPIError(&resp.Diagnostics, "Unable to list apps", err)
		return
	}
	data.Apps = newItems(apps)
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}
