package service

import (
	"context"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// PlanDetail is a plan with everything GET /catalog/servers shows beside it.
type PlanDetail struct {
	catalog.Plan
	Datacenter catalog.Datacenter
	Location   catalog.Location
	Templates  []catalog.Template
	Features   []catalog.Feature
}

// datacenterOpen reports whether the account may see and order from d: it must be enabled, and
// a datacenter that requires an identity check is open only to verified accounts.
func datacenterOpen(acct store.Account, d catalog.Datacenter) bool {
	return d.Enabled && (!d.RequireKYC || acct.KYCVerified)
}

// Datacenters lists the datacenters open to the account, including those in maintenance so
// their status can be read.
func (s *Service) Datacenters(_ context.Context, acct store.Account) []catalog.Datacenter {
	out := []catalog.Datacenter{}
	for _, d := range s.catalog.Datacenters() {
		if datacenterOpen(acct, d) {
			out = append(out, d)
		}
	}
	return out
}

// Locations lists the locations of datacenters open to the account; datacenterID 0 is all.
func (s *Service) Locations(_ context.Context, acct store.Account, datacenterID int64) []catalog.Location {
	out := []catalog.Location{}
	for _, l := range s.catalog.Locations() {
		if datacenterID != 0 && l.DatacenterID != datacenterID {
			continue
		}
		if d, ok := s.catalog.Datacenter(l.DatacenterID); ok && datacenterOpen(acct, d) {
			out = append(out, l)
		}
	}
	return out
}

// Plans lists the plans of datacenters open to the account that match f.
func (s *Service) Plans(_ context.Context, acct store.Account, f catalog.PlanFilter) []PlanDetail {
	out := []PlanDetail{}
	for _, p := range s.catalog.Plans(f) {
		if d, ok := s.catalog.Datacenter(p.DatacenterID); ok && datacenterOpen(acct, d) {
			out = append(out, s.detail(p, d))
		}
	}
	return out
}

// Plan returns one plan: 404 when unknown, 403 when its datacenter is closed to the account.
func (s *Service) Plan(_ context.Context, acct store.Account, id int64) (PlanDetail, error) {
	p, ok := s.catalog.Plan(id)
	if !ok {
		return PlanDetail{}, NotFound("server")
	}
	d, ok := s.catalog.Datacenter(p.DatacenterID)
	if !ok || !d.Enabled {
		return PlanDetail{}, NotFound("server")
	}
	if d.RequireKYC && !acct.KYCVerified {
		return PlanDetail{}, Forbidden("identity check required for this datacenter")
	}
	return s.detail(p, d), nil
}

func (s *Service) detail(p catalog.Plan, d catalog.Datacenter) PlanDetail {
	loc, _ := s.catalog.Location(p.LocationID)
	return PlanDetail{Plan: p, Datacenter: d, Location: loc,
		Templates: s.catalog.PlanTemplates(p), Features: s.catalog.PlanFeatures(p)}
}

// AppFilter narrows Apps; zero ids do not filter.
type AppFilter struct {
	PlanID     int64
	TemplateID int64
}

// Apps lists the one-click apps the filter allows: with a plan and a template, only those the
// pair can run. An unknown plan or template is 404; an account without apps sees none.
func (s *Service) Apps(ctx context.Context, acct store.Account, f AppFilter) ([]catalog.App, error) {
	var plan *PlanDetail
	if f.PlanID != 0 {
		p, err := s.Plan(ctx, acct, f.PlanID)
		if err != nil {
			return nil, err
		}
		plan = &p
	}
	var tmpl *catalog.Template
	if f.TemplateID != 0 {
		t, ok := s.catalog.Template(f.TemplateID)
		if !ok {
			return nil, NotFound("template")
		}
		tmpl = &t
	}
	if !acct.AppsEnabled {
		return []catalog.App{}, nil
	}
	switch {
	case plan != nil && tmpl != nil:
		return s.catalog.AppsFor(plan.Plan, *tmpl), nil
	case plan != nil:
		return s.catalog.AppsForPlan(plan.Plan), nil
	case tmpl != nil:
		return s.catalog.AppsForTemplate(*tmpl), nil
	default:
		return s.catalog.Apps(), nil
	}
}
