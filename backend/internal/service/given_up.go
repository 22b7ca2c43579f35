package service

import (
	"context"
	"errors"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// OrderReader is what GivenUpBuilds reads: an order by id (the store).
type OrderReader interface {
	OrderByID(ctx context.Context, id int64) (store.Order, error)
}

// GivenUpBuilds is the service's answer to datacenter.GivenUp, over orders: the build of a
// machine ref is given up when the order it was built for (datacenter.OrderOfRef) has timed
// out, or is no longer stored. Only timed-out orders are purged (purgeRetained, after
// OrderRetention), so a host down for longer than that finds no order at all. A machine whose
// order is deployed or still pending is not given up, nor one whose ref names no order. It
// needs no Service, so the server hands it to the datacenter before the service exists.
func GivenUpBuilds(orders OrderReader) datacenter.GivenUp {
	return func(ctx context.Context, ref string) (bool, error) {
		id, ok := datacenter.OrderOfRef(ref)
		if !ok {
			return false, nil
		}
		o, err := orders.OrderByID(ctx, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return true, nil
		case err != nil:
			return false, err
		}
		return o.Status == store.OrderTimedOut, nil
	}
}
