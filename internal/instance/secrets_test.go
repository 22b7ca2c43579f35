package instance

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// TestAppInputsMergesWriteOnly: the write-only inputs join app_inputs, winning on a shared key.
func TestAppInputsMergesWriteOnly(t *testing.T) {
	ctx := context.Background()
	inputs := func(v map[string]map[string]string) types.Map {
		m, d := types.MapValueFrom(ctx, appInputsType, v)
		if d.HasError() {
			t.Fatal(d)
		}
		return m
	}
	m := emptyModel()
	m.AppInputs = inputs(map[string]map[string]string{"mysql": {"DATABASE": "shop", "ROOT_PASSWORD": "old"}})
	m.AppInputsWO = inputs(map[string]map[string]string{"mysql": {"ROOT_PASSWORD": "new"}, "wordpress": {"SITE_TITLE": "x"}})
	got, d := m.appInputs(ctx)
	if d.HasError() {
		t.Fatal(d)
	}
	want := map[string]map[string]string{"mysql": {"DATABASE": "shop", "ROOT_PASSWORD": "new"}, "wordpress": {"SITE_TITLE": "x"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got, _ := emptyModel().appInputs(ctx); got != nil {
		t.Errorf("no inputs: got %v, want nil", got)
	}
}

// TestPlanPassword: store_password false plans a null password; true again after false plans it
// unknown (the update reads it); the default keeps what the plan has.
func TestPlanPassword(t *testing.T) {
	tests := []struct {
		name        string
		store       types.Bool
		priorStore  *bool
		planned     types.String
		wantNull    bool
		wantUnknown bool
	}{
		{"not stored", types.BoolValue(false), nil, types.StringUnknown(), true, false},
		{"stored again", types.BoolValue(true), new(false), types.StringNull(), false, true},
		{"stored", types.BoolValue(true), new(true), types.StringValue("pw"), false, false},
		{"default", types.BoolNull(), nil, types.StringUnknown(), false, true},
		{"store_password unknown", types.BoolUnknown(), new(true), types.StringValue("pw"), false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := emptyModel()
			m.StorePassword, m.Password = tc.store, tc.planned
			var prior *Model
			if tc.priorStore != nil {
				p := emptyModel()
				p.StorePassword = types.BoolValue(*tc.priorStore)
				prior = &p
			}
			m.planPassword(prior)
			if m.Password.IsNull() != tc.wantNull || m.Password.IsUnknown() != tc.wantUnknown {
				t.Errorf("got %v, want null %v unknown %v", m.Password, tc.wantNull, tc.wantUnknown)
			}
		})
	}
	m := emptyModel()
	m.StorePassword = types.BoolValue(false)
	m.setCredentials(sampleInstance().Credentials)
	if !m.Password.IsNull() || m.Username.IsNull() {
		t.Errorf("setCredentials with store_password false: got password %v username %v, want null and set", m.Password, m.Username)
	}
}
