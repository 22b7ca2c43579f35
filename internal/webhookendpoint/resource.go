// Package webhookendpoint implements the reseller_webhook resource: the account's one signed
// webhook endpoint. (The top-level package webhook is the verifier receivers use; this package
// imports it as hook.)
package webhookendpoint

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// TypeName is the type name of the resource.
const TypeName = "reseller_webhook"

// pingTimeout bounds the test ping, including waiting for a free slot while the API has too many
// pings in flight (503). One ping takes at most 15 seconds.
const pingTimeout = 2 * time.Minute

var (
	_ resource.ResourceWithConfigure   = (*Resource)(nil)
	_ resource.ResourceWithImportState = (*Resource)(nil)
)

// Resource is reseller_webhook.
type Resource struct {
	tfutil.ResourceBase
}

// NewResource returns reseller_webhook.
func NewResource() resource.Resource { return &Resource{} }

// Metadata sets the type name.
func (r *Resource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = TypeName
}

// Schema describes reseller_webhook.
func (r *Resource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = Schema()
}

// Create registers the webhook and, with verify, sends the test ping. It refuses to replace a
// registration made outside Terraform, since an account has only one. A ping that is not
// delivered is an error after the registration was saved: Terraform marks the resource tainted,
// and the next apply registers it again and sends another ping.
func (r *Resource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer setIdentity(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	defer tfutil.NullWriteOnly(ctx, &resp.State, &resp.Diagnostics) // on error paths too: the framework does it only on success
	c := r.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var plan, config Model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	current, err := c.GetWebhook(ctx)
	if err != nil {
		tfutil.AddAPIError(&resp.Diagnostics, "Unable to read the account's webhook", err)
		return
	}
	if current.Configured {
		resp.Diagnostics.AddError("Webhook already registered",
			fmt.Sprintf("The account already has a webhook (url %s), and an account has only one. Terraform does not "+
				"replace a registration it does not manage: import it (terraform import <address> %s, or an import "+
				"block with id = %q), or remove it first.", valueOr(current.URL, "unknown"), ID, ID))
		return
	}
	settings, err := c.PutWebhook(ctx, putRequest(plan, config))
	if err != nil {
		addPutError(&resp.Diagnostics, "Unable to register the webhook", err)
		return
	}
	tflog.Info(ctx, "webhook registered", map[string]any{"url": plan.URL.ValueString()})
	resp.Diagnostics.Append(plan.setSettings(ctx, settings)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !plan.Verify.ValueBool() {
		return
	}
	ping(ctx, c, plan.URL.ValueString(), &resp.Diagnostics)
}

// Read refreshes the URL and the events. A webhook no longer configured is removed from the
// state, so the next plan registers it again. The secret cannot be read back.
func (r *Resource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer func() { setIdentity(ctx, tfutil.ReadIdentityState(req, resp), resp.Identity, &resp.Diagnostics) }()
	c := r.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var state Model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	settings, err := c.GetWebhook(ctx)
	if err != nil {
		tfutil.AddAPIError(&resp.Diagnostics, "Unable to read the account's webhook", err)
		return
	}
	if !settings.Configured {
		tflog.Warn(ctx, "the webhook is no longer registered; removing it from the state")
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(state.setSettings(ctx, settings)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update registers the webhook again when the URL, the secret or the write-only secret's version
// changed, and with verify sends the test ping. When the ping is not delivered the state keeps
// verify false, so the next plan shows the change again and the next apply pings again.
func (r *Resource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer setIdentity(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	defer tfutil.NullWriteOnly(ctx, &resp.State, &resp.Diagnostics) // on error paths too: the framework does it only on success
	c := r.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var plan, prior, config Model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if needsPut(plan, prior) {
		settings, err := c.PutWebhook(ctx, putRequest(plan, config))
		if err != nil {
			addPutError(&resp.Diagnostics, "Unable to update the webhook", err)
			return
		}
		tflog.Info(ctx, "webhook registered again", map[string]any{"url": plan.URL.ValueString(),
			"secret_wo_version": plan.SecretWOVersion.ValueInt64()})
		resp.Diagnostics.Append(plan.setSettings(ctx, settings)...)
	} else {
		plan.SecretWO = types.StringNull()
	}
	if plan.Verify.ValueBool() {
		var pingDiags diag.Diagnostics
		ping(ctx, c, plan.URL.ValueString(), &pingDiags)
		resp.Diagnostics.Append(pingDiags...)
		if pingDiags.HasError() {
			plan.Verify = types.BoolValue(false) // not verified: the next apply pings again
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete removes the registration. Repeating it is safe.
func (r *Resource) Delete(ctx context.Context, _ resource.DeleteRequest, resp *resource.DeleteResponse) {
	c := r.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	if _, err := c.DeleteWebhook(ctx); err != nil {
		tfutil.AddAPIError(&resp.Diagnostics, "Unable to remove the webhook", err)
	}
}

// ImportState takes the id `webhook`, the only one there is; Read fills in the rest. The secret
// cannot be read back, so the next apply sends the configured one.
func (r *Resource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if id := importID(ctx, req, &resp.Diagnostics); id != ID {
		resp.Diagnostics.AddError("Invalid import ID",
			fmt.Sprintf("The import ID %q is not valid for %s: an account has one webhook, and its import ID is always "+
				"%q, for example `terraform import %s.main %s`.", id, TypeName, ID, TypeName, ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), ID)...)
}

// ping sends the test event and adds an error unless the endpoint answered 2xx. While the API
// has too many pings in flight (503) it waits for a slot, within pingTimeout.
func ping(ctx context.Context, c *client.Client, url string, diags *diag.Diagnostics) {
	var res *client.WebhookTestResult
	err := tfutil.Poll(ctx, tfutil.PollOptions{What: "the test ping to be sent", Timeout: pingTimeout, Interval: time.Second},
		func(ctx context.Context) (bool, string, error) {
			var err error
			res, err = c.TestWebhook(ctx)
			if tfutil.HasCode(err, client.CodeServiceUnavailable) || tfutil.HasCode(err, client.CodeRateLimited) {
				return false, "too many pings in flight", nil
			}
			return err == nil, "sent", err
		})
	if err != nil {
		tfutil.AddAPIError(diags, "Unable to send the webhook test ping", err)
		return
	}
	tflog.Info(ctx, "webhook test ping sent", map[string]any{"delivered": res.Delivered, "result": res.String()})
	if !res.Delivered {
		diags.AddAttributeError(path.Root("verify"), "Webhook test ping not delivered",
			fmt.Sprintf("The test event ping sent to %s was not delivered: %s. The endpoint must answer with a 2xx "+
				"status within 15 seconds; check that it is reachable from the service and that it verifies the "+
				"X-Service-Signature header with the same secret.", url, res))
	}
}

// addPutError reports a refused registration; a validation_error names the offending field.
func addPutError(diags *diag.Diagnostics, summary string, err error) {
	if tfutil.HasCode(err, client.CodeValidation) {
		diags.AddError(summary, tfutil.APIErrorDetail(err)+"\n\nThe API checks url and the secret: an https:// URL "+
			"(http:// only on a loopback host, and only when the backend allows it) and a "+secretLimits("secret")+".")
		return
	}
	tfutil.AddAPIError(diags, summary, err)
}

func valueOr(s *string, fallback string) string {
	if s == nil {
		return fallback
	}
	return strconv.Quote(*s)
}
