package app

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// Model is the state of reseller_apps.
type Model struct {
	PlanID     types.Int64 `tfsdk:"plan_id"`
	TemplateID types.Int64 `tfsdk:"template_id"`
	Apps       []ItemModel `tfsdk:"apps"`
}

// ItemModel is one one-click app.
type ItemModel struct {
	ID          types.String   `tfsdk:"id"`
	Name        types.String   `tfsdk:"name"`
	Category    types.String   `tfsdk:"category"`
	Description types.String   `tfsdk:"description"`
	Requires    []types.String `tfsdk:"requires"`
	Conflicts   []types.String `tfsdk:"conflicts"`
	Ports       []types.String `tfsdk:"ports"`
	MinMemoryMB types.Int64    `tfsdk:"min_memory_mb"`
	MinDiskGB   types.Int64    `tfsdk:"min_disk_gb"`
	OSFamilies  []types.String `tfsdk:"os_families"`
	Inputs      []InputModel   `tfsdk:"inputs"`
}

// InputModel is one setting an app accepts at install time.
type InputModel struct {
	Key      types.String `tfsdk:"key"`
	Label    types.String `tfsdk:"label"`
	Kind     types.String `tfsdk:"kind"`
	Required types.Bool   `tfsdk:"required"`
	Default  types.String `tfsdk:"default"`
	Help     types.String `tfsdk:"help"`
}

// newItems converts API apps, keeping the API's order.
func newItems(in []client.App) []ItemModel {
	out := make([]ItemModel, 0, len(in))
	for _, a := range in {
		inputs := make([]InputModel, 0, len(a.Inputs))
		for _, i := range a.Inputs {
			inputs = append(inputs, InputModel{
				Key:      types.StringValue(i.Key),
				Label:    types.StringValue(i.Label),
				Kind:     types.StringValue(i.Kind),
				Required: types.BoolValue(i.Required),
				Default:  types.StringPointerValue(i.Default),
				Help:     types.StringPointerValue(i.Help),
			})
		}
		out = append(out, ItemModel{
			ID:          types.StringValue(a.ID),
			Name:        types.StringValue(a.Name),
			Category:    types.StringValue(a.Category),
			Description: types.StringPointerValue(a.Description),
			Requires:    stringValues(a.Requires),
			Conflicts:   stringValues(a.Conflicts),
			Ports:       stringValues(a.Ports),
			MinMemoryMB: types.Int64Value(a.MinMemoryMB),
			MinDiskGB:   types.Int64Value(a.MinDiskGB),
			OSFamilies:  stringValues(a.OSFamilies),
			Inputs:      inputs,
		})
	}
	return out
}

func stringValues(in []string) []types.String {
	out := make([]types.String, 0, len(in))
	for _, s := range in {
		out = append(out, types.StringValue(s))
	}
	return out
}
