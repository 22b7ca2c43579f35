package api

import (
	"net/http"

	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// health answers without a key so monitors and clients can probe the service.
func (h *handler) health(w http.ResponseWriter, r *http.Request) {
	h.ok(w, r, http.StatusOK, HealthView{Status: "ok", API: Version}, nil)
}

// dollar answers the fixed dollar rate of the seeded catalogue.
func (h *handler) dollar(w http.ResponseWriter, r *http.Request, _ store.Account) {
	d := h.svc.Catalog().Dollar()
	h.ok(w, r, http.StatusOK, DollarView{Base: d.Base, Currency: d.Currency, Price: float64(d.Price),
		UpdatedAt: timestamp(d.UpdatedAt)}, nil)
}

// openAPIDocument serves the machine-readable description at the site root.
func (h *handler) openAPIDocument(w http.ResponseWriter, r *http.Request) {
	if h.openapi == nil {
		h.fail(w, r, service.NotFound("openapi document"))
		return
	}
	doc, err := h.openapi()
	if err != nil {
		h.fail(w, r, service.Internal(err))
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(doc)
}
