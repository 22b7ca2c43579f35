package service

import (
	"context"
	"errors"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// ordersByID is an OrderReader over a map; an id missing from it is not stored.
type ordersByID map[int64]store.Order

func (m ordersByID) OrderByID(_ context.Context, id int64) (store.Order, error) {
	if id == 666 {
		return store.Order{}, errors.New("database down")
	}
	o, ok := m[id]
	if !ok {
		return store.Order{}, store.ErrNotFound
	}
	return o, nil
}

func TestGivenUpBuilds(t *testing.T) {
	t.Parallel()
	givenUp := GivenUpBuilds(ordersByID{
		1: {ID: 1, Status: store.OrderPending},
		2: {ID: 2, Status: store.OrderDeployed},
		3: {ID: 3, Status: store.OrderTimedOut},
	})
	for ref, want := range map[string]bool{
		"vm-1": false, // pending: its build may still finish
		"vm-2": false, // deployed: an instance holds it
		"vm-3": true,  // timed out
		"vm-4": true,  // purged, which only timed-out orders are
		"x-3":  false, // names no order: not the service's to give up
		"vm-0": false,
	} {
		got, err := givenUp(context.Background(), ref)
		if err != nil || got != want {
			t.Errorf("given up %s = %v, %v; want %v", ref, got, err, want)
		}
	}
	if got, err := givenUp(context.Background(), "vm-666"); err == nil || got {
		t.Errorf("given up vm-666 on a failing store = %v, %v; want false and the error", got, err)
	}
}
