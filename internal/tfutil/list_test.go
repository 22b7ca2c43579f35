package tfutil

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestEmptyObject(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"id": tftypes.Number, "name": tftypes.String}}
	v := EmptyObject(typ)
	if v.IsNull() {
		t.Fatal("the object itself is null")
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		t.Fatal(err)
	}
	if len(attrs) != 2 || !attrs["id"].IsNull() || !attrs["name"].IsNull() {
		t.Errorf("attributes = %v, want id and name, both null", attrs)
	}
}
