// Package location implements the reseller_locations data source.
package location

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

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

// Schema is the schema of reseller_locations.
func Schema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Lists the locations (sites within datacenters) of the catalogue, optionally of one " +
			"datacenter. Names follow the provider's `language`.",
		Attributes: map[string]schema.Attribute{
			"datacenter_id": schema.Int64Attribute{
				MarkdownDescription: "Only locations of this datacenter.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"locations": schema.ListNestedAttribute{
				MarkdownDescription: "The locations, in the API's order.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":            schema.Int64Attribute{MarkdownDescription: "Location id.", Computed: true},
					"datacenter_id": schema.Int64Attribute{MarkdownDescription: "Id of the location's datacenter.", Computed: true},
					"name":          schema.StringAttribute{MarkdownDescription: "Location name.", Computed: true},
					"country":       schema.StringAttribute{MarkdownDescription: "Country name.", Computed: true},
					"country_code":  schema.StringAttribute{MarkdownDescription: "ISO 3166-1 country code.", Computed: true},
					"flag":          schema.StringAttribute{MarkdownDescription: "Flag (emoji or image reference); null when none.", Computed: true},
					"active":        schema.BoolAttribute{MarkdownDescription: "Whether the location is active.", Computed: true},
					"status":        schema.StringAttribute{MarkdownDescription: "Status; null when the API gives none.", Computed: true},
				}},
			},
		},
	}
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
