package template

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil/schemacheck"
)

func TestModelsMatchSchemas(t *testing.T) {
	s := Schema()
	m := Model{PlanID: types.Int64Value(1), NameRegex: types.StringValue("^Ubuntu")}
	m.setTemplate(client.Template{ID: 3, Name: "Ubuntu 24.04", OSType: "linux"})
	schemacheck.DataSource(t, "reseller_template", s, m)
}

func TestPickLowestID(t *testing.T) {
	templates := []client.Template{
		{ID: 9, Name: "Debian", OSType: "linux"},
		{ID: 4, Name: "Windows", OSType: "windows"},
		{ID: 5, Name: "Ubuntu", OSType: "linux"},
	}
	linux := func(t client.Template) bool { return t.OSType == "linux" }
	got, ok := pick(templates, linux)
	if !ok || got.ID != 5 {
		t.Errorf("got %d (found %v), want 5", got.ID, ok)
	}
	if _, ok := pick(templates, func(client.Template) bool { return false }); ok {
		t.Errorf("no match: got found, want not found")
	}
}
