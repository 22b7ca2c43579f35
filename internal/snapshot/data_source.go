package snapshot

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// SnapshotsTypeName is the type name of the list data source.
const SnapshotsTypeName = "reseller_snapshots"

var _ datasource.DataSourceWithConfigure = (*SnapshotsDataSource)(nil)

// SnapshotsDataSource is reseller_snapshots.
type SnapshotsDataSource struct {
	tfutil.DataSourceBase
}

// NewSnapshotsDataSource returns reseller_snapshots.
func NewSnapshotsDataSource() datasource.DataSource { return &SnapshotsDataSource{} }

// Metadata sets the type name.
func (d *SnapshotsDataSource) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = SnapshotsTypeName
}

// Schema describes reseller_snapshots.
func (d *SnapshotsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = SnapshotsSchema()
}

// SnapshotsSchema is the schema of reseller_snapshots.
func SnapshotsSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Lists the account's snapshots, newest first: also those not managed by this " +
			"configuration and those whose server is gone, which makes it the way to find an id to import or to " +
			"build a server from.",
		Attributes: map[string]schema.Attribute{
			"include_inactive": schema.BoolAttribute{
				MarkdownDescription: "Whether to list ended snapshots too (`deleted`, `expired`, `failed`). Default " +
					"`false`: only `creating`, `available` and `restoring` ones.",
				Optional: true,
			},
			"instance_id": schema.Int64Attribute{
				MarkdownDescription: "Only the snapshots taken from this server (also when the server is gone). Ended " +
					"snapshots of a server that is gone cannot be told apart any more (the API no longer names their " +
					"server), so `include_inactive` adds only those of a server that still exists.",
				Optional:   true,
				Validators: []validator.Int64{int64validator.AtLeast(1)},
			},
			"snapshots": schema.ListNestedAttribute{
				MarkdownDescription: "The snapshots, newest first.",
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
	float := func(desc string) schema.Attribute {
		return schema.Float64Attribute{MarkdownDescription: desc, Computed: true}
	}
	boolean := func(desc string) schema.Attribute {
		return schema.BoolAttribute{MarkdownDescription: desc, Computed: true}
	}
	return map[string]schema.Attribute{
		"id":            num("Snapshot id."),
		"name":          str("Name."),
		"status":        str("Status: `creating`, `available`, `restoring`, or (with `include_inactive`) `deleted`, `expired`, `failed`."),
		"note":          str("Note; null when none."),
		"instance_id":   num("Id of the server it was taken from; null once that server is gone."),
		"source_name":   str("Name of the server it was taken from."),
		"size_gb":       float("Size of the image in GB; null until it is available."),
		"price":         float("USD per hour, fixed when it became available."),
		"price_monthly": float("`price` over a month of 730 hours."),
		"accrued":       float("USD accrued and not yet charged."),
		"paid_amount":   float("USD charged so far."),
		"local":         boolean("Whether it lives on the server's own disk and ends with the server."),
		"restore":       boolean("Whether it can be restored onto its server in place."),
		"features":      schema.ListAttribute{MarkdownDescription: "Names of the features the server had.", Computed: true, ElementType: types.StringType},
		"os_type":       str("OS type of the image."),
		"template_id":   num("Id of the OS template of the image."),
		"plan_id":       num("Id of the plan of the server it was taken from (the API's `server_product_id`)."),
		"datacenter_id": num("Id of the datacenter."),
		"location_id":   num("Id of the location."),
		"created_at":    str("When it was requested (RFC 3339)."),
		"available_at":  str("When it became available (RFC 3339)."),
		"expired_at":    str("When it ended (RFC 3339)."),
		"locked":        boolean("Whether it is locked for an unpaid charge."),
		"lock_reason":   str("Why it is locked (`unpaid`)."),
	}
}

// Read lists the snapshots.
func (d *SnapshotsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	c := d.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var data SnapshotsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	includeInactive := data.IncludeInactive.ValueBool()
	var list []client.Snapshot
	var err error
	if tfutil.IsSet(data.InstanceID) {
		list, err = instanceSnapshots(ctx, c, data.InstanceID.ValueInt64(), includeInactive)
		if tfutil.IsNotFound(err) {
			resp.Diagnostics.AddAttributeError(path.Root("instance_id"), "Instance not found",
				fmt.Sprintf("Instance %d does not exist or does not belong to this account.\n\n%s",
					data.InstanceID.ValueInt64(), tfutil.APIErrorDetail(err)))
			return
		}
	} else {
		list, err = c.ListSnapshots(ctx, includeInactive)
	}
	if err != nil {
		tfutil.AddAPIError(&resp.Diagnostics, "Unable to list snapshots", err)
		return
	}
	data.Snapshots = newItems(list)
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}

// instanceSnapshots lists the snapshots of one instance with GET /instances/{id}/snapshots (its
// active ones, also after the instance is gone). With includeInactive the ended ones the API
// still attributes to the instance are merged in from GET /snapshots, newest first.
func instanceSnapshots(ctx context.Context, c *client.Client, instanceID int64, includeInactive bool) ([]client.Snapshot, error) {
	own, err := c.ListInstanceSnapshots(ctx, instanceID)
	if err != nil {
		return nil, err
	}
	list := own.Snapshots
	if !includeInactive {
		return list, nil
	}
	all, err := c.ListSnapshots(ctx, true)
	if err != nil {
		return nil, err
	}
	return mergeEnded(list, all, instanceID), nil
}

// mergeEnded adds to active the ended snapshots of all that belong to instanceID, sorted newest
// first (by creation time, then id).
func mergeEnded(active, all []client.Snapshot, instanceID int64) []client.Snapshot {
	seen := map[int64]bool{}
	out := append([]client.Snapshot(nil), active...)
	for _, s := range out {
		seen[s.ID] = true
	}
	for _, s := range all {
		if s.Ended() && !seen[s.ID] && s.InstanceID != nil && *s.InstanceID == instanceID {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := valueOf(out[i].CreatedAt), valueOf(out[j].CreatedAt)
		if a != b {
			return a > b // RFC 3339 in UTC sorts as text
		}
		return out[i].ID > out[j].ID
	})
	return out
}

func valueOf(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
