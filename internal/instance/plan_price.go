package instance

// The price of a server known at plan time: a new server's first charge from the quote (once
// per distinct plan, template and features in the run, see planbudget.Run.FirstCharge), a clone's
// from its plan in the catalogue, a resize's new hourly cost from the resize options.

import (
	"context"
	"slices"
	"sort"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/planbudget"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// planNewPrice sets the planned price of a new server built from a template, or leaves it
// unknown when the order cannot be priced yet (unknown plan, template or features, no client,
// or an order the API would refuse, which the apply reports).
func (r *Resource) planNewPrice(ctx context.Context, plan *Model, config Model) {
	if r.checks == nil || !tfutil.IsSet(plan.PlanID) || !tfutil.IsSet(plan.TemplateID) {
		return
	}
	features, ok := configuredFeatures(ctx, config)
	if !ok {
		return
	}
	req := client.QuoteRequest{ServerID: plan.PlanID.ValueInt64(), Term: client.TermHourly,
		TemplateID: plan.TemplateID.ValueInt64Pointer(), ActiveFeatures: features}
	if cost, ok := r.checks.FirstCharge(ctx, req); ok {
		plan.Price = types.Float64Value(cost)
	}
}

// configuredFeatures returns the features the order will send: those configured, sorted, or nil
// when the configuration leaves them out. ok is false while they are unknown.
func configuredFeatures(ctx context.Context, config Model) ([]string, bool) {
	if config.Features.IsUnknown() {
		return nil, false
	}
	features, diags := tfutil.StringsFromSet(ctx, config.Features)
	if diags.HasError() {
		return nil, false
	}
	sort.Strings(features)
	return features, true
}

// clonePrice is the first charge of a server of plan p built from snapshot s, as the API
// charges it: the plan's hour, the creation fee, the features sent (or, when none are
// configured, the snapshot's features the plan offers) and those the snapshot's OS forces.
// ok is false when the plan has no hourly price.
func clonePrice(p *client.Plan, s *client.Snapshot, configured []string, featuresSet bool) (float64, bool) {
	hour, ok := p.HourlyPrice()
	if !ok {
		return 0, false
	}
	osType := ""
	if s.OSType != nil {
		osType = *s.OSType
	}
	total := planbudget.Micros(hour) + planbudget.Micros(p.CreationFee)
	for _, f := range p.Features {
		id := strconv.FormatInt(f.ID, 10)
		chosen := slices.Contains(configured, id)
		if !featuresSet {
			chosen = slices.Contains(s.Features, f.Name)
		}
		if chosen || slices.Contains(f.RequiredForOSTypes, osType) {
			total += planbudget.Micros(f.Price)
		}
	}
	return float64(total) / 1e6, true
}

// usdMicros converts USD to micro-USD, the API's own unit, so a sum of prices equals the API's.

// resizePrice is the hourly cost of the server after a resize to target, features included.
func resizePrice(opts *client.ResizeOptions, target int64) (float64, bool) {
	for _, o := range opts.Options {
		if o.ID == target {
			return o.NewCost, true
		}
	}
	return 0, false
}
