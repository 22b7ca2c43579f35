package serverplan

import (
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// PlansSchema is the schema of reseller_plans.
func PlansSchema() schema.Schema {
	attrs := filterAttributes(false)
	attrs["plans"] = schema.ListNestedAttribute{
		MarkdownDescription: "The plans matching every filter, cheapest hourly price first, then by id. " +
			"Empty when nothing matches.",
		Computed:     true,
		NestedObject: schema.NestedAttributeObject{Attributes: planAttributes()},
	}
	return schema.Schema{
		MarkdownDescription: "Lists the server plans of the catalogue (hourly billing), narrowed by optional " +
			"filters and sorted by hourly price. Only plans of datacenters taking orders now are listed " +
			"unless `include_unavailable` is true. Names follow the provider's `language`.",
		Attributes: attrs,
	}
}

// Schema is the schema of reseller_plan.
func Schema() schema.Schema {
	attrs := planAttributes()
	for name, a := range filterAttributes(true) {
		attrs[name] = a
	}
	attrs["id"] = schema.Int64Attribute{
		MarkdownDescription: "Id of the plan to read. Conflicts with every filter; without it the cheapest " +
			"plan matching the filters is found and its id is exported here.",
		Optional:   true,
		Computed:   true,
		Validators: []validator.Int64{int64validator.AtLeast(1)},
	}
	attrs["datacenter_id"] = withDescription(attrs["datacenter_id"],
		"Filter: only plans of this datacenter. Result: the found plan's datacenter id.")
	attrs["country_code"] = withDescription(attrs["country_code"],
		"Filter: only plans in this country (two-letter ISO 3166-1 code, case-insensitive). "+
			"Result: the found plan's country code.")
	attrs["type"] = withDescription(attrs["type"],
		"Filter: only plans of this type (exact match). Result: the found plan's type.")
	attrs["local_snapshots"] = withDescription(attrs["local_snapshots"],
		"Filter: `false` finds a plan whose snapshots outlive the server, `true` one whose snapshots are "+
			"restore points on the server's own disk (plans whose datacenter does not say are skipped). "+
			"Result: the found plan's value, null when the API does not say.")
	return schema.Schema{
		MarkdownDescription: "Reads one server plan of the catalogue: either the plan with the given `id`, " +
			"or the cheapest plan (by hourly price, then lowest id) matching the filters, which are the " +
			"same as those of `reseller_plans` (plans of datacenters not taking orders are skipped unless " +
			"`include_unavailable` is true). With neither `id` nor filters it is the cheapest orderable " +
			"plan of the catalogue. Finding nothing is an error. Names follow the provider's `language`.",
		Attributes: attrs,
	}
}

// planAttributes returns the computed attributes of one plan.
func planAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":           schema.Int64Attribute{MarkdownDescription: "Plan id (the API's `server_id`).", Computed: true},
		"name":         schema.StringAttribute{MarkdownDescription: "Plan name in the provider's `language`.", Computed: true},
		"type":         schema.StringAttribute{MarkdownDescription: "Plan type.", Computed: true},
		"cpu":          schema.Int64Attribute{MarkdownDescription: "CPU cores.", Computed: true},
		"memory":       schema.Int64Attribute{MarkdownDescription: "Memory in GB.", Computed: true},
		"disk":         schema.Int64Attribute{MarkdownDescription: "Disk in GB.", Computed: true},
		"price":        schema.Float64Attribute{MarkdownDescription: "Hourly price in USD.", Computed: true},
		"creation_fee": schema.Float64Attribute{MarkdownDescription: "One-time fee in USD added to the first charge; `0` when none.", Computed: true},
		"datacenter_id": schema.Int64Attribute{
			MarkdownDescription: "Id of the plan's datacenter.",
			Computed:            true,
		},
		"location_id": schema.Int64Attribute{MarkdownDescription: "Id of the plan's location; null when the API gives none.", Computed: true},
		"country_code": schema.StringAttribute{
			MarkdownDescription: "ISO 3166-1 code of the plan's country; null when the API gives no location.",
			Computed:            true,
		},
		"templates": schema.ListNestedAttribute{
			MarkdownDescription: "OS templates the plan can be built from.",
			Computed:            true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"id":      schema.Int64Attribute{MarkdownDescription: "Template id.", Computed: true},
				"name":    schema.StringAttribute{MarkdownDescription: "Template name.", Computed: true},
				"os_type": schema.StringAttribute{MarkdownDescription: "OS type, such as `linux` or `windows`.", Computed: true},
			}},
		},
		"features": schema.ListNestedAttribute{
			MarkdownDescription: "Optional, priced extras of the plan.",
			Computed:            true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"id":    schema.Int64Attribute{MarkdownDescription: "Feature id; pass it as a string in `features` of `reseller_quote` and `reseller_instance`.", Computed: true},
				"name":  schema.StringAttribute{MarkdownDescription: "Feature name.", Computed: true},
				"price": schema.Float64Attribute{MarkdownDescription: "Hourly price in USD.", Computed: true},
				"required_for_os_types": schema.ListAttribute{
					MarkdownDescription: "OS types for which the feature is forced on (for example `windows` forces IPv4).",
					Computed:            true,
					ElementType:         types.StringType,
				},
			}},
		},
		"actions": schema.ListAttribute{
			MarkdownDescription: "Actions instances of this plan support.",
			Computed:            true,
			ElementType:         types.StringType,
		},
		"available": schema.BoolAttribute{
			MarkdownDescription: "Whether the plan's datacenter takes orders now (enabled, status `available`).",
			Computed:            true,
		},
		"traffic_included": schema.Int64Attribute{
			MarkdownDescription: "Traffic included per 30 days in GB; `0` is unlimited; null when the API gives no traffic terms.",
			Computed:            true,
		},
		"local_snapshots": schema.BoolAttribute{
			MarkdownDescription: "Whether snapshots of this plan's servers are restore points on the server's own " +
				"disk (`true`: they end with the server, so a snapshot taken before a destroy does not survive " +
				"it) or are kept apart from it (`false`: they outlive the server). Null when the API does not " +
				"say: it is resellerd's `local_snapshots` extension of the datacenter; the API's own spec shows " +
				"it only on a snapshot (`reseller_snapshot.local`), once a server exists.",
			Computed: true,
		},
	}
}

