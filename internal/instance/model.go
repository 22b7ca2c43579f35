package instance

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// Model is the state of reseller_instance. Conversions to and from the API live in this file
// only; resource.go decides what to call and when.
type Model struct {
	// Arguments.
	PlanID               types.Int64    `tfsdk:"plan_id"`
	TemplateID           types.Int64    `tfsdk:"template_id"`
	SnapshotID           types.Int64    `tfsdk:"snapshot_id"`
	Hostname             types.String   `tfsdk:"hostname"`
	Name                 types.String   `tfsdk:"name"`
	Note                 types.String   `tfsdk:"note"`
	Features             types.Set      `tfsdk:"features"`
	Apps                 types.List     `tfsdk:"apps"`
	AppInputs            types.Map      `tfsdk:"app_inputs"`
	AppInputsWO          types.Map      `tfsdk:"app_inputs_wo"`
	AppInputsWOVersion   types.Int64    `tfsdk:"app_inputs_wo_version"`
	StorePassword        types.Bool     `tfsdk:"store_password"`
	Renew                types.Bool     `tfsdk:"renew"`
	Power                types.String   `tfsdk:"power"`
	PasswordResetTrigger types.String   `tfsdk:"password_reset_trigger"`
	IPChangeTrigger      types.String   `tfsdk:"ip_change_trigger"`
	MaxIPChangeCost      types.Float64  `tfsdk:"max_ip_change_cost"`
	WaitForApps          types.Bool     `tfsdk:"wait_for_apps"`
	Timeouts             timeouts.Value `tfsdk:"timeouts"`

	// Computed.
	ID             types.Int64   `tfsdk:"id"`
	OrderID        types.Int64   `tfsdk:"order_id"`
	Status         types.String  `tfsdk:"status"`
	IPv4           types.String  `tfsdk:"ipv4"`
	IPv6           types.String  `tfsdk:"ipv6"`
	Username       types.String  `tfsdk:"username"`
	Password       types.String  `tfsdk:"password"`
	Port           types.Int64   `tfsdk:"port"`
	DatacenterID   types.Int64   `tfsdk:"datacenter_id"`
	LocationID     types.Int64   `tfsdk:"location_id"`
	Price          types.Float64 `tfsdk:"price"`
	RenewalDue     types.String  `tfsdk:"renewal_due"`
	CreatedAt      types.String  `tfsdk:"created_at"`
	Locked         types.Bool    `tfsdk:"locked"`
	LockReason     types.String  `tfsdk:"lock_reason"`
	IPChangeCost   types.Float64 `tfsdk:"ip_change_cost"`
	ActiveFeatures types.Set     `tfsdk:"active_features"`
	Actions        types.List    `tfsdk:"actions"`
	Traffic        types.Object  `tfsdk:"traffic"`
}

// statusPending is the status shown while the order of an interrupted create is being built.
const statusPending = "pending"

// createRequest builds the POST /instances body from the plan.
func (m Model) createRequest(ctx context.Context) (client.CreateInstanceRequest, diag.Diagnostics) {
	var diags diag.Diagnostics
	req := client.CreateInstanceRequest{ServerID: m.PlanID.ValueInt64(), Term: client.TermHourly}
	if tfutil.IsSet(m.SnapshotID) {
		req.SnapshotID = m.SnapshotID.ValueInt64Pointer()
	} else if tfutil.IsSet(m.TemplateID) {
		req.TemplateID = m.TemplateID.ValueInt64Pointer()
	}
	if tfutil.IsSet(m.Hostname) {
		req.Hostname = m.Hostname.ValueStringPointer()
	}
	features, d := tfutil.StringsFromSet(ctx, m.Features)
	diags.Append(d...)
	sort.Strings(features)
	req.ActiveFeatures = features
	req.Apps, d = m.appIDs(ctx)
	diags.Append(d...)
	req.AppInputs, d = m.appInputs(ctx)
	diags.Append(d...)
	return req, diags
}

