package api

import (
	"net/http"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

func (h *handler) account(w http.ResponseWriter, r *http.Request, acct store.Account) {
	configured, err := h.svc.WebhookConfigured(r.Context(), acct)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, newAccountJSON(acct, configured), nil)
}

func (h *handler) balance(w http.ResponseWriter, r *http.Request, acct store.Account) {
	b, err := h.svc.Balance(r.Context(), acct)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, newBalanceJSON(b), nil)
}

func (h *handler) payments(w http.ResponseWriter, r *http.Request, acct store.Account) {
	p, err := parsePagination(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	payments, total, err := h.svc.Payments(r.Context(), acct, p.page)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := make([]PaymentView, 0, len(payments))
	for _, pay := range payments {
		out = append(out, newPaymentJSON(pay))
	}
	h.ok(w, r, http.StatusOK, out, p.meta(total))
}
