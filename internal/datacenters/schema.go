package datacenters

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

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
