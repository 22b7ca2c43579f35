package webhookendpoint

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil/schemacheck"
)

func sampleSettings() *client.WebhookSettings {
	return &client.WebhookSettings{URL: new("https://hooks.example.com/r"), Configured: true, Events: []string{"ping", "order.deployed"}}
}

func TestModelMatchesSchema(t *testing.T) {
	ctx := context.Background()
	m := Model{URL: types.StringValue("x"), Secret: types.StringNull(), SecretWOVersion: types.Int64Value(1)}
	if diags := m.setSettings(ctx, sampleSettings()); diags.HasError() {
		t.Fatal(diags)
	}
	schemacheck.Resource(t, TypeName, Schema(), m)
}

func TestSchemaSecrets(t *testing.T) {
	s := Schema()
	for name, a := range s.Attributes {
		if a.GetMarkdownDescription() == "" {
			t.Errorf("%s.%s: no description", TypeName, name)
		}
	}
	if !s.Attributes["secret"].IsSensitive() || !s.Attributes["secret_wo"].IsSensitive() {
		t.Errorf("secret and secret_wo: got not sensitive, want sensitive")
	}
	if !s.Attributes["secret_wo"].IsWriteOnly() || s.Attributes["secret"].IsWriteOnly() {
		t.Errorf("write-only: got secret_wo %v, secret %v, want only secret_wo", s.Attributes["secret_wo"].IsWriteOnly(),
			s.Attributes["secret"].IsWriteOnly())
	}
}

func TestSetSettings(t *testing.T) {
	ctx := context.Background()
	m := Model{Secret: types.StringValue("0123456789abcdef"), SecretWO: types.StringValue("never-in-state-000"),
		Verify: types.BoolNull(), URL: types.StringValue("https://old.example.com")}
	if diags := m.setSettings(ctx, sampleSettings()); diags.HasError() {
		t.Fatal(diags)
	}
	if m.ID.ValueString() != ID || m.URL.ValueString() != "https://hooks.example.com/r" || !m.Configured.ValueBool() ||
		len(m.Events.Elements()) != 2 {
		t.Errorf("got %+v, want id webhook, the API's url, configured, two events", m)
	}
	if !m.SecretWO.IsNull() || m.Secret.ValueString() != "0123456789abcdef" || m.Verify.ValueBool() || m.Verify.IsNull() {
		t.Errorf("got secret_wo %v secret %v verify %v, want the write-only secret null, the secret kept, verify false",
			m.SecretWO, m.Secret, m.Verify)
	}
}

func TestPutRequest(t *testing.T) {
	plan := Model{URL: types.StringValue("https://h.example.com"), Secret: types.StringNull(), SecretWO: types.StringNull()}
	config := plan
	config.SecretWO = types.StringValue("write-only-secret-1")
	if got := putRequest(plan, config); got.Secret != "write-only-secret-1" || got.URL != "https://h.example.com" {
		t.Errorf("write-only: got %+v, want the configuration's secret_wo", got)
	}
	config.SecretWO = types.StringNull()
	config.Secret = types.StringValue("stored-secret-0001")
	if got := putRequest(plan, config); got.Secret != "stored-secret-0001" {
		t.Errorf("stored: got %+v, want the secret", got)
	}
}

func TestNeedsPut(t *testing.T) {
	prior := Model{URL: types.StringValue("https://a"), Secret: types.StringNull(), SecretWOVersion: types.Int64Value(1),
		Verify: types.BoolValue(false)}
	tests := []struct {
		name   string
		change func(*Model)
		want   bool
	}{
		{"verify only", func(m *Model) { m.Verify = types.BoolValue(true) }, false},
		{"url", func(m *Model) { m.URL = types.StringValue("https://b") }, true},
		{"new version", func(m *Model) { m.SecretWOVersion = types.Int64Value(2) }, true},
		{"to stored secret", func(m *Model) {
			m.SecretWOVersion = types.Int64Null()
			m.Secret = types.StringValue("stored-secret-0001")
		}, true},
	}
	for _, tt := range tests {
		plan := prior
		tt.change(&plan)
		if got := needsPut(plan, prior); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestURLValidator(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" when valid, else a part of the problem
	}{
		{"https://hooks.example.com/reseller", ""},
		{"https://hooks.example.com:8443/r?x=1", ""},
		{"http://127.0.0.1:9090/hook", ""},
		{"http://localhost/hook", ""},
		{"http://[::1]:80/hook", ""},
		{"http://hooks.example.com/hook", "only for a receiver on the same machine"},
		{"ftp://hooks.example.com", `scheme "ftp"`},
		{"hooks.example.com/hook", "absolute https://"},
		{"https://", "absolute https://"},
		{"https://user:pw@hooks.example.com", "credentials"},
		{"https://hooks.example.com/#frag", "fragment"},
		{"https://hooks.example.com/" + strings.Repeat("a", 2048), "at most 2048"},
	}
	for _, tt := range tests {
		var resp validator.StringResponse
		URL().ValidateString(context.Background(), validator.StringRequest{Path: path.Root("url"),
			ConfigValue: types.StringValue(tt.in)}, &resp)
		got := ""
		if resp.Diagnostics.HasError() {
			got = resp.Diagnostics.Errors()[0].Detail()
		}
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("URL() on %q: got %q, want %q", tt.in, got, tt.want)
		}
	}
	var resp validator.StringResponse
	URL().ValidateString(context.Background(), validator.StringRequest{Path: path.Root("url"), ConfigValue: types.StringValue("ftp://x")}, &resp)
	if !resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics.Errors()[0].Detail(), "Attribute url") {
		t.Errorf("diagnostic: got %v, want an error naming the attribute url", resp.Diagnostics)
	}
}
