package tfutil

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestStringCheck(t *testing.T) {
	var checked []string
	v := StringCheck("value must be short", "Invalid thing", "a short thing", func(s string) error {
		checked = append(checked, s)
		if len(s) > 3 {
			return errors.New("it is too long")
		}
		return nil
	})
	run := func(value types.String) *validator.StringResponse {
		var resp validator.StringResponse
		v.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("thing"), ConfigValue: value}, &resp)
		return &resp
	}
	if resp := run(types.StringValue("abc")); resp.Diagnostics.HasError() {
		t.Errorf("abc: got %v, want no error", resp.Diagnostics)
	}
	resp := run(types.StringValue("abcdef"))
	if !resp.Diagnostics.HasError() {
		t.Fatalf("abcdef: got no error")
	}
	d := resp.Diagnostics.Errors()[0]
	want := `Attribute thing value "abcdef" is not a short thing: it is too long.`
	if d.Summary() != "Invalid thing" || d.Detail() != want {
		t.Errorf("abcdef: got %q / %q, want Invalid thing / %q", d.Summary(), d.Detail(), want)
	}
	run(types.StringNull())
	run(types.StringUnknown())
	if strings.Join(checked, ",") != "abc,abcdef" {
		t.Errorf("checked %q, want only the two known values", checked)
	}
	if v.Description(context.Background()) != "value must be short" {
		t.Errorf("description %q", v.Description(context.Background()))
	}
}
