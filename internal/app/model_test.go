package app

import (
	"testing"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil/schemacheck"
)

func TestModelsMatchSchemas(t *testing.T) {
	s := Schema()
	apps := schemacheck.Nested(t, s.Attributes, "apps")
	schemacheck.Fields(t, "reseller_apps.apps", ItemModel{}, apps)
	schemacheck.Fields(t, "reseller_apps.apps.inputs", InputModel{}, schemacheck.Nested(t, apps, "inputs"))

	def := "admin"
	schemacheck.DataSource(t, TypeName, s, Model{Apps: newItems([]client.App{{
		ID: "wordpress", Name: "WordPress", Category: "cms", Requires: []string{"mysql"},
		Ports: []string{"80/tcp"}, MinMemoryMB: 1024, MinDiskGB: 10, OSFamilies: []string{"linux"},
		Inputs: []client.AppInput{{Key: "admin_user", Label: "Admin", Kind: "text", Required: true, Default: &def}},
	}})})
}
