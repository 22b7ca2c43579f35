package api

import (
	"net/http"

	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
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

func (h *handler) webhook(w http.ResponseWriter, r *http.Request, acct store.Account) {
	settings, err := h.svc.Webhook(r.Context(), acct)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, newWebhookJSON(settings), nil)
}

func (h *handler) putWebhook(w http.ResponseWriter, r *http.Request, acct store.Account) {
	var req webhookRequestJSON
	if err := decodeJSON(r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	settings, err := h.svc.SetWebhook(r.Context(), acct, service.WebhookRequest{URL: req.URL, Secret: req.Secret})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, newWebhookJSON(settings), nil)
}

func (h *handler) deleteWebhook(w http.ResponseWriter, r *http.Request, acct store.Account) {
	settings, err := h.svc.DeleteWebhook(r.Context(), acct)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, newWebhookJSON(settings), nil)
}

func (h *handler) testWebhook(w http.ResponseWriter, r *http.Request, acct store.Account) {
	res, err := h.svc.TestWebhook(r.Context(), acct)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := WebhookTestView{Delivered: res.Delivered}
	if res.Status != 0 {
		status := int64(res.Status)
		out.Status = &status
	}
	h.ok(w, r, http.StatusOK, out, nil)
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
