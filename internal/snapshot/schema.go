package snapshot

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/float64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/wire"
)

// Limits of the API (spec: Limits) checked at plan time; the backend refuses the same.
const (
	maxNameLength = wire.MaxNameLength
	maxNoteLength = wire.MaxNoteLength
)

// SchemaVersion is the version of reseller_snapshot's schema, stored with every state. Move it (and add an
// UpgradeState step from the version before) when an attribute is renamed, retyped or removed;
// see "Changing a resource schema" in the README. TestSchemaVersions holds it to that.
const SchemaVersion int64 = 0

// Schema is the schema of reseller_snapshot.
func Schema(ctx context.Context) schema.Schema {
	keepInt := []planmodifier.Int64{int64planmodifier.UseStateForUnknown()}
	keepString := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	keepFloat := []planmodifier.Float64{float64planmodifier.UseStateForUnknown()}
	keepBool := []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()}
	return schema.Schema{
		Version: SchemaVersion,
		MarkdownDescription: "A snapshot (disk image) of a server, billed hourly by its size from the moment it " +
			"is available. Creating it waits until the image is `available`; the server keeps running meanwhile. " +
			"An image that fails is an error and leaves nothing in the state (a failed snapshot is final and " +
			"never billed). `name` and `note` change in place; a new `instance_id` takes a new snapshot.\n\n" +
			"Build a new server from it with `reseller_instance` and `snapshot_id`; put it back onto its server " +
			"with `reseller_snapshot_restore`. A snapshot deleted outside Terraform (or expired: local snapshots " +
			"end with their server, unpaid ones after 72 hours locked) is removed from the state, so the next " +
			"plan takes a new one.",
		Attributes: map[string]schema.Attribute{
			"instance_id": schema.Int64Attribute{
				MarkdownDescription: "Id of the server to snapshot, e.g. `reseller_instance.web.id`. Changing it " +
					"replaces the snapshot: the old one is deleted and one of the new server taken.",
				Required:      true,
				Validators:    []validator.Int64{int64validator.AtLeast(1)},
				PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "Name, 1 to 64 characters. When omitted the API names the snapshot after the " +
					"server and the time; removing the attribute keeps the current name. Changes in place.",
				Optional:      true,
				Computed:      true,
				Validators:    []validator.String{stringvalidator.UTF8LengthBetween(1, maxNameLength)},
				PlanModifiers: keepString,
			},
			"note": schema.StringAttribute{
				MarkdownDescription: "Free-text note, 1 to 512 characters. Changes in place; removing it clears the " +
					"note (the provider sends the empty note the API takes as \"clear\").",
				Optional:   true,
				Validators: []validator.String{stringvalidator.UTF8LengthBetween(1, maxNoteLength)},
			},
			"id": schema.Int64Attribute{
				MarkdownDescription: "Id of the snapshot.",
				Computed:            true, PlanModifiers: keepInt,
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "Status: `available` once created; `restoring` while it is being put back onto its " +
					"server; `creating` only when a create was cut short.",
				Computed: true, PlanModifiers: keepString,
			},
			"size_gb": schema.Float64Attribute{
				MarkdownDescription: "Size of the image in GB, known once it is available.",
				Computed:            true, PlanModifiers: keepFloat,
			},
			"price": schema.Float64Attribute{
				MarkdownDescription: "USD per hour, fixed from the real size when the snapshot became available. The " +
					"hours accrue and are charged to the wallet once the accrued amount reaches 0.001 USD.",
				Computed: true, PlanModifiers: keepFloat,
			},
			"price_monthly": schema.Float64Attribute{
				MarkdownDescription: "`price` over a month of 730 hours, for display.",
				Computed:            true, PlanModifiers: keepFloat,
			},
			"accrued": schema.Float64Attribute{
				MarkdownDescription: "USD accrued and not yet charged, as last read (it grows every hour).",
				Computed:            true, PlanModifiers: keepFloat,
			},
			"local": schema.BoolAttribute{
				MarkdownDescription: "Whether the snapshot lives on the server's own disk: a restore point that ends " +
					"with the server.",
				Computed: true, PlanModifiers: keepBool,
			},
			"restore": schema.BoolAttribute{
				MarkdownDescription: "Whether the datacenter can restore it onto its server in place " +
					"(`reseller_snapshot_restore`); where false, only new servers can be built from it.",
				Computed: true, PlanModifiers: keepBool,
			},
			"features": schema.ListAttribute{
				MarkdownDescription: "Names of the features the server had, in the provider's `language`. A server " +
					"built from the snapshot carries those its plan offers unless it names its own `features`.",
				Computed: true, ElementType: types.StringType,
				PlanModifiers: []planmodifier.List{listplanmodifier.UseStateForUnknown()},
			},
			"os_type": schema.StringAttribute{
				MarkdownDescription: "OS type of the image (`linux` or `windows`); a server built from it runs this OS.",
				Computed:            true, PlanModifiers: keepString,
			},
			"datacenter_id": schema.Int64Attribute{
				MarkdownDescription: "Id of the datacenter. Servers can be built from the snapshot only in the same one.",
				Computed:            true, PlanModifiers: keepInt,
			},
			"location_id": schema.Int64Attribute{
				MarkdownDescription: "Id of the location of the server it was taken from.",
				Computed:            true, PlanModifiers: keepInt,
			},
			"created_at": schema.StringAttribute{
				MarkdownDescription: "When the snapshot was requested (RFC 3339).",
				Computed:            true, PlanModifiers: keepString,
			},
			"available_at": schema.StringAttribute{
				MarkdownDescription: "When the image became available and billing started (RFC 3339).",
				Computed:            true, PlanModifiers: keepString,
			},
			"locked": schema.BoolAttribute{
				MarkdownDescription: "Whether the snapshot is locked because a charge of it is unpaid; a locked " +
					"snapshot cannot be restored or cloned until the wallet is topped up.",
				Computed: true, PlanModifiers: keepBool,
			},
			"lock_reason": schema.StringAttribute{
				MarkdownDescription: "Why the snapshot is locked (`unpaid`).",
				Computed:            true, PlanModifiers: keepString,
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{Create: true, Delete: true}),
		},
	}
}

