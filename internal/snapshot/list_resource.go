package snapshot

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

var _ list.ListResourceWithConfigure = (*ListResource)(nil)

// ListResource is the reseller_snapshot list resource: `terraform query` finds the account's
// snapshots (also those no configuration manages) so they can be imported, and with
// -generate-config-out writes their configuration.
type ListResource struct {
	tfutil.ResourceBase
}

// NewListResource returns the reseller_snapshot list resource.
func NewListResource() list.ListResource { return &ListResource{} }

// Metadata sets the type name: that of the resource it lists.
func (r *ListResource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = TypeName
}

// ListResourceConfigSchema describes the filters of a list "reseller_snapshot" block.
func (r *ListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Finds the account's snapshots for `terraform query` (Terraform 1.14 and later), " +
			"also those no configuration manages. Every filter is optional; a snapshot must pass all that " +
			"are set. `terraform query -generate-config-out=FILE` writes a `reseller_snapshot` block and an " +
			"`import` block for each snapshot found, which then plan with no changes. Terraform keeps at most " +
			"`limit` results of a list block (100 unless the block sets it): set `limit` for a larger account.",
		Attributes: map[string]schema.Attribute{
			"instance_id": schema.Int64Attribute{
				MarkdownDescription: "Only snapshots of this server.",
				Optional:            true,
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "Only snapshots with this status: `creating`, `available`, `restoring`, " +
					"or, with `include_inactive`, `deleted`, `expired` or `failed`.",
				Optional: true,
			},
			"include_inactive": schema.BoolAttribute{
				MarkdownDescription: "Whether to list ended snapshots (deleted, expired, failed) too; default " +
					"`false`. An ended snapshot cannot be imported.",
				Optional: true,
			},
		},
	}
}

// List streams the snapshots that pass the filters, in id order.
func (r *ListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	tfutil.StreamList(ctx, &r.ResourceBase, req, stream, "snapshots", findSnapshots,
		tfutil.ListConverter[client.Snapshot, Model]{DisplayName: listDisplayName, Fill: fillFromList, SetIdentity: setIdentity})
}

// findSnapshots returns the account's snapshots that pass the filters of config.
func findSnapshots(ctx context.Context, c *client.Client, config ListConfigModel) ([]client.Snapshot, error) {
	all, err := c.AllSnapshots(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(s client.Snapshot) bool { return !config.matches(s) }), nil
}