// appIDs returns the configured apps (nil when none or unknown).
func (m Model) appIDs(ctx context.Context) ([]string, diag.Diagnostics) {
	if !tfutil.IsSet(m.Apps) {
		return nil, nil
	}
	var out []string
	diags := m.Apps.ElementsAs(ctx, &out, false)
	if len(out) == 0 {
		return nil, diags
	}
	return out, diags
}

// appInputs returns the configured app inputs (nil when none or unknown).
// The write-only app_inputs_wo (which Create and Update take from the configuration: Terraform
// never puts a write-only value in the plan, and the framework nulls it in every state) is merged
// in, its values winning.
func (m Model) appInputs(ctx context.Context) (map[string]map[string]string, diag.Diagnostics) {
	var diags diag.Diagnostics
	out := map[string]map[string]string{}
	for _, v := range []types.Map{m.AppInputs, m.AppInputsWO} {
		if !tfutil.IsSet(v) {
			continue
		}
		var inputs map[string]map[string]string
		diags.Append(v.ElementsAs(ctx, &inputs, false)...)
		for app, kv := range inputs {
			if out[app] == nil {
				out[app] = map[string]string{}
			}
			maps.Copy(out[app], kv)
		}
	}
	if len(out) == 0 {
		return nil, diags
	}
	return out, diags
}

// rebuildRequest builds the rebuild action: the new template and the configured apps.
func (m Model) rebuildRequest(ctx context.Context) (client.ActionRequest, diag.Diagnostics) {
	req := client.ActionRequest{Action: client.ActionRebuild, TemplateID: m.TemplateID.ValueInt64Pointer()}
	var diags, d diag.Diagnostics
	req.Apps, d = m.appIDs(ctx)
	diags.Append(d...)
	req.AppInputs, d = m.appInputs(ctx)
	diags.Append(d...)
	return req, diags
}

// patchRequest returns the PATCH body that brings the instance from prior to m, and whether
// anything needs changing. A removed note is cleared with an empty string.
func (m Model) patchRequest(prior Model) (client.UpdateInstanceRequest, bool) {
	var req client.UpdateInstanceRequest
	if tfutil.IsSet(m.Name) && !m.Name.Equal(prior.Name) {
		req.Name = m.Name.ValueStringPointer()
	}
	if !m.Note.IsUnknown() && !m.Note.Equal(prior.Note) {
		note := m.Note.ValueString() // "" for null: clears it
		req.Note = &note
	}
	if tfutil.IsSet(m.Renew) && !m.Renew.Equal(prior.Renew) {
		req.Renew = m.Renew.ValueBoolPointer()
	}
	return req, req.Name != nil || req.Note != nil || req.Renew != nil
}

// afterCreate is the state of an instance just built: what the API knows plus the PATCHable
// fields a create cannot send, which must then be compared with the fresh instance.
func (m Model) afterCreate() Model {
	prior := m
	prior.Name = types.StringNull()
	prior.Note = types.StringNull()
	prior.Renew = types.BoolValue(true)
	return prior
}

// acceptOrder records an accepted order: its id and price.
func (m *Model) acceptOrder(o *client.CreatedOrder) {
	m.OrderID = types.Int64Value(o.OrderID)
	m.Price = types.Float64Value(o.Price)
}

// fillUnknownsFrom copies from fresh every value that is unknown in m. Known values of m are
// the plan, which Terraform requires the applied state to keep.
func (m *Model) fillUnknownsFrom(fresh Model) {
	dst := reflect.ValueOf(m).Elem()
	src := reflect.ValueOf(fresh)
	for i := range dst.NumField() {
		if v, ok := dst.Field(i).Interface().(attr.Value); ok && v.IsUnknown() {
			dst.Field(i).Set(src.Field(i))
		}
	}
}

// fillEmptyArguments gives apps and app_inputs left out of the configuration their empty value,
// so that adding them later is recognised as a change.
func (m *Model) fillEmptyArguments() {
	if m.Apps.IsUnknown() {
		m.Apps = types.ListValueMust(types.StringType, []attr.Value{})
	}
	if m.AppInputs.IsUnknown() {
		m.AppInputs = types.MapValueMust(appInputsType, map[string]attr.Value{})
	}
}

