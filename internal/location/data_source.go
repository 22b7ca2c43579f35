// Package location implements the reseller_locations data source.
package location

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// TypeName is the type name of the list data source.
const TypeName = "reseller_locations"

var _ datasource.DataSourceWithConfigure = (*DataSource)(nil)

// DataSource is reseller_locations.
type DataSource struct {
	tfutil.DataSourceBase
}

// NewDataSource returns reseller_locations.
func NewDataSource() datasource.DataSource { return &DataSource{} }

// Metadata sets the type name.
func (d *DataSource) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = TypeName
}

// Schema describes reseller_locations.
func (d *DataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = Schema()
}

// Read lists the locations.
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
	var dcID int64
	if tfutil.IsSet(data.DatacenterID) {
		dcID = data.DatacenterID.ValueInt64()
	}
	locs, err := c.ListLocations(ctx, dcID)
	if err != nil {
		summary := "Unable to list locations"
		if dcID != 0 {
			summary = fmt.Sprintf("Unable to list the locations of datacenter %d", dcID)
		}
		tfutil.AddAPIError(&resp.Diagnostics, summary, err)
		return
	}
	data.Locations = newItems(locs)
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}
