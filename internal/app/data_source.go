// Package app implements the reseller_apps data source: the one-click apps of the catalogue.
package app

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

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
