package quote

import (
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Schema is the schema of reseller_quote.
func Schema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Prices an order (hourly term) without placing it: the first charge, the recurring " +
			"hourly charge, and whether the wallet, minus the prices of orders still provisioning, covers it. " +
			"With `template_id`, the same forced-feature rules as a real order apply (a Windows template " +
			"always bills IPv4). Nothing is charged.",
		Attributes: map[string]schema.Attribute{
			"plan_id": schema.Int64Attribute{
				MarkdownDescription: "Id of the plan to price (the API's `server_id`).",
				Required:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"template_id": schema.Int64Attribute{
				MarkdownDescription: "Id of the OS template; it may force features on (see `active_features`).",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"features": schema.SetAttribute{
				MarkdownDescription: "Ids of the optional features to price, as strings (see `features` of " +
					"`reseller_plan`).",
				Optional:    true,
				ElementType: types.StringType,
				Validators: []validator.Set{
					setvalidator.ValueStringsAre(stringvalidator.RegexMatches(regexp.MustCompile(`^[0-9]+$`),
						"must be a feature id (digits only)")),
				},
			},
			"cost": schema.Float64Attribute{
				MarkdownDescription: "First charge in USD: one hour plus the creation fee.",
				Computed:            true,
			},
			"creation_fee": schema.Float64Attribute{MarkdownDescription: "One-time creation fee in USD.", Computed: true},
			"recurring": schema.Float64Attribute{
				MarkdownDescription: "Charge per hour after the first, in USD, features included.",
				Computed:            true,
			},
			"balance":  schema.Float64Attribute{MarkdownDescription: "Wallet balance in USD when quoted.", Computed: true},
			"reserved": schema.Float64Attribute{MarkdownDescription: "Prices of orders still provisioning, in USD.", Computed: true},
			"sufficient_balance": schema.BoolAttribute{
				MarkdownDescription: "Whether the wallet, minus `reserved`, covers `cost`.",
				Computed:            true,
			},
			"difference": schema.Float64Attribute{
				MarkdownDescription: "How many USD are missing when `sufficient_balance` is false.",
				Computed:            true,
			},
			"active_features": schema.SetAttribute{
				MarkdownDescription: "Ids of the features the quote bills: those requested plus any the " +
					"template forces on.",
				Computed:    true,
				ElementType: types.StringType,
			},
		},
	}
}
