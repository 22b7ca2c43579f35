package instance

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil/schemacheck"
)

// sampleInstance is an instance detail as the API returns it.
func sampleInstance() *client.Instance {
	return &client.Instance{
		InstanceSummary: client.InstanceSummary{
			ID: 7, Name: "web", Status: new("online"), Active: true, Hostname: new("web.example"),
			ServerProductID: 101, IPv4: new("10.0.0.7"), IPv6: new("2001:db8::7"), RenewalDue: new("2025-06-01T11:00:00Z"),
			Renew: true, CreatedAt: new("2025-06-01T10:00:00Z"), DatacenterID: new(int64(1)), LocationID: new(int64(11)),
			TemplateID: new(int64(1)), Actions: []string{"power_on", "power_off"},
		},
		IPChangeCost: 0.5,
		Template:     &client.Template{ID: 1, Name: "Ubuntu", OSType: "linux"},
		Traffic:      &client.Traffic{Enabled: true, Included: 1000, Used: 3, CycleStartDate: new("2025-06-01T10:00:00Z")},
		Credentials: &client.Credentials{Username: new("root"), Password: new("s3cret"), Port: new(int64(22)),
			IPv4: new("10.0.0.7")},
	}
}

// emptyModel is a model with every collection typed, as the framework would read a config.
func emptyModel() Model {
	return Model{
		Features:       types.SetNull(types.StringType),
		Apps:           types.ListNull(types.StringType),
		AppInputs:      types.MapNull(appInputsType),
		AppInputsWO:    types.MapNull(appInputsType),
		Actions:        types.ListNull(types.StringType),
		ActiveFeatures: types.SetNull(types.StringType),
		Traffic:        types.ObjectNull(trafficAttrTypes),
		Timeouts:       timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType})},
	}
}

func TestModelsMatchSchemas(t *testing.T) {
	ctx := context.Background()
	m := emptyModel()
	m.PlanID = types.Int64Value(101)
	if diags := m.setInstance(ctx, sampleInstance()); diags.HasError() {
		t.Fatal(diags)
	}
	m.nullUnknowns()
	schemacheck.Resource(t, TypeName, Schema(ctx), m)

	ds := InstancesSchema()
	schemacheck.DataSource(t, InstancesTypeName, ds, InstancesModel{OnlyActive: types.BoolNull(), Instances: newInstanceItems([]client.Instance{*sampleInstance(), {InstanceSummary: client.InstanceSummary{ID: 8}}})})
	schemacheck.Fields(t, InstancesTypeName+".instances", ItemModel{}, schemacheck.Nested(t, ds.Attributes, "instances"))

	cm := ConsoleModel{InstanceID: types.Int64Value(7)}
	cm.setConsole(&client.ActionResult{ConsoleURL: new("https://console/x"), ConsolePassword: new("pw")})
	schemacheck.Ephemeral(t, ConsoleTypeName, ConsoleSchema(), cm)

	crm := CredentialsModel{InstanceID: types.Int64Value(7)}
	crm.setCredentials(sampleInstance())
	schemacheck.Ephemeral(t, CredentialsTypeName, CredentialsSchema(), crm)
}

func TestEveryAttributeDescribed(t *testing.T) {
	s := Schema(context.Background())
	for name, a := range s.Attributes {
		if a.GetMarkdownDescription() == "" {
			t.Errorf("%s.%s: no description", TypeName, name)
		}
	}
	for _, name := range []string{"password", "app_inputs"} {
		if !s.Attributes[name].IsSensitive() {
			t.Errorf("%s.%s: got not sensitive, want sensitive", TypeName, name)
		}
	}
}

func TestCreateRequest(t *testing.T) {
	ctx := context.Background()
	m := emptyModel()
	m.PlanID = types.Int64Value(101)
	m.TemplateID = types.Int64Value(3)
	m.SnapshotID = types.Int64Null()
	m.Hostname = types.StringValue("web")
	m.Features = types.SetValueMust(types.StringType, []attr.Value{types.StringValue("3"), types.StringValue("1")})
	m.Apps = types.ListValueMust(types.StringType, []attr.Value{types.StringValue("wordpress")})
	m.AppInputs = types.MapValueMust(appInputsType, map[string]attr.Value{
		"wordpress": types.MapValueMust(types.StringType, map[string]attr.Value{"SITE_TITLE": types.StringValue("Hi")}),
	})
	req, diags := m.createRequest(ctx)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if req.ServerID != 101 || req.TemplateID == nil || *req.TemplateID != 3 || req.SnapshotID != nil ||
		req.Term != "hourly" || req.Hostname == nil || *req.Hostname != "web" ||
		strings.Join(req.ActiveFeatures, ",") != "1,3" || strings.Join(req.Apps, ",") != "wordpress" ||
		req.AppInputs["wordpress"]["SITE_TITLE"] != "Hi" {
		t.Errorf("request: got %+v", req)
	}

	snap := emptyModel()
	snap.PlanID = types.Int64Value(101)
	snap.TemplateID = types.Int64Unknown()
	snap.SnapshotID = types.Int64Value(9)
	snap.Hostname = types.StringUnknown()
	snap.Features = types.SetUnknown(types.StringType)
	snap.Apps = types.ListUnknown(types.StringType)
	snap.AppInputs = types.MapUnknown(appInputsType)
	req, diags = snap.createRequest(ctx)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if req.SnapshotID == nil || *req.SnapshotID != 9 || req.TemplateID != nil || req.Hostname != nil ||
		req.ActiveFeatures != nil || req.Apps != nil || req.AppInputs != nil {
		t.Errorf("snapshot request: got %+v, want snapshot 9 and nothing else optional", req)
	}
}

