package quote

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// Model is the state of reseller_quote.
type Model struct {
	PlanID            types.Int64   `tfsdk:"plan_id"`
	TemplateID        types.Int64   `tfsdk:"template_id"`
	Features          types.Set     `tfsdk:"features"`
	Cost              types.Float64 `tfsdk:"cost"`
	CreationFee       types.Float64 `tfsdk:"creation_fee"`
	Recurring         types.Float64 `tfsdk:"recurring"`
	Balance           types.Float64 `tfsdk:"balance"`
	Reserved          types.Float64 `tfsdk:"reserved"`
	SufficientBalance types.Bool    `tfsdk:"sufficient_balance"`
	Difference        types.Float64 `tfsdk:"difference"`
	ActiveFeatures    types.Set     `tfsdk:"active_features"`
}

// request builds the POST /quote body from the configuration.
func (m Model) request(ctx context.Context) (client.QuoteRequest, diag.Diagnostics) {
	req := client.QuoteRequest{ServerID: m.PlanID.ValueInt64(), Term: "hourly"}
	if tfutil.IsSet(m.TemplateID) {
		id := m.TemplateID.ValueInt64()
		req.TemplateID = &id
	}
	features, diags := tfutil.StringsFromSet(ctx, m.Features)
	sort.Strings(features)
	req.ActiveFeatures = features
	return req, diags
}

// setQuote copies the API's answer into the model.
func (m *Model) setQuote(ctx context.Context, q client.Quote) diag.Diagnostics {
	m.Cost = types.Float64Value(q.Cost)
	m.CreationFee = types.Float64Value(q.CreationFee)
	m.Recurring = types.Float64Value(q.Recurring)
	m.Balance = types.Float64Value(q.Balance)
	m.Reserved = types.Float64Value(q.Reserved)
	m.SufficientBalance = types.BoolValue(q.SufficientBalance)
	m.Difference = types.Float64Value(q.Difference)
	var diags diag.Diagnostics
	m.ActiveFeatures, diags = tfutil.StringSet(ctx, q.ActiveFeatures)
	return diags
}
