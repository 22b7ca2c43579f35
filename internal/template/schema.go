package template

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// Schema is the schema of reseller_template.
func Schema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Finds one OS template a plan can be built from, by name or by OS type. When " +
			"several templates match, the one with the **lowest id** is chosen, so the result is stable; " +
			"narrow `name_regex` to pick another. Finding none is an error.",
		Attributes: map[string]schema.Attribute{
			"plan_id": schema.Int64Attribute{
				MarkdownDescription: "Id of the plan whose templates are searched.",
				Required:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"name_regex": schema.StringAttribute{
				MarkdownDescription: "Regular expression (RE2 syntax) the template name must match, for example " +
					"`(?i)^ubuntu`. Names follow the provider's `language`. Exactly one of `name_regex` or " +
					"`os_type` must be set.",
				Optional:   true,
				Validators: []validator.String{tfutil.ValidRegex()},
			},
			"os_type": schema.StringAttribute{
				MarkdownDescription: "Filter: OS type the template must have, such as `linux` or `windows` " +
					"(case-insensitive). Exactly one of `name_regex` or `os_type` must be set. Result: the " +
					"found template's OS type.",
				Optional:   true,
				Computed:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"id": schema.Int64Attribute{
				MarkdownDescription: "Id of the found template (the lowest id among the matches), for " +
					"`template_id` of `reseller_instance` and `reseller_quote`.",
				Computed: true,
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "Name of the found template.",
				Computed:            true,
			},
		},
	}
}
