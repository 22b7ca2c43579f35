package api

import (
	"net/http"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

func (h *handler) plans(w http.ResponseWriter, r *http.Request, acct store.Account) {
	filter, p, err := planListQuery(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	lang := language(r)
	plans := h.svc.Plans(r.Context(), acct, filter)
	out := make([]PlanView, 0, len(plans))
	for _, plan := range paginate(plans, p) {
		out = append(out, newPlanJSON(plan, lang))
	}
	h.ok(w, r, http.StatusOK, out, p.meta(len(plans)))
}

// planListQuery reads the filters and page of GET /catalog/servers.
func planListQuery(r *http.Request) (catalog.PlanFilter, pagination, error) {
	p, err := parsePagination(r)
	if err != nil {
		return catalog.PlanFilter{}, p, err
	}
	if err := queryTerm(r); err != nil {
		return catalog.PlanFilter{}, p, err
	}
	dc, err := queryID(r, "datacenter_id")
	if err != nil {
		return catalog.PlanFilter{}, p, err
	}
	country, err := queryCountryCode(r)
	if err != nil {
		return catalog.PlanFilter{}, p, err
	}
	return catalog.PlanFilter{DatacenterID: dc, CountryCode: country}, p, nil
}

func (h *handler) plan(w http.ResponseWriter, r *http.Request, acct store.Account) {
	id, err := pathID(r, "server_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	plan, err := h.svc.Plan(r.Context(), acct, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, newPlanJSON(plan, language(r)), nil)
}

func (h *handler) datacenters(w http.ResponseWriter, r *http.Request, acct store.Account) {
	lang := language(r)
	dcs := h.svc.Datacenters(r.Context(), acct)
	out := make([]DatacenterView, 0, len(dcs))
	for _, d := range dcs {
		out = append(out, newDatacenterJSON(d, lang))
	}
	h.ok(w, r, http.StatusOK, out, nil)
}

func (h *handler) locations(w http.ResponseWriter, r *http.Request, acct store.Account) {
	dc, err := queryID(r, "datacenter_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	lang := language(r)
	locs := h.svc.Locations(r.Context(), acct, dc)
	out := make([]LocationView, 0, len(locs))
	for _, l := range locs {
		out = append(out, newLocationJSON(l, lang))
	}
	h.ok(w, r, http.StatusOK, out, nil)
}

func (h *handler) apps(w http.ResponseWriter, r *http.Request, acct store.Account) {
	planID, err := queryID(r, "server_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	templateID, err := queryID(r, "template_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	apps, err := h.svc.Apps(r.Context(), acct, service.AppFilter{PlanID: planID, TemplateID: templateID})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	lang := language(r)
	out := make([]AppView, 0, len(apps))
	for _, a := range apps {
		out = append(out, newAppJSON(a, lang))
	}
	h.ok(w, r, http.StatusOK, out, nil)
}

func (h *handler) quote(w http.ResponseWriter, r *http.Request, acct store.Account) {
	var req quoteRequestJSON
	if err := decodeJSON(r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	q, err := h.svc.Quote(r.Context(), acct, service.QuoteRequest{
		ServerID: req.ServerID, Term: req.Term, TemplateID: req.TemplateID, ActiveFeatures: req.ActiveFeatures,
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, newQuoteJSON(q), nil)
}