func TestPatchRequest(t *testing.T) {
	prior := Model{Name: types.StringValue("a"), Note: types.StringValue("n"), Renew: types.BoolValue(true)}
	tests := []struct {
		name string
		plan Model
		want string
	}{
		{"nothing", prior, ""},
		{"rename", Model{Name: types.StringValue("b"), Note: prior.Note, Renew: prior.Renew}, "name=b"},
		{"clear note", Model{Name: prior.Name, Note: types.StringNull(), Renew: prior.Renew}, "note="},
		{"renew off", Model{Name: prior.Name, Note: prior.Note, Renew: types.BoolValue(false)}, "renew=false"},
		{"unknown name left alone", Model{Name: types.StringUnknown(), Note: prior.Note, Renew: prior.Renew}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, ok := tc.plan.patchRequest(prior)
			var got []string
			if req.Name != nil {
				got = append(got, "name="+*req.Name)
			}
			if req.Note != nil {
				got = append(got, "note="+*req.Note)
			}
			if req.Renew != nil {
				got = append(got, map[bool]string{true: "renew=true", false: "renew=false"}[*req.Renew])
			}
			if strings.Join(got, ",") != tc.want || ok != (tc.want != "") {
				t.Errorf("got %v (ok %v), want %q", got, ok, tc.want)
			}
		})
	}
	// A new server is named after its hostname, has no note and renews: only what differs is sent.
	fresh := Model{Name: types.StringValue("web"), Note: types.StringNull(), Renew: types.BoolValue(false)}
	req, ok := fresh.patchRequest(fresh.afterCreate())
	if !ok || req.Name == nil || req.Note != nil || req.Renew == nil || *req.Renew {
		t.Errorf("after create: got %+v, want name and renew=false", req)
	}
}

