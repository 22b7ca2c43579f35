package instance

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// InstancesTypeName is the type name of the list data source.
const InstancesTypeName = "reseller_instances"

var _ datasource.DataSourceWithConfigure = (*InstancesDataSource)(nil)

// InstancesDataSource is reseller_instances.
type InstancesDataSource struct {
	tfutil.DataSourceBase
}

// NewInstancesDataSource returns reseller_instances.
func NewInstancesDataSource() datasource.DataSource { return &InstancesDataSource{} }

// Metadata sets the type name.
func (d *InstancesDataSource) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = InstancesTypeName
}

// Schema describes reseller_instances.
func (d *InstancesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = InstancesSchema()
}

// InstancesSchema is the schema of reseller_instances.
func InstancesSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Lists the account's servers, newest first, with their summary fields: also those " +
			"not managed by this configuration, which makes it the way to find an id to import.",
		Attributes: map[string]schema.Attribute{
			"only_active": schema.BoolAttribute{
				MarkdownDescription: "Whether to list only active servers (default `true`); `false` also lists " +
					"canceled and expired ones.",
				Optional: true,
			},
			"instances": schema.ListNestedAttribute{
				MarkdownDescription: "The servers, newest first.",
				Computed:            true,
				NestedObject:        schema.NestedAttributeObject{Attributes: itemAttributes()},
			},
		},
	}
}

func itemAttributes() map[string]schema.Attribute {
	str := func(desc string) schema.Attribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true}
	}
	num := func(desc string) schema.Attribute {
		return schema.Int64Attribute{MarkdownDescription: desc, Computed: true}
	}
	boolean := func(desc string) schema.Attribute {
		return schema.BoolAttribute{MarkdownDescription: desc, Computed: true}
	}
	return map[string]schema.Attribute{
		"id":            num("Instance id."),
		"name":          str("Display name."),
		"status":        str("Status (`online`, `offline`, `canceled`, ...); null before the datacenter reported one."),
		"active":        boolean("Whether the server is active (not canceled or expired)."),
		"hostname":      str("Hostname."),
		"plan_id":       num("Id of the plan (the API's `server_product_id`)."),
		"template_id":   num("Id of the OS template."),
		"datacenter_id": num("Id of the datacenter."),
		"location_id":   num("Id of the location."),
		"ipv4":          str("Public IPv4 address."),
		"ipv6":          str("Public IPv6 address."),
		"renew":         boolean("Whether the server renews every hour."),
		"renewal_due":   str("When the next hour is charged (RFC 3339)."),
		"locked":        boolean("Whether the server is locked."),
		"lock_reason":   str("Why the server is locked."),
		"created_at":    str("When the server was created (RFC 3339)."),
		"expired_at":    str("When the server was canceled or expired (RFC 3339)."),
		"costs":         schema.Float64Attribute{MarkdownDescription: "Extra recurring costs (features), USD per hour.", Computed: true},
		"paid_amount":   schema.Float64Attribute{MarkdownDescription: "Total charged so far, USD.", Computed: true},
	}
}

// Read lists the instances.
func (d *InstancesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	c := d.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var data InstancesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	onlyActive := data.OnlyActive.IsNull() || data.OnlyActive.ValueBool()
	list, err := c.AllInstances(ctx)
	if err != nil {
		tfutil.AddAPIError(&resp.Diagnostics, "Unable to list instances", err)
		return
	}
	slices.Reverse(list) // newest first, as the API lists them: ids grow with creation
	if onlyActive {
		list = slices.DeleteFunc(list, client.Instance.Gone) // the list resource's rule too
	}
	data.Instances = newInstanceItems(list)
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}
