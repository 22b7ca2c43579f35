// Package datacenters implements the reseller_datacenters data source.
package datacenters

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// TypeName is the type name of the list data source.
const TypeName = "reseller_datacenters"

var _ datasource.DataSourceWithConfigure = (*DataSource)(nil)

// DataSource is reseller_datacenters.
type DataSource struct {
	tfutil.DataSourceBase
}

// NewDataSource returns reseller_datacenters.
func NewDataSource() datasource.DataSource { return &DataSource{} }

// Metadata sets the type name.
func (d *DataSource) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = TypeName
}

// Schema describes reseller_datacenters.
func (d *DataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = Schema()
}

// Read lists the datacenters.
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
	dcs, err := c.ListDatacenters(ctx)
	if err != nil {
		tfutil.AddAPIError(&resp.Diagnostics, "Unable to list datacenters", err)
		return
	}
	data.Datacenters = newItems(dcs)
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}