// withDescription returns a copy of a filter attribute with another description.
func withDescription(a schema.Attribute, desc string) schema.Attribute {
	switch a := a.(type) {
	case schema.Int64Attribute:
		a.MarkdownDescription = desc
		return a
	case schema.StringAttribute:
		a.MarkdownDescription = desc
		return a
	case schema.BoolAttribute:
		a.MarkdownDescription = desc
		return a
	}
	return a
}

// filterAttributes returns the schema of the filters. In reseller_plan, datacenter_id,
// country_code and type are also results, so they are computed there as well.
func filterAttributes(alsoComputed bool) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"datacenter_id": schema.Int64Attribute{
			MarkdownDescription: "Only plans of this datacenter (see `reseller_datacenters`).",
			Optional:            true,
			Computed:            alsoComputed,
			Validators:          []validator.Int64{int64validator.AtLeast(1)},
		},
		"country_code": schema.StringAttribute{
			MarkdownDescription: "Only plans located in this country, as a two-letter ISO 3166-1 code such as `DE` (case-insensitive).",
			Optional:            true,
			Computed:            alsoComputed,
			Validators: []validator.String{
				stringvalidator.RegexMatches(regexp.MustCompile(`^[A-Za-z]{2}$`), "must be a two-letter ISO 3166-1 country code"),
			},
		},
		"min_cpu": schema.Int64Attribute{
			MarkdownDescription: "Only plans with at least this many CPU cores.",
			Optional:            true,
			Validators:          []validator.Int64{int64validator.AtLeast(0)},
		},
		"min_memory": schema.Int64Attribute{
			MarkdownDescription: "Only plans with at least this much memory, in GB.",
			Optional:            true,
			Validators:          []validator.Int64{int64validator.AtLeast(0)},
		},
		"min_disk": schema.Int64Attribute{
			MarkdownDescription: "Only plans with at least this much disk, in GB.",
			Optional:            true,
			Validators:          []validator.Int64{int64validator.AtLeast(0)},
		},
		"max_price": schema.Float64Attribute{
			MarkdownDescription: "Only plans whose hourly price is at most this many USD.",
			Optional:            true,
			Validators:          []validator.Float64{float64validator.AtLeast(0)},
		},
		"type": schema.StringAttribute{
			MarkdownDescription: "Only plans of this type (exact match, as the API spells it).",
			Optional:            true,
			Computed:            alsoComputed,
		},
		"name_regex": schema.StringAttribute{
			MarkdownDescription: "Only plans whose name matches this regular expression (RE2 syntax). " +
				"Names follow the provider's `language`, so write the expression for that language.",
			Optional:   true,
			Validators: []validator.String{tfutil.ValidRegex()},
		},
		"include_unavailable": schema.BoolAttribute{
			MarkdownDescription: "Also consider plans of datacenters that take no orders now (status other " +
				"than `available`, for example under maintenance). Defaults to `false`: only orderable plans.",
			Optional: true,
		},
		"local_snapshots": schema.BoolAttribute{
			MarkdownDescription: "`false`: only plans whose snapshots outlive the server (kept apart from it, " +
				"so a snapshot taken before a destroy survives it); `true`: only plans whose snapshots are " +
				"restore points on the server's own disk, deleted with it. Plans whose datacenter does not " +
				"say (an API without resellerd's `local_snapshots` extension) are left out either way.",
			Optional: true,
			Computed: alsoComputed,
		},
	}
}
