package snapshot

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil/schemacheck"
)

// sampleSnapshot is a snapshot as the API returns it once available.
func sampleSnapshot() *client.Snapshot {
	return &client.Snapshot{
		ID: 5, Name: "before upgrade", Status: client.SnapshotAvailable, Note: new("keep"), SizeGB: new(10.0),
		Price: new(0.000274), PriceMonthly: new(0.2), Accrued: new(0.000274), InstanceID: new(int64(7)),
		DatacenterID: new(int64(1)), LocationID: new(int64(11)), TemplateID: new(int64(1)), ServerProductID: new(int64(101)),
		OSType: new("linux"), SourceName: new("web"), Features: []string{"Automatic backups"}, Restore: true,
		CreatedAt: new("2025-06-01T10:00:00Z"), AvailableAt: new("2025-06-01T10:00:03Z"), PaidAmount: new(0.0),
	}
}

// emptyModel is a model with every collection and block typed, as the framework would read a
// configuration.
func emptyModel() Model {
	return Model{
		Features: types.ListNull(types.StringType),
		Timeouts: timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "delete": types.StringType})},
	}
}

func TestModelsMatchSchemas(t *testing.T) {
	ctx := context.Background()
	m := emptyModel()
	if diags := m.setSnapshot(ctx, sampleSnapshot()); diags.HasError() {
		t.Fatal(diags)
	}
	schemacheck.Resource(t, TypeName, Schema(ctx), m)

	rm := RestoreModel{
		SnapshotID: types.Int64Value(5),
		Triggers:   types.MapValueMust(types.StringType, map[string]attr.Value{"run": types.StringValue("1")}),
		Timeouts:   timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType})},
	}
	rm.setRestore(5, 7, mustTime(t, "2025-06-01T10:00:00Z"))
	schemacheck.Resource(t, RestoreTypeName, RestoreSchema(ctx), rm)

	ds := SnapshotsSchema()
	schemacheck.DataSource(t, SnapshotsTypeName, ds, SnapshotsModel{
		IncludeInactive: types.BoolNull(), InstanceID: types.Int64Value(7),
		Snapshots: newItems([]client.Snapshot{*sampleSnapshot(), {ID: 6, Status: client.SnapshotCreating}}),
	})
	schemacheck.Fields(t, SnapshotsTypeName+".snapshots", ItemModel{}, schemacheck.Nested(t, ds.Attributes, "snapshots"))
}

func TestEveryAttributeDescribed(t *testing.T) {
	ctx := context.Background()
	for name, a := range Schema(ctx).Attributes {
		if a.GetMarkdownDescription() == "" {
			t.Errorf("%s.%s: no description", TypeName, name)
		}
	}
	for name, a := range RestoreSchema(ctx).Attributes {
		if a.GetMarkdownDescription() == "" {
			t.Errorf("%s.%s: no description", RestoreTypeName, name)
		}
	}
	for name, a := range SnapshotsSchema().Attributes {
		if a.GetMarkdownDescription() == "" {
			t.Errorf("%s.%s: no description", SnapshotsTypeName, name)
		}
	}
}

func TestSetSnapshot(t *testing.T) {
	ctx := context.Background()
	m := emptyModel()
	m.InstanceID = types.Int64Null() // imported
	if diags := m.setSnapshot(ctx, sampleSnapshot()); diags.HasError() {
		t.Fatal(diags)
	}
	for name, ok := range map[string]bool{
		"id":            m.ID.ValueInt64() == 5,
		"instance_id":   m.InstanceID.ValueInt64() == 7,
		"name":          m.Name.ValueString() == "before upgrade",
		"note":          m.Note.ValueString() == "keep",
		"status":        m.Status.ValueString() == "available",
		"size_gb":       m.SizeGB.ValueFloat64() == 10,
		"price":         m.Price.ValueFloat64() == 0.000274,
		"restore":       m.Restore.ValueBool(),
		"local":         !m.Local.ValueBool() && !m.Local.IsNull(),
		"features":      len(m.Features.Elements()) == 1,
		"os_type":       m.OSType.ValueString() == "linux",
		"datacenter_id": m.DatacenterID.ValueInt64() == 1,
		"lock_reason":   m.LockReason.IsNull(),
	} {
		if !ok {
			t.Errorf("%s: wrong value in %+v", name, m)
		}
	}

	// The source server is gone: the API shows no instance_id, the argument keeps its value.
	gone := sampleSnapshot()
	gone.InstanceID = nil
	gone.Note = new("")
	if diags := m.setSnapshot(ctx, gone); diags.HasError() {
		t.Fatal(diags)
	}
	if m.InstanceID.ValueInt64() != 7 || !m.Note.IsNull() {
		t.Errorf("got instance_id %v note %v, want 7 kept and an empty note null", m.InstanceID, m.Note)
	}
}