// nullUnknowns replaces every unknown value with null, since a state must not hold unknowns.
func (m *Model) nullUnknowns() {
	for _, v := range []*types.Int64{&m.ID, &m.OrderID, &m.Port, &m.DatacenterID, &m.LocationID, &m.TemplateID} {
		if v.IsUnknown() {
			*v = types.Int64Null()
		}
	}
	for _, v := range []*types.String{&m.Status, &m.IPv4, &m.IPv6, &m.Username, &m.Password, &m.RenewalDue,
		&m.CreatedAt, &m.LockReason, &m.Hostname, &m.Name} {
		if v.IsUnknown() {
			*v = types.StringNull()
		}
	}
	for _, v := range []*types.Float64{&m.Price, &m.IPChangeCost} {
		if v.IsUnknown() {
			*v = types.Float64Null()
		}
	}
	if m.Locked.IsUnknown() {
		m.Locked = types.BoolNull()
	}
	if m.Actions.IsUnknown() {
		m.Actions = types.ListNull(types.StringType)
	}
	if m.ActiveFeatures.IsUnknown() {
		m.ActiveFeatures = types.SetNull(types.StringType)
	}
	if m.Traffic.IsUnknown() {
		m.Traffic = types.ObjectNull(trafficAttrTypes)
	}
	if m.Features.IsUnknown() {
		m.Features = types.SetNull(types.StringType)
	}
	if m.Apps.IsUnknown() {
		m.Apps = types.ListNull(types.StringType)
	}
	if m.AppInputs.IsUnknown() {
		m.AppInputs = types.MapNull(appInputsType)
	}
}

// setInstance copies what the API says about the instance into m. Arguments the API cannot
// read back (features, apps, app inputs, triggers) are left as they are; a password still
// pending keeps the last known one.
func (m *Model) setInstance(ctx context.Context, in *client.Instance) diag.Diagnostics {
	diags := m.setSummary(ctx, in)
	diags.Append(m.setDetail(ctx, in)...)
	return diags
}

// setSummary sets what GET /instances carries for each instance (summaryAttributes); the
// detail-only attributes keep their prior values.
func (m *Model) setSummary(ctx context.Context, in *client.Instance) diag.Diagnostics {
	var diags diag.Diagnostics
	m.ID = types.Int64Value(in.ID)
	m.PlanID = types.Int64Value(in.ServerProductID)
	if in.TemplateID != nil {
		m.TemplateID = types.Int64Value(*in.TemplateID)
	}
	if in.Hostname != nil {
		m.Hostname = types.StringValue(*in.Hostname)
	}
	m.Name = types.StringValue(in.Name)
	m.Note = noteFromAPI(in.Note, m.Note)
	m.Renew = types.BoolValue(in.Renew)
	m.Power = powerFromStatus(in.StatusValue(), m.Power)
	m.Status = types.StringPointerValue(in.Status)
	m.setAddresses(in)
	m.DatacenterID = types.Int64PointerValue(in.DatacenterID)
	m.LocationID = types.Int64PointerValue(in.LocationID)
	m.RenewalDue = types.StringPointerValue(in.RenewalDue)
	m.CreatedAt = types.StringPointerValue(in.CreatedAt)
	m.Locked = types.BoolValue(in.Locked)
	m.LockReason = types.StringPointerValue(in.LockReason)
	var d diag.Diagnostics
	m.Actions, d = tfutil.StringList(ctx, in.Actions)
	diags.Append(d...)
	if m.WaitForApps.IsNull() || m.WaitForApps.IsUnknown() {
		m.WaitForApps = types.BoolValue(true) // imported: the default
	}
	if m.StorePassword.IsNull() || m.StorePassword.IsUnknown() {
		m.StorePassword = types.BoolValue(true) // imported: the default
	}
	if m.Price.IsUnknown() {
		m.Price = types.Float64Null()
	}
	return diags
}

