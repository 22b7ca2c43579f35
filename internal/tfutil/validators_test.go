package tfutil

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestHostname(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in string
		ok bool
	}{
		{"web", true},
		{"web-1.example.com", true},
		{"A1", true},
		{strings.Repeat("a", 63), true},
		{strings.Repeat("a", 64), false},
		{"", false},
		{"-web", false},
		{"web-", false},
		{"web..example", false},
		{"web_1", false},
		{"web.", false},
		{"wéb", false},
	}
	for _, tc := range tests {
		var resp validator.StringResponse
		Hostname().ValidateString(context.Background(), validator.StringRequest{
			Path: path.Root("hostname"), ConfigValue: types.StringValue(tc.in),
		}, &resp)
		if got := !resp.Diagnostics.HasError(); got != tc.ok {
			t.Errorf("Hostname(%q): got ok=%v, want %v (%v)", tc.in, got, tc.ok, resp.Diagnostics)
		}
	}
}

func TestParseImportID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"12", 12, true},
		{" 7 ", 7, true},
		{"0", 0, false},
		{"-3", 0, false},
		{"web", 0, false},
		{"", 0, false},
	}
	for _, tc := range tests {
		var diags diag.Diagnostics
		got, ok := ParseImportID(tc.in, "reseller_snapshot", &diags)
		if got != tc.want || ok != tc.ok || diags.HasError() == tc.ok {
			t.Errorf("ParseImportID(%q): got %d, %v, %v; want %d, %v", tc.in, got, ok, diags, tc.want, tc.ok)
		}
		if !tc.ok && !strings.Contains(diags[0].Detail(), "terraform import reseller_snapshot.example") {
			t.Errorf("ParseImportID(%q): detail %q does not show the resource type's import command", tc.in, diags[0].Detail())
		}
	}
}
