// Package datacenter implements the reseller_datacenters data source.
package datacenter

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

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

// Schema is the schema of reseller_datacenters.
func Schema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Lists the datacenters open to the account: enabled ones and, where an identity " +
			"check (KYC) is required, only once the account has passed it. A datacenter whose `status` " +
			"is not `available` is listed so its status can be read, but takes no orders. Names follow " +
			"the provider's `language`.",
		Attributes: map[string]schema.Attribute{
			"datacenters": schema.ListNestedAttribute{
				MarkdownDescription: "The datacenters, in the API's order.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":          schema.Int64Attribute{MarkdownDescription: "Datacenter id.", Computed: true},
					"name":        schema.StringAttribute{MarkdownDescription: "Datacenter name.", Computed: true},
					"description": schema.StringAttribute{MarkdownDescription: "Description; null when none.", Computed: true},
					"status": schema.StringAttribute{
						MarkdownDescription: "Status; only `available` takes orders. Null when the API gives none.",
						Computed:            true,
					},
					"enabled":     schema.BoolAttribute{MarkdownDescription: "Whether the datacenter is enabled.", Computed: true},
					"require_kyc": schema.BoolAttribute{MarkdownDescription: "Whether ordering needs a completed identity check.", Computed: true},
					"terms": schema.ListAttribute{
						MarkdownDescription: "Billing terms the datacenter sells (enabled ones only), such as `hourly`.",
						Computed:            true,
						ElementType:         types.StringType,
					},
					"local_snapshots": schema.BoolAttribute{
						MarkdownDescription: "Whether the datacenter keeps snapshots on the server's own disk (`true`: " +
							"restore points deleted with the server) or apart from it (`false`: they outlive the " +
							"server). Null when the API does not say (resellerd's `local_snapshots` extension).",
						Computed: true,
					},
				}},
			},
		},
	}
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
