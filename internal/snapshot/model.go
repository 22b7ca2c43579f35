package snapshot

import (
	"context"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// Model is the state of reseller_snapshot. Conversions to and from the API live in this file
// only; resource.go decides what to call and when.
type Model struct {
	// Arguments.
	InstanceID types.Int64    `tfsdk:"instance_id"`
	Name       types.String   `tfsdk:"name"`
	Note       types.String   `tfsdk:"note"`
	Timeouts   timeouts.Value `tfsdk:"timeouts"`

	// Computed.
	ID           types.Int64   `tfsdk:"id"`
	Status       types.String  `tfsdk:"status"`
	SizeGB       types.Float64 `tfsdk:"size_gb"`
	Price        types.Float64 `tfsdk:"price"`
	PriceMonthly types.Float64 `tfsdk:"price_monthly"`
	Accrued      types.Float64 `tfsdk:"accrued"`
	Local        types.Bool    `tfsdk:"local"`
	Restore      types.Bool    `tfsdk:"restore"`
	Features     types.List    `tfsdk:"features"`
	OSType       types.String  `tfsdk:"os_type"`
	DatacenterID types.Int64   `tfsdk:"datacenter_id"`
	LocationID   types.Int64   `tfsdk:"location_id"`
	CreatedAt    types.String  `tfsdk:"created_at"`
	AvailableAt  types.String  `tfsdk:"available_at"`
	Locked       types.Bool    `tfsdk:"locked"`
	LockReason   types.String  `tfsdk:"lock_reason"`
}

// createRequest builds the POST /instances/{id}/snapshots body: the name when configured (the
// API names it otherwise). The note cannot be sent on create; see notePatch.
func (m Model) createRequest() client.CreateSnapshotRequest {
	var req client.CreateSnapshotRequest
	if tfutil.IsSet(m.Name) {
		req.Name = m.Name.ValueStringPointer()
	}
	return req
}

// patchRequest returns the PATCH body that brings the snapshot from prior to m, and whether
// anything needs changing. A removed note is cleared with an empty string, which the API takes
// as "clear"; a removed name keeps the current one (the attribute is computed).
func (m Model) patchRequest(prior Model) (client.UpdateSnapshotRequest, bool) {
	var req client.UpdateSnapshotRequest
	if tfutil.IsSet(m.Name) && !m.Name.Equal(prior.Name) {
		req.Name = m.Name.ValueStringPointer()
	}
	if !m.Note.IsUnknown() && !m.Note.Equal(prior.Note) {
		note := m.Note.ValueString() // "" for null: clears it
		req.Note = &note
	}
	return req, req.Name != nil || req.Note != nil
}

// afterCreate is the state of a snapshot just taken, for patchRequest: the name was sent with
// the create, the note was not.
func (m Model) afterCreate() Model {
	prior := m
	prior.Note = types.StringNull()
	return prior
}

// setSnapshot copies what the API says about the snapshot into m. instance_id is an argument:
// the API shows null once the source server is gone, which must not plan a new snapshot, so it
// is taken from the API only when m has none (after an import).
func (m *Model) setSnapshot(ctx context.Context, s *client.Snapshot) diag.Diagnostics {
	m.ID = types.Int64Value(s.ID)
	if !tfutil.IsSet(m.InstanceID) {
		m.InstanceID = types.Int64PointerValue(s.InstanceID)
	}
	m.Name = types.StringValue(s.Name)
	m.Note = noteFromAPI(s.Note)
	m.Status = types.StringValue(s.Status)
	m.SizeGB = types.Float64PointerValue(s.SizeGB)
	m.Price = types.Float64PointerValue(s.Price)
	m.PriceMonthly = types.Float64PointerValue(s.PriceMonthly)
	m.Accrued = types.Float64PointerValue(s.Accrued)
	m.Local = types.BoolValue(s.Local)
	m.Restore = types.BoolValue(s.Restore)
	m.OSType = types.StringPointerValue(s.OSType)
	m.DatacenterID = types.Int64PointerValue(s.DatacenterID)
	m.LocationID = types.Int64PointerValue(s.LocationID)
	m.CreatedAt = types.StringPointerValue(s.CreatedAt)
	m.AvailableAt = types.StringPointerValue(s.AvailableAt)
	m.Locked = types.BoolValue(s.Locked)
	m.LockReason = types.StringPointerValue(s.LockReason)
	var diags diag.Diagnostics
	m.Features, diags = tfutil.StringList(ctx, s.Features)
	return diags
}

// nullUnknowns replaces every unknown value with null, since a state must not hold unknowns. It
// is used when a create saves its progress before the snapshot is read.
func (m *Model) nullUnknowns() {
	for _, v := range []*types.Int64{&m.ID, &m.DatacenterID, &m.LocationID} {
		if v.IsUnknown() {
			*v = types.Int64Null()
		}
	}
	for _, v := range []*types.String{&m.Name, &m.Status, &m.OSType, &m.CreatedAt, &m.AvailableAt, &m.LockReason} {
		if v.IsUnknown() {
			*v = types.StringNull()
		}
	}
	for _, v := range []*types.Float64{&m.SizeGB, &m.Price, &m.PriceMonthly, &m.Accrued} {
		if v.IsUnknown() {
			*v = types.Float64Null()
		}
	}
	for _, v := range []*types.Bool{&m.Local, &m.Restore, &m.Locked} {
		if v.IsUnknown() {
			*v = types.BoolNull()
		}
	}
	if m.Features.IsUnknown() {
		m.Features = types.ListNull(types.StringType)
	}
}

// markVolatileUnknown marks unknown the values that change on their own (the accrual every
// hour, the status with restores, the lock with unpaid charges), so that an update applying
// them never contradicts its plan.
func (m *Model) markVolatileUnknown() {
	m.Status = types.StringUnknown()
	m.Accrued = types.Float64Unknown()
	m.Locked = types.BoolUnknown()
	m.LockReason = types.StringUnknown()
}

// noteFromAPI maps the note the API sends to the attribute: none or empty is null.
func noteFromAPI(api *string) types.String {
	if api == nil || *api == "" {
		return types.StringNull()
	}
	return types.StringValue(*api)
}

// SnapshotsModel is the state of reseller_snapshots.
type SnapshotsModel struct {
	IncludeInactive types.Bool  `tfsdk:"include_inactive"`
	InstanceID      types.Int64 `tfsdk:"instance_id"`
	Snapshots       []ItemModel `tfsdk:"snapshots"`
}

// ItemModel is one snapshot of reseller_snapshots.
type ItemModel struct {
	ID           types.Int64   `tfsdk:"id"`
	Name         types.String  `tfsdk:"name"`
	Status       types.String  `tfsdk:"status"`
	Note         types.String  `tfsdk:"note"`
	InstanceID   types.Int64   `tfsdk:"instance_id"`
	SourceName   types.String  `tfsdk:"source_name"`
	SizeGB       types.Float64 `tfsdk:"size_gb"`
	Price        types.Float64 `tfsdk:"price"`
	PriceMonthly types.Float64 `tfsdk:"price_monthly"`
	Accrued      types.Float64 `tfsdk:"accrued"`
	PaidAmount   types.Float64 `tfsdk:"paid_amount"`
	Local        types.Bool    `tfsdk:"local"`
	Restore      types.Bool    `tfsdk:"restore"`
	Features     []string      `tfsdk:"features"`
	OSType       types.String  `tfsdk:"os_type"`
	TemplateID   types.Int64   `tfsdk:"template_id"`
	PlanID       types.Int64   `tfsdk:"plan_id"`
	DatacenterID types.Int64   `tfsdk:"datacenter_id"`
	LocationID   types.Int64   `tfsdk:"location_id"`
	CreatedAt    types.String  `tfsdk:"created_at"`
	AvailableAt  types.String  `tfsdk:"available_at"`
	ExpiredAt    types.String  `tfsdk:"expired_at"`
	Locked       types.Bool    `tfsdk:"locked"`
	LockReason   types.String  `tfsdk:"lock_reason"`
}

// newItems converts API snapshots, keeping their order.
func newItems(in []client.Snapshot) []ItemModel {
	out := make([]ItemModel, 0, len(in))
	for _, s := range in {
		features := s.Features
		if features == nil {
			features = []string{}
		}
		out = append(out, ItemModel{
			ID:           types.Int64Value(s.ID),
			Name:         types.StringValue(s.Name),
			Status:       types.StringValue(s.Status),
			Note:         noteFromAPI(s.Note),
			InstanceID:   types.Int64PointerValue(s.InstanceID),
			SourceName:   types.StringPointerValue(s.SourceName),
			SizeGB:       types.Float64PointerValue(s.SizeGB),
			Price:        types.Float64PointerValue(s.Price),
			PriceMonthly: types.Float64PointerValue(s.PriceMonthly),
			Accrued:      types.Float64PointerValue(s.Accrued),
			PaidAmount:   types.Float64PointerValue(s.PaidAmount),
			Local:        types.BoolValue(s.Local),
			Restore:      types.BoolValue(s.Restore),
			Features:     features,
			OSType:       types.StringPointerValue(s.OSType),
			TemplateID:   types.Int64PointerValue(s.TemplateID),
			PlanID:       types.Int64PointerValue(s.ServerProductID),
			DatacenterID: types.Int64PointerValue(s.DatacenterID),
			LocationID:   types.Int64PointerValue(s.LocationID),
			CreatedAt:    types.StringPointerValue(s.CreatedAt),
			AvailableAt:  types.StringPointerValue(s.AvailableAt),
			ExpiredAt:    types.StringPointerValue(s.ExpiredAt),
			Locked:       types.BoolValue(s.Locked),
			LockReason:   types.StringPointerValue(s.LockReason),
		})
	}
	return out
}

// RestoreModel is the state of reseller_snapshot_restore.
type RestoreModel struct {
	SnapshotID types.Int64    `tfsdk:"snapshot_id"`
	Triggers   types.Map      `tfsdk:"triggers"`
	Timeouts   timeouts.Value `tfsdk:"timeouts"`
	ID         types.String   `tfsdk:"id"`
	InstanceID types.Int64    `tfsdk:"instance_id"`
	RestoredAt types.String   `tfsdk:"restored_at"`
}

// setRestore records a restore the API accepted.
func (m *RestoreModel) setRestore(snapshotID, instanceID int64, at time.Time) {
	m.InstanceID = types.Int64Value(instanceID)
	m.RestoredAt = types.StringValue(at.Format(time.RFC3339))
	m.ID = types.StringValue(strconv.FormatInt(snapshotID, 10) + "@" + m.RestoredAt.ValueString())
}