// setDetail sets what only GET /instances/{id} carries: credentials, traffic, the price of an
// IP change, the active features and the order.
func (m *Model) setDetail(ctx context.Context, in *client.Instance) diag.Diagnostics {
	var diags diag.Diagnostics
	m.setCredentials(in.Credentials)
	m.IPChangeCost = types.Float64Value(in.IPChangeCost)
	var d diag.Diagnostics
	m.Traffic, d = trafficValue(in.Traffic)
	diags.Append(d...)
	if in.ActiveFeatures != nil {
		m.ActiveFeatures, d = tfutil.StringSet(ctx, in.ActiveFeatures)
		diags.Append(d...)
	}
	if in.OrderID != 0 && !tfutil.IsSet(m.OrderID) {
		m.OrderID = types.Int64Value(in.OrderID) // imported: the API knows its order
	}
	if m.OrderID.IsUnknown() {
		m.OrderID = types.Int64Null()
	}
	return diags
}

// setAddresses prefers the instance's own addresses and falls back to the credentials'.
func (m *Model) setAddresses(in *client.Instance) {
	ipv4, ipv6 := in.IPv4, in.IPv6
	if c := in.Credentials; c != nil {
		ipv4 = firstNonNil(ipv4, c.IPv4)
		ipv6 = firstNonNil(ipv6, c.IPv6)
	}
	m.IPv4 = types.StringPointerValue(ipv4)
	m.IPv6 = types.StringPointerValue(ipv6)
}

// setCredentials copies the login. While credentials are pending (after a rebuild, for
// example) the API may have no password yet: the last known values are kept rather than erased.
func (m *Model) setCredentials(c *client.Credentials) {
	if c == nil {
		c = &client.Credentials{}
	}
	m.Username = keepIfNil(c.Username, m.Username)
	m.Password = keepIfNil(c.Password, m.Password)
	if !m.keepsPassword() {
		m.Password = types.StringNull()
	}
	if c.Port != nil {
		m.Port = types.Int64Value(*c.Port)
	} else if m.Port.IsUnknown() {
		m.Port = types.Int64Null()
	}
}

// keepIfNil returns v as a value, or prior when v is nil (null when prior is unknown).
func keepIfNil(v *string, prior types.String) types.String {
	if v != nil {
		return types.StringValue(*v)
	}
	if prior.IsUnknown() {
		return types.StringNull()
	}
	return prior
}

func firstNonNil(a, b *string) *string {
	if a != nil {
		return a
	}
	return b
}

// noteFromAPI maps the note the API may send to the attribute: an empty note is null (unless
// the state holds "" already), and an API that does not send notes keeps the state's.
func noteFromAPI(api *string, prior types.String) types.String {
	switch {
	case api == nil && prior.IsUnknown():
		return types.StringNull()
	case api == nil:
		return prior
	case *api == "":
		return types.StringNull()
	}
	return types.StringValue(*api)
}

// powerFromStatus maps the instance status to the power attribute. A transition (rebooting,
// rebuilding, ...) says nothing about the desired state, so the prior value stays.
func powerFromStatus(status string, prior types.String) types.String {
	switch status {
	case client.StatusOnline:
		return types.StringValue(PowerOn)
	case client.StatusOffline:
		return types.StringValue(PowerOff)
	}
	if prior.IsNull() || prior.IsUnknown() {
		return types.StringValue(PowerOn)
	}
	return prior
}

// trafficValue converts the traffic object; nil is null.
func trafficValue(t *client.Traffic) (types.Object, diag.Diagnostics) {
	if t == nil {
		return types.ObjectNull(trafficAttrTypes), nil
	}
	return types.ObjectValue(trafficAttrTypes, map[string]attr.Value{
		"enabled":          types.BoolValue(t.Enabled),
		"included":         types.Int64Value(int64(t.Included)),
		"used":             types.Int64Value(int64(t.Used)),
		"overage":          types.Int64Value(int64(t.Overage)),
		"allow_overage":    types.BoolValue(t.AllowOverage),
		"cycle_start_date": types.StringPointerValue(t.CycleStartDate),
	})
}

