package account

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// Model is the state of reseller_account.
type Model struct {
	ID                types.Int64  `tfsdk:"id"`
	APIKeyHint        types.String `tfsdk:"api_key_hint"`
	APIKeyCreatedAt   types.String `tfsdk:"api_key_created_at"`
	WebhookConfigured types.Bool   `tfsdk:"webhook_configured"`
	ServerLimit       types.Int64  `tfsdk:"server_limit"`
	APIOrderLimit     types.Int64  `tfsdk:"api_order_limit"`
	Language          types.String `tfsdk:"language"`
}

func newAccount(a client.Account) Model {
	return Model{
		ID:                types.Int64Value(a.ID),
		APIKeyHint:        types.StringPointerValue(a.APIKeyHint),
		APIKeyCreatedAt:   types.StringPointerValue(a.APIKeyCreatedAt),
		WebhookConfigured: types.BoolValue(a.WebhookConfigured),
		ServerLimit:       types.Int64Value(a.ServerLimit),
		APIOrderLimit:     types.Int64Value(a.APIOrderLimit),
		Language:          types.StringValue(a.Language),
	}
}

// BalanceModel is the state of reseller_balance.
type BalanceModel struct {
	Balance               types.Float64 `tfsdk:"balance"`
	Debt                  types.Float64 `tfsdk:"debt"`
	Reserved              types.Float64 `tfsdk:"reserved"`
	Available             types.Float64 `tfsdk:"available"`
	HoursUntilBalanceZero types.Float64 `tfsdk:"hours_until_balance_zero"`
	ActiveInstances       types.Int64   `tfsdk:"active_instances"`
	PendingOrders         types.Int64   `tfsdk:"pending_orders"`
}

func newBalance(b client.Balance) BalanceModel {
	return BalanceModel{
		Balance:               types.Float64Value(b.Balance),
		Debt:                  types.Float64Value(b.Debt),
		Reserved:              types.Float64Value(b.Reserved),
		Available:             types.Float64Value(b.Available),
		HoursUntilBalanceZero: types.Float64PointerValue(b.HoursUntilBalanceZero),
		ActiveInstances:       types.Int64Value(b.ActiveInstances),
		PendingOrders:         types.Int64Value(b.PendingOrders),
	}
}
