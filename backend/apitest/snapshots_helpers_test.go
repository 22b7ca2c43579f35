package apitest

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// snap posts a snapshot of an instance; body "" sends none.
func (e *env) snap(t *testing.T, key string, instanceID int64, body string) response {
	t.Helper()
	return e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/instances/%d/snapshots", instanceID), Key: key, Body: body})
}

// snapped takes a snapshot that must be accepted and returns it.
func (e *env) snapped(t *testing.T, key string, instanceID int64) api.SnapshotView {
	t.Helper()
	r := e.snap(t, key, instanceID, "")
	r.WantStatus(t, http.StatusAccepted, "")
	var v api.SnapshotView
	r.Data(t, &v)
	if v.Status != "creating" {
		t.Fatalf("new snapshot is %s, want creating", v.Status)
	}
	return v
}

// available takes a snapshot and runs the workers until it is available (the env's snapshot
// delay must be 0).
func (e *env) available(t *testing.T, key string, instanceID int64) api.SnapshotView {
	t.Helper()
	id := e.snapped(t, key, instanceID).ID
	e.runDue(t)
	v := e.getSnapshot(t, key, id)
	if v.Status != "available" {
		t.Fatalf("snapshot %d is %s after the workers ran, want available", id, v.Status)
	}
	return v
}

func (e *env) getSnapshot(t *testing.T, key string, id int64) api.SnapshotView {
	t.Helper()
	r := e.do(t, request{Path: fmt.Sprintf("/snapshots/%d", id), Key: key})
	r.WantStatus(t, http.StatusOK, "")
	var v api.SnapshotView
	r.Data(t, &v)
	return v
}

func (e *env) listSnapshots(t *testing.T, key, query string) []api.SnapshotView {
	t.Helper()
	r := e.do(t, request{Path: "/snapshots" + query, Key: key})
	r.WantStatus(t, http.StatusOK, "")
	var list []api.SnapshotView
	r.Data(t, &list)
	return list
}

func snapshotIDs(list []api.SnapshotView) []int64 {
	out := []int64{}
	for _, v := range list {
		out = append(out, v.ID)
	}
	return out
}

// storedSnapshot reads a snapshot as the store has it.
func (e *env) storedSnapshot(t *testing.T, id int64) store.Snapshot {
	t.Helper()
	s, err := e.database(t).SnapshotByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ledgerOf sums the account's ledger entries of kind (balance and debt parts).
func (e *env) ledgerOf(t *testing.T, accountID int64, kind string) (charged money.Micros, entries []store.LedgerEntry) {
	t.Helper()
	_, all := e.ledger(t, accountID)
	for _, en := range all {
		if en.Kind == kind {
			charged += -en.Amount + en.Debt
			entries = append(entries, en)
		}
	}
	return charged, entries
}