func TestPatchRequest(t *testing.T) {
	prior := emptyModel()
	prior.Name = types.StringValue("a")
	prior.Note = types.StringValue("n")
	tests := []struct {
		name            string
		planName, note  types.String
		wantName, wantN *string
	}{
		{"nothing", types.StringValue("a"), types.StringValue("n"), nil, nil},
		{"rename", types.StringValue("b"), types.StringValue("n"), new("b"), nil},
		{"name removed keeps it", types.StringUnknown(), types.StringValue("n"), nil, nil},
		{"new note", types.StringValue("a"), types.StringValue("m"), nil, new("m")},
		{"note removed clears it", types.StringValue("a"), types.StringNull(), nil, new("")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := prior
			plan.Name, plan.Note = tt.planName, tt.note
			req, changed := plan.patchRequest(prior)
			if !equalPtr(req.Name, tt.wantName) || !equalPtr(req.Note, tt.wantN) || changed != (tt.wantName != nil || tt.wantN != nil) {
				t.Errorf("got name %v note %v changed %v, want name %v note %v", deref(req.Name), deref(req.Note), changed,
					deref(tt.wantName), deref(tt.wantN))
			}
		})
	}

	// After a create the note still has to be set; a configured name was sent with the create.
	plan := emptyModel()
	plan.Name = types.StringValue("a")
	plan.Note = types.StringValue("n")
	if req, changed := plan.patchRequest(plan.afterCreate()); !changed || req.Name != nil || deref(req.Note) != "n" {
		t.Errorf("after create: got name %v note %v, want only the note", deref(req.Name), deref(req.Note))
	}
	plan.Note = types.StringNull()
	if _, changed := plan.patchRequest(plan.afterCreate()); changed {
		t.Errorf("after create without a note: got a PATCH, want none")
	}
	if req := plan.createRequest(); deref(req.Name) != "a" {
		t.Errorf("create request name: got %v, want a", deref(req.Name))
	}
	plan.Name = types.StringUnknown()
	if req := plan.createRequest(); req.Name != nil {
		t.Errorf("create request without a name: got %q, want none (the API names it)", *req.Name)
	}
}

func TestNullUnknownsLeavesNoUnknown(t *testing.T) {
	m := emptyModel()
	m.ID, m.Name, m.Status, m.SizeGB = types.Int64Unknown(), types.StringUnknown(), types.StringUnknown(), types.Float64Unknown()
	m.Local, m.Features, m.DatacenterID = types.BoolUnknown(), types.ListUnknown(types.StringType), types.Int64Unknown()
	m.Price, m.PriceMonthly, m.Accrued, m.Restore, m.Locked = types.Float64Unknown(), types.Float64Unknown(),
		types.Float64Unknown(), types.BoolUnknown(), types.BoolUnknown()
	m.OSType, m.CreatedAt, m.AvailableAt, m.LockReason, m.LocationID = types.StringUnknown(), types.StringUnknown(),
		types.StringUnknown(), types.StringUnknown(), types.Int64Unknown()
	m.nullUnknowns()
	for name, v := range map[string]attr.Value{
		"id": m.ID, "name": m.Name, "status": m.Status, "size_gb": m.SizeGB, "local": m.Local, "features": m.Features,
		"datacenter_id": m.DatacenterID, "price": m.Price, "price_monthly": m.PriceMonthly, "accrued": m.Accrued,
		"restore": m.Restore, "locked": m.Locked, "os_type": m.OSType, "created_at": m.CreatedAt,
		"available_at": m.AvailableAt, "lock_reason": m.LockReason, "location_id": m.LocationID,
	} {
		if v.IsUnknown() {
			t.Errorf("%s: still unknown", name)
		}
	}
}

func TestMergeEnded(t *testing.T) {
	at := func(id int64, status, created string, instance *int64) client.Snapshot {
		return client.Snapshot{ID: id, Status: status, CreatedAt: new(created), InstanceID: instance}
	}
	seven, eight := new(int64(7)), new(int64(8))
	active := []client.Snapshot{at(4, client.SnapshotAvailable, "2025-06-01T12:00:00Z", seven)}
	all := []client.Snapshot{
		at(9, client.SnapshotDeleted, "2025-06-01T13:00:00Z", seven),
		at(6, client.SnapshotFailed, "2025-06-01T11:00:00Z", seven),
		at(5, client.SnapshotDeleted, "2025-06-01T11:30:00Z", eight),   // another server's
		at(4, client.SnapshotAvailable, "2025-06-01T12:00:00Z", seven), // listed already
		at(3, client.SnapshotExpired, "2025-06-01T09:00:00Z", nil),     // server gone: unknown
	}
	got := mergeEnded(active, all, 7)
	var ids []int64
	for _, s := range got {
		ids = append(ids, s.ID)
	}
	if len(ids) != 3 || ids[0] != 9 || ids[1] != 4 || ids[2] != 6 {
		t.Errorf("got %v, want [9 4 6] (newest first, only instance 7's)", ids)
	}
}

func TestWaitErrorsRead(t *testing.T) {
	if !isGone(&tfutil.SnapshotEndedError{ID: 5, Status: client.SnapshotDeleted}) {
		t.Error("isGone(endedError): got false, want true")
	}
	if !available(&client.Snapshot{Status: client.SnapshotAvailable}) || available(&client.Snapshot{Status: client.SnapshotRestoring}) {
		t.Error("available: wrong answer")
	}
}

func equalPtr(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
