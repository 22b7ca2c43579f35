package service

import (
	"context"
	"slices"
	"strconv"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// QuoteRequest is the body of POST /quote; a nil ServerID means it was not sent.
type QuoteRequest struct {
	ServerID       *int64
	Term           *string // nil is hourly
	TemplateID     *int64
	ActiveFeatures []string
}

// Quote is an exact price for a plan with features, checked against the wallet.
type Quote struct {
	ServerID          int64
	Term              string
	ActiveFeatures    []string // as sent (deduplicated), then forced features not sent
	Cost              money.Micros
	CreationFee       money.Micros
	Recurring         money.Micros
	Balance           money.Micros
	Reserved          money.Micros
	SufficientBalance bool
	Difference        money.Micros
}

// Quote prices a plan as an order would be charged: the first term plus the creation fee now,
// then plan and features every term. Features a template's OS forces are added and billed.
func (s *Service) Quote(ctx context.Context, acct store.Account, req QuoteRequest) (Quote, error) {
	if req.ServerID == nil {
		return Quote{}, Validation("server_id", "is required")
	}
	term := catalog.TermHourly
	if req.Term != nil {
		if err := CheckTerm(*req.Term); err != nil {
			return Quote{}, err
		}
	}
	plan, err := s.Plan(ctx, acct, *req.ServerID)
	if err != nil {
		return Quote{}, err
	}
	features, err := s.chosenFeatures(plan, req.TemplateID, req.ActiveFeatures)
	if err != nil {
		return Quote{}, err
	}
	wallet, err := s.Balance(ctx, acct)
	if err != nil {
		return Quote{}, err
	}
	recurring := plan.Price
	ids := make([]string, 0, len(features))
	for _, f := range features {
		recurring += f.Price
		ids = append(ids, strconv.FormatInt(f.ID, 10))
	}
	q := Quote{
		ServerID: plan.ID, Term: term, ActiveFeatures: ids,
		Cost: recurring + plan.CreationFee, CreationFee: plan.CreationFee, Recurring: recurring,
		Balance: wallet.Balance, Reserved: wallet.Reserved,
	}
	q.SufficientBalance = wallet.Available >= q.Cost
	if !q.SufficientBalance {
		q.Difference = q.Cost - wallet.Available
	}
	return q, nil
}

// CheckTerm accepts only the billing term the service sells.
func CheckTerm(term string) error {
	if term != catalog.TermHourly {
		return Validation("term", "only %q is accepted", catalog.TermHourly)
	}
	return nil
}

// chosenFeatures resolves the requested feature ids against the plan and adds those the
// template's OS forces, keeping the request's order and dropping repeats.
func (s *Service) chosenFeatures(plan PlanDetail, templateID *int64, requested []string) ([]catalog.Feature, error) {
	var out []catalog.Feature
	seen := map[int64]bool{}
	for _, raw := range requested {
		id, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || !plan.HasFeature(id) {
			return nil, Validation("active_features", "%q is not a feature of server %d", raw, plan.ID)
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		f, _ := s.catalog.Feature(id)
		out = append(out, f)
	}
	if templateID == nil {
		return out, nil
	}
	tmpl, ok := s.catalog.Template(*templateID)
	if !ok || !plan.HasTemplate(tmpl.ID) {
		return nil, Validation("template_id", "%d is not a template of server %d", *templateID, plan.ID)
	}
	return s.withForced(plan.Plan, tmpl.OSType, out), nil
}

// withForced adds to features those of plan that an OS of osType forces, after the others.
func (s *Service) withForced(plan catalog.Plan, osType string, features []catalog.Feature) []catalog.Feature {
	out := slices.Clip(features)
	for _, f := range s.catalog.ForcedFeatures(plan, osType) {
		if !slices.ContainsFunc(out, func(g catalog.Feature) bool { return g.ID == f.ID }) {
			out = append(out, f)
		}
	}
	return out
}
