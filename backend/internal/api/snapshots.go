package api

import (
	"bytes"
	"context"
	"net/http"

	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/wire"
)

func (h *handler) snapshots(w http.ResponseWriter, r *http.Request, acct store.Account) {
	includeInactive, err := queryBool(r, "include_inactive", false)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	list, err := h.svc.Snapshots(r.Context(), acct, includeInactive)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, newSnapshotsJSON(list, language(r)), nil)
}

func (h *handler) snapshot(w http.ResponseWriter, r *http.Request, acct store.Account) {
	id, err := pathID(r, "snapshot_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	snap, err := h.svc.Snapshot(r.Context(), acct, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, newSnapshotJSON(snap, language(r)), nil)
}

func (h *handler) updateSnapshot(w http.ResponseWriter, r *http.Request, acct store.Account) {
	id, err := pathID(r, "snapshot_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var req wire.UpdateSnapshotRequest
	if err := decodeJSON(r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	snap, err := h.svc.UpdateSnapshot(r.Context(), acct, id, service.SnapshotUpdate{Name: req.Name, Note: req.Note})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, newSnapshotJSON(snap, language(r)), nil)
}

func (h *handler) deleteSnapshot(w http.ResponseWriter, r *http.Request, acct store.Account) {
	h.snapshotOp(w, r, acct, h.svc.DeleteSnapshot)
}

func (h *handler) restoreSnapshot(w http.ResponseWriter, r *http.Request, acct store.Account) {
	h.snapshotOp(w, r, acct, h.svc.RestoreSnapshot)
}

// snapshotOp serves a bodiless operation on one snapshot that answers 200 with the snapshot.
func (h *handler) snapshotOp(w http.ResponseWriter, r *http.Request, acct store.Account,
	op func(ctx context.Context, acct store.Account, id int64) (service.SnapshotView, error)) {
	id, err := pathID(r, "snapshot_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	snap, err := op(r.Context(), acct, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, newSnapshotJSON(snap, language(r)), nil)
}

func (h *handler) instanceSnapshots(w http.ResponseWriter, r *http.Request, acct store.Account) {
	id, err := pathID(r, "instance_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	list, err := h.svc.InstanceSnapshots(r.Context(), acct, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusOK, newSnapshotsJSON(list.Snapshots, language(r)),
		instanceSnapshotsMeta{Settings: newSnapshotSettingsJSON(list.Settings)})
}

// createSnapshot accepts no body at all as well as a JSON object: the body is optional.
func (h *handler) createSnapshot(w http.ResponseWriter, r *http.Request, acct store.Account) {
	id, err := pathID(r, "instance_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	body, err := readBody(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var req wire.CreateSnapshotRequest
	if len(bytes.TrimSpace(body)) > 0 {
		if err := decodeBytes(body, &req); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	snap, err := h.svc.CreateSnapshot(r.Context(), acct, id, service.SnapshotRequest{Name: req.Name})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, http.StatusAccepted, newSnapshotJSON(snap, language(r)), nil)
}
