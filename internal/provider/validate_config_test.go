package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// TestValidateConfig feeds the provider's ValidateConfig one setting at a time and checks that a
// wrong known value is reported on its attribute while unknown and unset values pass.
func TestValidateConfig(t *testing.T) {
	ctx := context.Background()
	p := New("test")().(*Provider)
	var sr provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sr)
	objType := sr.Schema.Type().TerraformType(ctx).(tftypes.Object)

	cases := []struct {
		name    string
		attr    string
		value   tftypes.Value
		wantErr string // "" for no diagnostic; else a substring of the detail
	}{
		{"endpoint not a url", "endpoint", tftypes.NewValue(tftypes.String, "not a url"), "scheme must be http or https"},
		{"endpoint ftp", "endpoint", tftypes.NewValue(tftypes.String, "ftp://h/api/v1"), "scheme must be http or https"},
		{"endpoint ok", "endpoint", tftypes.NewValue(tftypes.String, "https://api.example.com/api/v1"), ""},
		{"endpoint empty means env", "endpoint", tftypes.NewValue(tftypes.String, ""), ""},
		{"endpoint unknown", "endpoint", tftypes.NewValue(tftypes.String, tftypes.UnknownValue), ""},
		{"alt_endpoint no host", "alt_endpoint", tftypes.NewValue(tftypes.String, "http:///api/v1"), "no host"},
		{"language", "language", tftypes.NewValue(tftypes.String, "de"), `"de" is not supported`},
		{"language fa", "language", tftypes.NewValue(tftypes.String, "fa"), ""},
		{"max_retries", "max_retries", tftypes.NewValue(tftypes.Number, -1), "at least 0"},
		{"max_retries 0", "max_retries", tftypes.NewValue(tftypes.Number, 0), ""},
		{"rate_limit_scale", "rate_limit_scale", tftypes.NewValue(tftypes.Number, -0.5), "at least 0"},
		{"plan_checks", "plan_checks", tftypes.NewValue(tftypes.String, "loud"), `"loud" is not supported`},
		{"plan_checks error", "plan_checks", tftypes.NewValue(tftypes.String, "error"), ""},
		{"plan_checks unknown", "plan_checks", tftypes.NewValue(tftypes.String, tftypes.UnknownValue), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vals := map[string]tftypes.Value{}
			for name, typ := range objType.AttributeTypes {
				vals[name] = tftypes.NewValue(typ, nil)
			}
			vals[tc.attr] = tc.value
			req := provider.ValidateConfigRequest{Config: tfsdk.Config{Schema: sr.Schema, Raw: tftypes.NewValue(objType, vals)}}
			var resp provider.ValidateConfigResponse
			p.ValidateConfig(ctx, req, &resp)
			errs := resp.Diagnostics.Errors()
			if tc.wantErr == "" {
				if len(errs) != 0 {
					t.Fatalf("got %v, want no error", errs)
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("got %d errors (%v), want 1", len(errs), errs)
			}
			if !strings.Contains(errs[0].Detail(), tc.wantErr) || !strings.Contains(errs[0].Detail(), tc.attr) {
				t.Errorf("detail: got %q, want it to name %s and contain %q", errs[0].Detail(), tc.attr, tc.wantErr)
			}
		})
	}
}
