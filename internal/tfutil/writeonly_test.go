package tfutil

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// writeOnlySchema has write-only attributes at the top, inside a nested attribute and inside a
// block, beside attributes of the same shapes that are not write-only.
func writeOnlySchema() schema.Schema {
	inputs := types.MapType{ElemType: types.MapType{ElemType: types.StringType}}
	return schema.Schema{
		Attributes: map[string]schema.Attribute{
			"id":        schema.StringAttribute{Computed: true},
			"secret_wo": schema.StringAttribute{Optional: true, WriteOnly: true},
			"inputs":    schema.MapAttribute{Optional: true, ElementType: inputs.ElemType},
			"inputs_wo": schema.MapAttribute{Optional: true, WriteOnly: true, ElementType: inputs.ElemType},
			"login": schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{
				"user":     schema.StringAttribute{Optional: true},
				"token_wo": schema.StringAttribute{Optional: true, WriteOnly: true},
			}},
		},
		Blocks: map[string]schema.Block{
			"rule": schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
				"name":   schema.StringAttribute{Optional: true},
				"key_wo": schema.StringAttribute{Optional: true, WriteOnly: true},
			}}},
		},
	}
}

type writeOnlyModel struct {
	ID       types.String `tfsdk:"id"`
	SecretWO types.String `tfsdk:"secret_wo"`
	Inputs   types.Map    `tfsdk:"inputs"`
	InputsWO types.Map    `tfsdk:"inputs_wo"`
	Login    types.Object `tfsdk:"login"`
	Rule     types.List   `tfsdk:"rule"`
}

var (
	loginType = map[string]attr.Type{"user": types.StringType, "token_wo": types.StringType}
	ruleType  = types.ObjectType{AttrTypes: map[string]attr.Type{"name": types.StringType, "key_wo": types.StringType}}
)

func inputsValue(t *testing.T, secret string) types.Map {
	t.Helper()
	m, diags := types.MapValueFrom(context.Background(), types.MapType{ElemType: types.StringType},
		map[string]map[string]string{"mysql": {"ROOT_PASSWORD": secret}})
	if diags.HasError() {
		t.Fatal(diags)
	}
	return m
}

func TestNullWriteOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := writeOnlySchema()
	state := tfsdk.State{Schema: s}
	in := writeOnlyModel{
		ID:       types.StringValue("42"),
		SecretWO: types.StringValue("s1"),
		Inputs:   inputsValue(t, "kept"),
		InputsWO: inputsValue(t, "s2"),
		Login: types.ObjectValueMust(loginType, map[string]attr.Value{
			"user": types.StringValue("root"), "token_wo": types.StringValue("s3"),
		}),
		Rule: types.ListValueMust(ruleType, []attr.Value{types.ObjectValueMust(ruleType.AttrTypes, map[string]attr.Value{
			"name": types.StringValue("r"), "key_wo": types.StringValue("s4"),
		})}),
	}
	if diags := state.Set(ctx, &in); diags.HasError() {
		t.Fatal(diags)
	}

	var diags diag.Diagnostics
	NullWriteOnly(ctx, &state, &diags)
	if diags.HasError() {
		t.Fatalf("NullWriteOnly: %v", diags)
	}

	var got writeOnlyModel
	if d := state.Get(ctx, &got); d.HasError() {
		t.Fatal(d)
	}
	want := in
	want.SecretWO = types.StringNull()
	want.InputsWO = types.MapNull(types.MapType{ElemType: types.StringType})
	want.Login = types.ObjectValueMust(loginType, map[string]attr.Value{
		"user": types.StringValue("root"), "token_wo": types.StringNull(),
	})
	want.Rule = types.ListValueMust(ruleType, []attr.Value{types.ObjectValueMust(ruleType.AttrTypes, map[string]attr.Value{
		"name": types.StringValue("r"), "key_wo": types.StringNull(),
	})})
	for _, c := range []struct {
		name      string
		got, want attr.Value
	}{
		{"id", got.ID, want.ID}, {"secret_wo", got.SecretWO, want.SecretWO}, {"inputs", got.Inputs, want.Inputs},
		{"inputs_wo", got.InputsWO, want.InputsWO}, {"login", got.Login, want.Login}, {"rule", got.Rule, want.Rule},
	} {
		if !c.got.Equal(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestNullWriteOnlyNothingToDo: a removed resource (null state) stays null and an empty
// response state (no schema yet) is left alone, without an error.
func TestNullWriteOnlyNothingToDo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	state := tfsdk.State{Schema: writeOnlySchema()}
	state.RemoveResource(ctx)
	var diags diag.Diagnostics
	NullWriteOnly(ctx, &state, &diags)
	if !state.Raw.IsNull() || diags.HasError() {
		t.Errorf("removed resource: got %v, diags %v; want a null state and no error", state.Raw, diags)
	}
	NullWriteOnly(ctx, &tfsdk.State{}, &diags)
	NullWriteOnly(ctx, nil, &diags)
	if diags.HasError() {
		t.Errorf("empty state: got %v, want no error", diags)
	}
}
