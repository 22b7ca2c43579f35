package instance

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

var _ list.ListResourceWithConfigure = (*ListResource)(nil)

// ListResource is the reseller_instance list resource: `terraform query` finds the account's
// servers (also those no configuration manages) so they can be imported, and with
// -generate-config-out writes their configuration.
type ListResource struct {
	tfutil.ResourceBase
}

// NewListResource returns the reseller_instance list resource.
func NewListResource() list.ListResource { return &ListResource{} }

// Metadata sets the type name: that of the resource it lists.
func (r *ListResource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = TypeName
}

// ListResourceConfigSchema describes the filters of a list "reseller_instance" block.
func (r *ListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Finds the account's servers for `terraform query` (Terraform 1.14 and later), " +
			"also those no configuration manages, paging through the whole account. Every filter is " +
			"optional; a server must pass all that are set. `terraform query -generate-config-out=FILE` " +
			"writes a `reseller_instance` block and an `import` block for each server found, which then " +
			"plan with no changes. Terraform keeps at most `limit` results of a list block (100 unless " +
			"the block sets it): set `limit` for a larger account.",
		Attributes: map[string]schema.Attribute{
			"status": schema.StringAttribute{
				MarkdownDescription: "Only servers with this status, e.g. `online` or `offline`.",
				Optional:            true,
			},
			"only_active": schema.BoolAttribute{
				MarkdownDescription: "Whether to leave out canceled and expired servers (default `true`). " +
					"A canceled or expired server cannot be imported.",
				Optional: true,
			},
			"datacenter_id": schema.Int64Attribute{
				MarkdownDescription: "Only servers in this datacenter (see `reseller_datacenters`).",
				Optional:            true,
			},
			"location_id": schema.Int64Attribute{
				MarkdownDescription: "Only servers at this location (see `reseller_locations`).",
				Optional:            true,
			},
			"plan_id": schema.Int64Attribute{
				MarkdownDescription: "Only servers of this plan.",
				Optional:            true,
			},
			"name_regex": schema.StringAttribute{
				MarkdownDescription: "Only servers whose name or hostname matches this regular expression " +
					"(RE2 syntax, unanchored: use `^` and `$` to match the whole name).",
				Optional:   true,
				Validators: []validator.String{tfutil.ValidRegex()},
			},
		},
	}
}

// List streams the servers that pass the filters, in id order.
func (r *ListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	tfutil.StreamList(ctx, &r.ResourceBase, req, stream, "instances", findInstances,
		tfutil.ListConverter[client.Instance, Model]{DisplayName: listDisplayName, Fill: fillFromSummary, SetIdentity: setIdentity})
}

// findInstances returns the account's instances that pass the filters of config.
func findInstances(ctx context.Context, c *client.Client, config ListConfigModel) ([]client.Instance, error) {
	f, err := config.filter()
	if err != nil {
		return nil, err
	}
	all, err := c.AllInstances(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(in client.Instance) bool { return !f.matches(in) }), nil
}
