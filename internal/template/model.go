package template

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// Model is the state of reseller_template. os_type is a filter and a result.
type Model struct {
	PlanID    types.Int64  `tfsdk:"plan_id"`
	NameRegex types.String `tfsdk:"name_regex"`
	OSType    types.String `tfsdk:"os_type"`
	ID        types.Int64  `tfsdk:"id"`
	Name      types.String `tfsdk:"name"`
}

// setTemplate copies the found template into the model.
func (m *Model) setTemplate(t client.Template) {
	m.ID = types.Int64Value(t.ID)
	m.Name = types.StringValue(t.Name)
	m.OSType = types.StringValue(t.OSType)
}
