package account

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
)

// Schema is the schema of reseller_account.
func Schema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Reads the account the provider's API key belongs to. The key itself is never returned.",
		Attributes: map[string]schema.Attribute{
			"id": schema.Int64Attribute{MarkdownDescription: "Account id.", Computed: true},
			"api_key_hint": schema.StringAttribute{
				MarkdownDescription: "First characters of the API key in use; null when unknown.",
				Computed:            true,
			},
			"api_key_created_at": schema.StringAttribute{
				MarkdownDescription: "When the API key in use was issued (ISO 8601); null when unknown.",
				Computed:            true,
			},
			"webhook_configured": schema.BoolAttribute{
				MarkdownDescription: "Whether a webhook endpoint is registered (see `reseller_webhook`).",
				Computed:            true,
			},
			"server_limit": schema.Int64Attribute{
				MarkdownDescription: "Maximum number of active instances.",
				Computed:            true,
			},
			"api_order_limit": schema.Int64Attribute{
				MarkdownDescription: "Maximum number of orders provisioning at once.",
				Computed:            true,
			},
			"language": schema.StringAttribute{
				MarkdownDescription: "The account's own language setting (independent of the provider's `language`).",
				Computed:            true,
			},
		},
	}
}

// BalanceSchema is the schema of reseller_balance.
func BalanceSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Reads the account's wallet. All amounts are USD. A new order draws on `available`, " +
			"which is `balance` minus `reserved`.",
		Attributes: map[string]schema.Attribute{
			"balance":  schema.Float64Attribute{MarkdownDescription: "Credit in USD.", Computed: true},
			"debt":     schema.Float64Attribute{MarkdownDescription: "Money owed in USD.", Computed: true},
			"reserved": schema.Float64Attribute{MarkdownDescription: "Sum of the prices of orders still provisioning, in USD.", Computed: true},
			"available": schema.Float64Attribute{
				MarkdownDescription: "`balance` minus `reserved`, in USD: what a new order can draw on.",
				Computed:            true,
			},
			"hours_until_balance_zero": schema.Float64Attribute{
				MarkdownDescription: "Estimated hours until renewal charges exhaust the balance; null when there " +
					"are no renewable servers or it cannot be estimated.",
				Computed: true,
			},
			"active_instances": schema.Int64Attribute{MarkdownDescription: "Number of active instances.", Computed: true},
			"pending_orders":   schema.Int64Attribute{MarkdownDescription: "Number of orders still provisioning.", Computed: true},
		},
	}
}
