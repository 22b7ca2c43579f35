// Package instance implements the reseller_instance resource (an hourly-billed server), the
// reseller_instances data source and the reseller_console ephemeral resource.
package instance

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/planbudget"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// TypeName is the type name of the resource.
const TypeName = "reseller_instance"

// Default timeouts. A build takes minutes at most; the order window of the API (after which an
// order times out on its own) is ten minutes by default.
const (
	defaultCreateTimeout = 20 * time.Minute
	defaultUpdateTimeout = 20 * time.Minute
	defaultDeleteTimeout = 10 * time.Minute
)

var (
	_ resource.ResourceWithConfigure   = (*Resource)(nil)
	_ resource.ResourceWithImportState = (*Resource)(nil)
	_ resource.ResourceWithModifyPlan  = (*Resource)(nil)
)

// Resource is reseller_instance.
type Resource struct {
	tfutil.ResourceBase
	checks *planbudget.Run // nil until configured
}

// NewResource returns reseller_instance.
func NewResource() resource.Resource { return &Resource{} }

// Configure keeps the client and the run's plan checks the provider handed over.
func (r *Resource) Configure(ctx context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.ResourceBase.Configure(ctx, req, resp)
	r.checks = tfutil.ChecksFromProviderData(req.ProviderData)
}

// Metadata sets the type name.
func (r *Resource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = TypeName
	resp.ResourceBehavior.MutableIdentity = true // see IdentitySchema
}

// Schema describes reseller_instance.
func (r *Resource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = Schema(ctx)
}

// complete fills what the plan m left unknown from the finished instance (in, or read again
// when nil): the computed attributes, the features (those the OS forces, when not configured),
// apps and app inputs.
func (r *Resource) complete(ctx context.Context, c *client.Client, m *Model, in *client.Instance) error {
	if in == nil {
		var err error
		if in, err = c.GetInstance(ctx, m.ID.ValueInt64(), false); err != nil {
			return fmt.Errorf("reading the instance: %w", err)
		}
	}
	fresh := *m
	if diags := fresh.setInstance(ctx, in); diags.HasError() {
		return fmt.Errorf("converting the instance: %v", diags)
	}
	if m.Features.IsUnknown() {
		// Not configured: the features the OS forces, which is all a new server has then.
		forced := in.ActiveFeatures
		if forced == nil {
			var err error
			if forced, err = forcedFeaturesOf(ctx, c, in); err != nil {
				return err
			}
		}
		if diags := fresh.setFeatures(ctx, forced); diags.HasError() {
			return fmt.Errorf("converting the features: %v", diags)
		}
	}
	m.fillUnknownsFrom(fresh)
	m.fillEmptyArguments()
	m.nullUnknowns()
	return nil
}

// forcedFeaturesOf returns the features the plan forces for the instance's OS, from the
// catalogue; used when the API does not report an instance's active_features.
func forcedFeaturesOf(ctx context.Context, c *client.Client, in *client.Instance) ([]string, error) {
	p, err := c.GetPlan(ctx, in.ServerProductID)
	if err != nil {
		return nil, fmt.Errorf("reading plan %d for its forced features: %w", in.ServerProductID, err)
	}
	osType := ""
	if in.Template != nil {
		osType = in.Template.OSType
	}
	if osType == "" && in.TemplateID != nil {
		for _, t := range p.Templates {
			if t.ID == *in.TemplateID {
				osType = t.OSType
			}
		}
	}
	return forcedFeatures(p, osType), nil
}

// Read refreshes the state from the shared instance list, reading the detail only where needed
// (refresh.go, refreshNote). An instance that is gone (404, canceled or expired) is removed, so
// the next plan creates it again. An unfinished create is refreshed from its order.
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
	if state.ID.IsNull() {
		r.readOrder(ctx, c, &state, resp)
		return
	}
	id := state.ID.ValueInt64()
	in, detailed, found, err := readInstance(ctx, c, state, id)
	switch {
	case err != nil:
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to read instance %d", id), err)
		return
	case !found:
		tflog.Warn(ctx, "instance not found; removing it from the state", map[string]any{"instance_id": id})
		resp.State.RemoveResource(ctx)
		return
	case in.Gone():
		tflog.Warn(ctx, "instance canceled or expired; removing it from the state",
			map[string]any{"instance_id": id, "status": in.StatusValue()})
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(state.setSummary(ctx, in)...)
	if detailed {
		resp.Diagnostics.Append(state.setDetail(ctx, in)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Delete cancels the instance; when the answer does not already report it canceled, it waits
// until the API does. An unfinished create
// first waits for its order, so a server still being built is not left behind.
func (r *Resource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	c := r.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var state Model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	ctx, cancel := tfutil.WithTimeout(ctx, state.Timeouts.Delete, defaultDeleteTimeout, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}

	if state.ID.IsNull() {
		id, ok := r.orderedInstance(ctx, c, state.OrderID, &resp.Diagnostics)
		if !ok {
			return
		}
		state.ID = types.Int64Value(id)
	}
	id := state.ID.ValueInt64()
	canceled, err := c.CancelInstance(ctx, id)
	if err != nil {
		if tfutil.IsNotFound(err) {
			return
		}
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to cancel instance %d", id), err)
		return
	}
	if r.checks != nil {
		r.checks.Deleted() // room for a replacement planned after it
	}
	if canceled.Gone() {
		// The answer already says canceled (spec: DELETE is synchronous): a destroy of N servers
		// costs N requests, not N more reads to confirm it.
		return
	}
	err = tfutil.Poll(ctx, tfutil.PollOptions{What: fmt.Sprintf("instance %d to be canceled", id)},
		func(ctx context.Context) (bool, string, error) {
			in, err := c.GetInstance(ctx, id, false)
			if tfutil.IsNotFound(err) {
				return true, "gone", nil
			}
			if err != nil {
				return false, "", err
			}
			return in.Gone(), in.StatusValue(), nil
		})
	if err != nil {
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to confirm that instance %d is canceled", id), err)
	}
}

// ImportState takes the numeric instance id; Read fills in the rest. Arguments the API cannot
// read back (features, apps, app_inputs, triggers) stay null and are taken from the
// configuration by the next apply without replacing the server.
func (r *Resource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id, ok := tfutil.ImportNumericID(ctx, req, TypeName, &resp.Diagnostics)
	if !ok {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}
