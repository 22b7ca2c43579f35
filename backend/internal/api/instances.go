package api

import (
	"net/http"

	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/wire"
)

// orders streams the list chunk by chunk (see listStream): its size is bounded by the 24 hours
// of orders it covers, not by a page, and memory holds one chunk.
func (h *handler) orders(w http.ResponseWriter, r *http.Request, acct store.Account) {
	lang := language(r)
	list := newListStream(w)
	err := h.svc.EachRecentOrder(r.Context(), acct, func(chunk []service.OrderView) error {
		for _, o := range chunk {
			if err := list.add(newOrderJSON(o, lang)); err != nil {
				return err
			}
		}
		return nil
	})
	h.finish(w, r, list, err)
}

func (h *handler) order(w http.ResponseWriter, r *http.Request, acct store.Account) {
	id, err := pathID(r, "order_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	o, err := h.svc.Order(r.Context(), acct, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, newOrderJSON(o, language(r)), nil)
}

// createInstance keeps the raw body: the idempotency rules compare the canonical form of it.
func (h *handler) createInstance(w http.ResponseWriter, r *http.Request, acct store.Account) {
	body, err := readBody(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var req createInstanceRequestJSON
	if err := decodeBytes(body, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	created, err := h.svc.CreateOrder(r.Context(), acct, req.request(),
		service.Idempotency{Key: r.Header.Get("Idempotency-Key"), Body: body})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var meta any
	if created.Replay {
		meta = MetaView{IdempotentReplay: true}
	}
	apps := append([]string{}, created.Order.Apps...)
	h.ok(w, r, http.StatusCreated, CreatedOrderView{OrderID: created.Order.ID, Price: created.Order.Price, Apps: apps}, meta)
}

func (h *handler) instances(w http.ResponseWriter, r *http.Request, acct store.Account) {
	p, err := parsePagination(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	onlyActive, err := queryBool(r, "only_active", true)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	list, total, err := h.svc.Instances(r.Context(), acct, onlyActive, p.page)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := make([]InstanceSummaryView, 0, len(list))
	for _, d := range list {
		out = append(out, newInstanceSummaryJSON(d))
	}
	h.ok(w, r, http.StatusOK, out, p.meta(total))
}

func (h *handler) instance(w http.ResponseWriter, r *http.Request, acct store.Account) {
	id, err := pathID(r, "instance_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	refresh, err := queryBool(r, "refresh", false)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d, err := h.svc.Instance(r.Context(), acct, id, refresh)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	// What h.ok(w, r, http.StatusOK, newInstanceDetailJSON(d, lang), nil) writes, appended by
	// hand: the busiest answer (views_instances_append.go).
	buf := h.bufs.get()
	defer h.bufs.put(buf)
	buf.Write(h.catalogJSON.appendInstanceDetailAnswer(buf.AvailableBuffer(), &d, language(r)))
	send(w, http.StatusOK, buf.Bytes())
}

func (h *handler) updateInstance(w http.ResponseWriter, r *http.Request, acct store.Account) {
	id, err := pathID(r, "instance_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var req wire.UpdateInstanceRequest
	if err := decodeJSON(r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	d, err := h.svc.UpdateInstance(r.Context(), acct, id, service.InstanceUpdate{Name: req.Name, Note: req.Note, Renew: req.Renew})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, newInstanceDetailJSON(d, language(r)), nil)
}

func (h *handler) cancelInstance(w http.ResponseWriter, r *http.Request, acct store.Account) {
	id, err := pathID(r, "instance_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	in, err := h.svc.CancelInstance(r.Context(), acct, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, CanceledInstanceView{ID: in.ID, Status: in.Status, Active: in.Active}, nil)
}

func (h *handler) action(w http.ResponseWriter, r *http.Request, acct store.Account) {
	id, err := pathID(r, "instance_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var body actionRequestJSON
	if err := decodeJSON(r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	req, err := body.request()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	res, err := h.svc.RunAction(r.Context(), acct, id, req)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, newActionResultJSON(res), nil)
}

func (h *handler) resizeOptions(w http.ResponseWriter, r *http.Request, acct store.Account) {
	id, err := pathID(r, "instance_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	opts, err := h.svc.ResizeOptions(r.Context(), acct, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, newResizeOptionsJSON(opts, language(r)), nil)
}

func (h *handler) traffic(w http.ResponseWriter, r *http.Request, acct store.Account) {
	id, err := pathID(r, "instance_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	refresh, err := queryBool(r, "refresh", false)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	t, err := h.svc.Traffic(r.Context(), acct, id, refresh)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, newTrafficJSON(t), nil)
}

func (h *handler) instanceApps(w http.ResponseWriter, r *http.Request, acct store.Account) {
	id, err := pathID(r, "instance_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	apps, err := h.svc.InstanceApps(r.Context(), acct, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, newInstanceAppsJSON(apps, language(r)), nil)
}

func (h *handler) installApps(w http.ResponseWriter, r *http.Request, acct store.Account) {
	id, err := pathID(r, "instance_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var req wire.InstallAppsRequest
	if err := decodeJSON(r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	queued, err := h.svc.InstallApps(r.Context(), acct, id, req.Apps, req.AppInputs)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusAccepted, InstalledAppsView{ServerID: id, Queued: append([]string{}, queued...)}, nil)
}
