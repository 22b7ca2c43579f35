package instance

import (
	"context"
	"fmt"
	"time"

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

// CredentialsTypeName is the type name of the ephemeral credentials resource.
const CredentialsTypeName = "reseller_instance_credentials"

// credentialsWait bounds how long Open waits for credentials still pending (after a rebuild or
// a password reset): the datacenter delivers them within seconds.
const credentialsWait = 5 * time.Minute

var _ ephemeral.EphemeralResourceWithConfigure = (*Credentials)(nil)

// Credentials is reseller_instance_credentials: a server's login read fresh in each run and never
// written to the plan or the state, so a reseller_instance with store_password = false can still
// hand its password to a provider block or a write-only argument.
type Credentials struct {
	tfutil.EphemeralResourceBase
}

// NewCredentials returns reseller_instance_credentials.
func NewCredentials() ephemeral.EphemeralResource { return &Credentials{} }

// CredentialsModel is the data of reseller_instance_credentials.
type CredentialsModel struct {
	InstanceID types.Int64  `tfsdk:"instance_id"`
	Username   types.String `tfsdk:"username"`
	Password   types.String `tfsdk:"password"`
	Port       types.Int64  `tfsdk:"port"`
	IPv4       types.String `tfsdk:"ipv4"`
	IPv6       types.String `tfsdk:"ipv6"`
}

// Metadata sets the type name.
func (e *Credentials) Metadata(_ context.Context, _ ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = CredentialsTypeName
}

// Schema describes reseller_instance_credentials.
func (e *Credentials) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = CredentialsSchema()
}

// CredentialsSchema is the schema of reseller_instance_credentials.
func CredentialsSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "The login of a server (`GET /instances/{id}`), read fresh in each run. An ephemeral " +
			"resource (Terraform 1.10 and later): the values are never stored in the plan or the state. Pair it " +
			"with `store_password = false` on `reseller_instance` to keep the password out of the state and " +
			"still pass it to a provider block, a write-only argument or a provisioner connection. Credentials " +
			"still pending (right after a rebuild or password reset) are waited for, up to five minutes.",
		Attributes: map[string]schema.Attribute{
			"instance_id": schema.Int64Attribute{
				MarkdownDescription: "Id of the server, e.g. `reseller_instance.web.id`.",
				Required:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"username": schema.StringAttribute{MarkdownDescription: "Login user (`root`, or `Administrator` on Windows).", Computed: true},
			"password": schema.StringAttribute{MarkdownDescription: "Login password.", Computed: true, Sensitive: true},
			"port":     schema.Int64Attribute{MarkdownDescription: "SSH (or RDP) port.", Computed: true},
			"ipv4":     schema.StringAttribute{MarkdownDescription: "Public IPv4 address.", Computed: true},
			"ipv6":     schema.StringAttribute{MarkdownDescription: "Public IPv6 address.", Computed: true},
		},
	}
}

// Open reads the instance detail, waiting while its credentials are pending.
func (e *Credentials) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	c := e.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var data CredentialsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := data.InstanceID.ValueInt64()
	ctx, cancel := context.WithTimeout(ctx, credentialsWait)
	defer cancel()
	in, err := tfutil.WaitServer(ctx, c, tfutil.ServerWait{ID: id, What: "credentials",
		Done: func(in *client.Instance) bool { return in.Gone() || !in.CredentialsPending() }})
	switch {
	case tfutil.IsNotFound(err) || (err == nil && in.Gone()):
		resp.Diagnostics.AddAttributeError(path.Root("instance_id"), "Instance not found",
			fmt.Sprintf("Instance %d does not exist, is canceled or does not belong to this account.\n\n%s", id, tfutil.APIErrorDetail(err)))
		return
	case err != nil:
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to read the credentials of instance %d", id), err)
		return
	}
	data.setCredentials(in)
	tflog.Debug(ctx, "credentials read", map[string]any{"instance_id": id})
	resp.Diagnostics.Append(resp.Result.Set(ctx, &data)...)
}

// setCredentials copies the login and addresses of in (the addresses as the resource reads them).
func (m *CredentialsModel) setCredentials(in *client.Instance) {
	var r Model
	r.setAddresses(in)
	m.IPv4, m.IPv6 = r.IPv4, r.IPv6
	cr := in.Credentials
	if cr == nil {
		cr = &client.Credentials{}
	}
	m.Username = types.StringPointerValue(cr.Username)
	m.Password = types.StringPointerValue(cr.Password)
	m.Port = types.Int64PointerValue(cr.Port)
}
