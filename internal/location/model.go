package location

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// Model is the state of reseller_locations.
type Model struct {
	DatacenterID types.Int64 `tfsdk:"datacenter_id"`
	Locations    []ItemModel `tfsdk:"locations"`
}

// ItemModel is one location.
type ItemModel struct {
	ID           types.Int64  `tfsdk:"id"`
	DatacenterID types.Int64  `tfsdk:"datacenter_id"`
	Name         types.String `tfsdk:"name"`
	Country      types.String `tfsdk:"country"`
	CountryCode  types.String `tfsdk:"country_code"`
	Flag         types.String `tfsdk:"flag"`
	Active       types.Bool   `tfsdk:"active"`
	Status       types.String `tfsdk:"status"`
}

// newItems converts API locations, keeping the API's order.
func newItems(in []client.Location) []ItemModel {
	out := make([]ItemModel, 0, len(in))
	for _, l := range in {
		out = append(out, ItemModel{
			ID:           types.Int64Value(l.ID),
			DatacenterID: types.Int64Value(l.DatacenterID),
			Name:         types.StringValue(l.Name),
			Country:      types.StringValue(l.Country),
			CountryCode:  types.StringValue(l.CountryCode),
			Flag:         types.StringPointerValue(l.Flag),
			Active:       types.BoolValue(l.Active),
			Status:       types.StringPointerValue(l.Status),
		})
	}
	return out
}
