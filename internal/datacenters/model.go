package datacenters

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// Model is the state of reseller_datacenters.
type Model struct {
	Datacenters []ItemModel `tfsdk:"datacenters"`
}

// ItemModel is one datacenter.
type ItemModel struct {
	ID          types.Int64    `tfsdk:"id"`
	Name        types.String   `tfsdk:"name"`
	Description types.String   `tfsdk:"description"`
	Status      types.String   `tfsdk:"status"`
	Enabled     types.Bool     `tfsdk:"enabled"`
	RequireKYC  types.Bool     `tfsdk:"require_kyc"`
	Terms       []types.String `tfsdk:"terms"`
	// LocalSnapshots is resellerd's extension: null when the API does not send it.
	LocalSnapshots types.Bool `tfsdk:"local_snapshots"`
}

// newItems converts API datacenters, keeping the API's order.
func newItems(in []client.Datacenter) []ItemModel {
	out := make([]ItemModel, 0, len(in))
	for _, dc := range in {
		terms := make([]types.String, 0, len(dc.Terms))
		for _, t := range dc.Terms {
			if t.Enabled {
				terms = append(terms, types.StringValue(t.Term))
			}
		}
		out = append(out, ItemModel{
			ID:             types.Int64Value(dc.ID),
			Name:           types.StringValue(dc.Name),
			Description:    types.StringPointerValue(dc.Description),
			Status:         types.StringPointerValue(dc.Status),
			Enabled:        types.BoolValue(dc.Enabled),
			RequireKYC:     types.BoolValue(dc.RequireKYC),
			Terms:          terms,
			LocalSnapshots: types.BoolPointerValue(dc.LocalSnapshots),
		})
	}
	return out
}