// RestoreSchemaVersion is the version of reseller_snapshot_restore's schema, stored with every state. Move it (and add an
// UpgradeState step from the version before) when an attribute is renamed, retyped or removed;
// see "Changing a resource schema" in the README. TestSchemaVersions holds it to that.
const RestoreSchemaVersion int64 = 0

// RestoreSchema is the schema of reseller_snapshot_restore.
func RestoreSchema(ctx context.Context) schema.Schema {
	return schema.Schema{
		Version: RestoreSchemaVersion,
		MarkdownDescription: "Restores a snapshot onto the server it was taken from, in place, once: when the " +
			"resource is created, and again whenever `triggers` (or `snapshot_id`) changes. **Everything written to " +
			"the server's disk since the snapshot is lost.** The server keeps its addresses; its disk, OS and " +
			"login (username, password, port) become the snapshot's, and it is left **powered off**: a " +
			"`reseller_instance` with `power = \"on\"` switches it on again at the next apply. Creating waits until " +
			"the snapshot is `available` again and the server has settled.\n\n" +
			"Meant for one-shot restores in a pipeline; destroying the resource only forgets it. Only datacenters " +
			"whose snapshots have `restore = true` restore in place; elsewhere build a new server from the " +
			"snapshot (`reseller_instance` with `snapshot_id`).",
		Attributes: map[string]schema.Attribute{
			"snapshot_id": schema.Int64Attribute{
				MarkdownDescription: "Id of the snapshot to restore, e.g. `reseller_snapshot.before_upgrade.id`. It " +
					"must be `available` and its server must still exist. Changing it restores the other snapshot.",
				Required:      true,
				Validators:    []validator.Int64{int64validator.AtLeast(1)},
				PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
			},
			"triggers": schema.MapAttribute{
				MarkdownDescription: "Any strings; changing them restores the snapshot again (the resource is " +
					"replaced). For example `{ run = \"2025-06-01\" }`.",
				Optional:      true,
				ElementType:   types.StringType,
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			},
			"id": schema.StringAttribute{
				MarkdownDescription: "Identifies this restore: the snapshot id and `restored_at`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"instance_id": schema.Int64Attribute{
				MarkdownDescription: "Id of the server the snapshot was restored onto (its source server).",
				Computed:            true,
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"restored_at": schema.StringAttribute{
				MarkdownDescription: "When the restore was requested (RFC 3339).",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{Create: true}),
		},
	}
}
