package app

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// stringList is a computed list of strings.
func stringList(desc string) schema.ListAttribute {
	return schema.ListAttribute{MarkdownDescription: desc, Computed: true, ElementType: types.StringType}
}

// Schema is the schema of reseller_apps.
func Schema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Lists the one-click apps of the catalogue that can be installed on an instance. With " +
			"`plan_id` and `template_id` together, only the apps that plan and template can run. The list " +
			"is empty when apps are not open to the account. Names follow the provider's `language`.",
		Attributes: map[string]schema.Attribute{
			"plan_id": schema.Int64Attribute{
				MarkdownDescription: "Only apps this plan can run (the API's `server_id`).",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"template_id": schema.Int64Attribute{
				MarkdownDescription: "Only apps this OS template can run.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"apps": schema.ListNestedAttribute{
				MarkdownDescription: "The apps, in the API's order.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":            schema.StringAttribute{MarkdownDescription: "App id, as used in `apps` of `reseller_instance`.", Computed: true},
					"name":          schema.StringAttribute{MarkdownDescription: "App name.", Computed: true},
					"category":      schema.StringAttribute{MarkdownDescription: "Category.", Computed: true},
					"description":   schema.StringAttribute{MarkdownDescription: "Description; null when none.", Computed: true},
					"requires":      stringList("Ids of the apps this one depends on."),
					"conflicts":     stringList("Ids of the apps that cannot be installed alongside this one."),
					"ports":         stringList("Ports the app listens on."),
					"min_memory_mb": schema.Int64Attribute{MarkdownDescription: "Minimum memory in MB.", Computed: true},
					"min_disk_gb":   schema.Int64Attribute{MarkdownDescription: "Minimum disk in GB.", Computed: true},
					"os_families":   stringList("OS families the app runs on."),
					"inputs": schema.ListNestedAttribute{
						MarkdownDescription: "Settings the app accepts at install time (`app_inputs` of `reseller_instance`).",
						Computed:            true,
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"key":      schema.StringAttribute{MarkdownDescription: "Input key.", Computed: true},
							"label":    schema.StringAttribute{MarkdownDescription: "Human-readable label.", Computed: true},
							"kind":     schema.StringAttribute{MarkdownDescription: "Kind of value: `text`, `password`, `email`, `number`, `boolean` or `domain`.", Computed: true},
							"required": schema.BoolAttribute{MarkdownDescription: "Whether the input must be given.", Computed: true},
							"default":  schema.StringAttribute{MarkdownDescription: "Default value; null when none.", Computed: true},
							"help":     schema.StringAttribute{MarkdownDescription: "Help text; null when none.", Computed: true},
						}},
					},
				}},
			},
		},
	}
}
