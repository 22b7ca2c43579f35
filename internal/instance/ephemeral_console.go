package instance

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// ConsoleTypeName is the type name of the ephemeral resource.
const ConsoleTypeName = "reseller_console"

var _ ephemeral.EphemeralResourceWithConfigure = (*Console)(nil)

// Console is reseller_console: a short-lived console session of a server. Being ephemeral, its
// URL and password exist only while Terraform runs and are never written to plan or state.
type Console struct {
	tfutil.EphemeralResourceBase
}

// NewConsole returns reseller_console.
func NewConsole() ephemeral.EphemeralResource { return &Console{} }

// ConsoleModel is the data of reseller_console.
type ConsoleModel struct {
	InstanceID      types.Int64  `tfsdk:"instance_id"`
	ConsoleURL      types.String `tfsdk:"console_url"`
	ConsolePassword types.String `tfsdk:"console_password"`
}

// Metadata sets the type name.
func (e *Console) Metadata(_ context.Context, _ ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = ConsoleTypeName
}

// Schema describes reseller_console.
func (e *Console) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = ConsoleSchema()
}

// ConsoleSchema is the schema of reseller_console.
func ConsoleSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Opens a short-lived console session of a server with the " +
			"`console` action. An ephemeral resource (Terraform 1.10 and later): the URL and password are " +
			"never stored in the plan or state; pass them to a provider, a write-only argument or a local " +
			"that only lives during the run. Each run opens a new session.",
		Attributes: map[string]schema.Attribute{
			"instance_id": schema.Int64Attribute{
				MarkdownDescription: "Id of the server, e.g. `reseller_instance.web.id`. Its plan must list the " +
					"`console` action.",
				Required:   true,
				Validators: []validator.Int64{int64validator.AtLeast(1)},
			},
			"console_url": schema.StringAttribute{
				MarkdownDescription: "Short-lived URL of the console session; it needs `console_password`.",
				Computed:            true,
			},
			"console_password": schema.StringAttribute{
				MarkdownDescription: "Password of the console session.",
				Computed:            true,
				Sensitive:           true,
			},
		},
	}
}

// Open runs the console action.
func (e *Console) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	c := e.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var data ConsoleModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := data.InstanceID.ValueInt64()
	res, err := c.RunAction(ctx, id, client.ActionRequest{Action: client.ActionConsole})
	switch {
	case tfutil.IsNotFound(err):
		resp.Diagnostics.AddAttributeError(path.Root("instance_id"), "Instance not found",
			fmt.Sprintf("Instance %d does not exist or does not belong to this account.\n\n%s", id, tfutil.APIErrorDetail(err)))
		return
	case err != nil:
		addOperationError(ctx, c, &resp.Diagnostics, id, fmt.Sprintf("Unable to open a console on instance %d", id), err)
		return
	}
	data.setConsole(res)
	tflog.Info(ctx, "console session opened", map[string]any{"instance_id": id})
	resp.Diagnostics.Append(resp.Result.Set(ctx, &data)...)
}

// setConsole copies the action's answer.
func (m *ConsoleModel) setConsole(res *client.ActionResult) {
	m.ConsoleURL = types.StringPointerValue(res.ConsoleURL)
	m.ConsolePassword = types.StringPointerValue(res.ConsolePassword)
}
