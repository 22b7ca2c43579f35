package snapshot

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

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
