package api

import (
	"net/http"

	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// The handlers of /account/webhook: the account's one endpoint for event deliveries (GET, PUT,
// DELETE) and its test ping. The webhook is the copy template for a new entity: one file per
// layer (ARCHITECTURE.md, "A backend entity, to copy").

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