// forcedFeatures returns the ids of the plan's features forced for osType, sorted.
func forcedFeatures(p *client.Plan, osType string) []string {
	var out []string
	for _, f := range p.Features {
		if slices.Contains(f.RequiredForOSTypes, osType) {
			out = append(out, strconv.FormatInt(f.ID, 10))
		}
	}
	sort.Strings(out)
	return out
}

// setFeatures sets the computed features (when the configuration left them out) to ids.
func (m *Model) setFeatures(ctx context.Context, ids []string) diag.Diagnostics {
	var diags diag.Diagnostics
	m.Features, diags = tfutil.StringSet(ctx, ids)
	return diags
}

// powerWanted reports the desired power state as an instance status.
func (m Model) powerWanted() string {
	if m.Power.ValueString() == PowerOff {
		return client.StatusOffline
	}
	return client.StatusOnline
}

// triggerFired reports whether a trigger changed to a new, non-null value. Removing a trigger
// runs nothing.
func triggerFired(plan, prior types.String) bool {
	return tfutil.IsSet(plan) && !plan.Equal(prior)
}

// ItemModel is one server of reseller_instances.
type ItemModel struct {
	ID           types.Int64   `tfsdk:"id"`
	Name         types.String  `tfsdk:"name"`
	Status       types.String  `tfsdk:"status"`
	Active       types.Bool    `tfsdk:"active"`
	Hostname     types.String  `tfsdk:"hostname"`
	PlanID       types.Int64   `tfsdk:"plan_id"`
	TemplateID   types.Int64   `tfsdk:"template_id"`
	DatacenterID types.Int64   `tfsdk:"datacenter_id"`
	LocationID   types.Int64   `tfsdk:"location_id"`
	IPv4         types.String  `tfsdk:"ipv4"`
	IPv6         types.String  `tfsdk:"ipv6"`
	Renew        types.Bool    `tfsdk:"renew"`
	RenewalDue   types.String  `tfsdk:"renewal_due"`
	Locked       types.Bool    `tfsdk:"locked"`
	LockReason   types.String  `tfsdk:"lock_reason"`
	CreatedAt    types.String  `tfsdk:"created_at"`
	ExpiredAt    types.String  `tfsdk:"expired_at"`
	Costs        types.Float64 `tfsdk:"costs"`
	PaidAmount   types.Float64 `tfsdk:"paid_amount"`
}

// newInstanceItems converts API instance summaries, keeping the API's order (newest first).
func newInstanceItems(in []client.Instance) []ItemModel {
	out := make([]ItemModel, 0, len(in))
	for _, s := range in {
		out = append(out, ItemModel{
			ID:           types.Int64Value(s.ID),
			Name:         types.StringValue(s.Name),
			Status:       types.StringPointerValue(s.Status),
			Active:       types.BoolValue(s.Active),
			Hostname:     types.StringPointerValue(s.Hostname),
			PlanID:       types.Int64Value(s.ServerProductID),
			TemplateID:   types.Int64PointerValue(s.TemplateID),
			DatacenterID: types.Int64PointerValue(s.DatacenterID),
			LocationID:   types.Int64PointerValue(s.LocationID),
			IPv4:         types.StringPointerValue(s.IPv4),
			IPv6:         types.StringPointerValue(s.IPv6),
			Renew:        types.BoolValue(s.Renew),
			RenewalDue:   types.StringPointerValue(s.RenewalDue),
			Locked:       types.BoolValue(s.Locked),
			LockReason:   types.StringPointerValue(s.LockReason),
			CreatedAt:    types.StringPointerValue(s.CreatedAt),
			ExpiredAt:    types.StringPointerValue(s.ExpiredAt),
			Costs:        types.Float64PointerValue(s.Costs),
			PaidAmount:   types.Float64PointerValue(s.PaidAmount),
		})
	}
	return out
}

// InstancesModel is the state of reseller_instances.
type InstancesModel struct {
	OnlyActive types.Bool  `tfsdk:"only_active"`
	Instances  []ItemModel `tfsdk:"instances"`
}
