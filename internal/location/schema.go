package location

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

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