func TestSetInstance(t *testing.T) {
	ctx := context.Background()
	m := emptyModel()
	m.Password = types.StringValue("old")
	m.Power = types.StringValue(PowerOff)
	m.Note = types.StringValue("kept")
	in := sampleInstance()
	in.Credentials.Password = nil
	in.Credentials.Pending = true
	in.Status = new("rebooting")
	if diags := m.setInstance(ctx, in); diags.HasError() {
		t.Fatal(diags)
	}
	checks := []struct {
		name string
		got  attr.Value
		want attr.Value
	}{
		{"id", m.ID, types.Int64Value(7)},
		{"plan_id", m.PlanID, types.Int64Value(101)},
		{"password kept while pending", m.Password, types.StringValue("old")},
		{"power kept during a transition", m.Power, types.StringValue(PowerOff)},
		{"note kept when the API sends none", m.Note, types.StringValue("kept")},
		{"status", m.Status, types.StringValue("rebooting")},
		{"ipv4", m.IPv4, types.StringValue("10.0.0.7")},
		{"port", m.Port, types.Int64Value(22)},
		{"ip_change_cost", m.IPChangeCost, types.Float64Value(0.5)},
		{"wait_for_apps defaults", m.WaitForApps, types.BoolValue(true)},
	}
	for _, c := range checks {
		if !c.got.Equal(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	in.Status = new("offline")
	in.Note = new("")
	_ = m.setInstance(ctx, in)
	if m.Power.ValueString() != PowerOff || !m.Note.IsNull() {
		t.Errorf("offline with empty note: got power %v note %v, want off and null", m.Power, m.Note)
	}
}

func TestFillUnknownsFrom(t *testing.T) {
	m := emptyModel()
	m.Name = types.StringValue("planned")
	m.Status = types.StringUnknown()
	m.ID = types.Int64Unknown()
	fresh := m
	fresh.Name = types.StringValue("api")
	fresh.Status = types.StringValue("online")
	fresh.ID = types.Int64Value(3)
	m.fillUnknownsFrom(fresh)
	if m.Name.ValueString() != "planned" || m.Status.ValueString() != "online" || m.ID.ValueInt64() != 3 {
		t.Errorf("got name %v status %v id %v, want the planned name kept and the unknowns filled", m.Name, m.Status, m.ID)
	}
}

func TestNullUnknownsLeavesNoUnknown(t *testing.T) {
	m := emptyModel()
	for _, v := range []*types.String{&m.Status, &m.IPv4, &m.Hostname, &m.Name, &m.Password} {
		*v = types.StringUnknown()
	}
	m.ID, m.Port, m.TemplateID = types.Int64Unknown(), types.Int64Unknown(), types.Int64Unknown()
	m.Features, m.Apps, m.AppInputs = types.SetUnknown(types.StringType), types.ListUnknown(types.StringType), types.MapUnknown(appInputsType)
	m.Traffic, m.Actions, m.Locked, m.Price = types.ObjectUnknown(trafficAttrTypes), types.ListUnknown(types.StringType), types.BoolUnknown(), types.Float64Unknown()
	m.nullUnknowns()
	schemacheck.RoundtripResource(t, Schema(context.Background()), m)
	if !m.Features.IsNull() || !m.Apps.IsNull() || !m.ID.IsNull() {
		t.Errorf("got features %v apps %v id %v, want null", m.Features, m.Apps, m.ID)
	}
	m.Apps, m.AppInputs = types.ListUnknown(types.StringType), types.MapUnknown(appInputsType)
	m.fillEmptyArguments()
	if m.Apps.IsNull() || len(m.Apps.Elements()) != 0 || m.AppInputs.IsNull() {
		t.Errorf("fillEmptyArguments: got apps %v inputs %v, want empty values", m.Apps, m.AppInputs)
	}
}

func TestForcedFeatures(t *testing.T) {
	p := &client.Plan{Features: []client.Feature{
		{ID: 3, RequiredForOSTypes: nil},
		{ID: 1, RequiredForOSTypes: []string{"windows"}},
		{ID: 2, RequiredForOSTypes: []string{"windows", "linux"}},
	}}
	if got := strings.Join(forcedFeatures(p, "windows"), ","); got != "1,2" {
		t.Errorf("windows: got %q, want 1,2", got)
	}
	if got := strings.Join(forcedFeatures(p, "linux"), ","); got != "2" {
		t.Errorf("linux: got %q, want 2", got)
	}
}

func TestAppsDone(t *testing.T) {
	tests := []struct {
		name     string
		installs []client.AppInstall
		expect   int
		done     bool
		failed   bool
	}{
		{"none yet", nil, 2, false, false},
		{"all installed", []client.AppInstall{{AppID: "mysql", Status: "installed"}, {AppID: "wordpress", Status: "installed"}}, 2, true, false},
		{"one running", []client.AppInstall{{AppID: "mysql", Status: "installed"}, {AppID: "wordpress", Status: "installing"}}, 2, false, false},
		{"newest record wins", []client.AppInstall{{AppID: "docker", Status: "installed"}, {AppID: "docker", Status: "failed"}}, 1, true, false},
		{"failed", []client.AppInstall{{AppID: "docker", Status: "failed", Stage: "running", LogTail: "E: no space left"}}, 1, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done, _, err := appsDone(tc.installs, tc.expect)
			var appErr *appFailedError
			if done != tc.done || errors.As(err, &appErr) != tc.failed {
				t.Fatalf("got done %v err %v, want done %v failed %v", done, err, tc.done, tc.failed)
			}
			if tc.failed && !strings.Contains(err.Error(), "no space left") {
				t.Errorf("error %q: want the log tail quoted", err)
			}
		})
	}
}

func TestReplaceIfKnown(t *testing.T) {
	a := types.ListValueMust(types.StringType, []attr.Value{types.StringValue("docker")})
	b := types.ListValueMust(types.StringType, []attr.Value{types.StringValue("mysql")})
	null := types.ListNull(types.StringType)
	unknown := types.ListUnknown(types.StringType)
	tests := []struct {
		name                string
		state, plan, config attr.Value
		replace             bool
		adopt               attr.Value
	}{
		{"unchanged", a, a, a, false, nil},
		{"changed", a, b, b, true, nil},
		{"removed from config keeps state", a, a, null, false, nil},
		{"imported, config set", null, b, b, false, nil},
		{"imported, config null", null, unknown, null, false, null},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			replace, adopt := replaceIfKnown{}.decide(false, false, tc.state, tc.plan, tc.config)
			if replace != tc.replace || (adopt == nil) != (tc.adopt == nil) {
				t.Errorf("got replace %v adopt %v, want %v %v", replace, adopt, tc.replace, tc.adopt)
			}
		})
	}
	if replace, _ := (replaceIfKnown{}).decide(true, false, null, a, a); replace {
		t.Errorf("create: got replace, want none")
	}
}

func TestPowerFromStatus(t *testing.T) {
	tests := []struct {
		status string
		prior  types.String
		want   string
	}{
		{"online", types.StringValue(PowerOff), PowerOn},
		{"offline", types.StringValue(PowerOn), PowerOff},
		{"rebooting", types.StringValue(PowerOff), PowerOff},
		{"", types.StringNull(), PowerOn},
	}
	for _, tc := range tests {
		if got := powerFromStatus(tc.status, tc.prior).ValueString(); got != tc.want {
			t.Errorf("powerFromStatus(%q, %v): got %q, want %q", tc.status, tc.prior, got, tc.want)
		}
	}
}
