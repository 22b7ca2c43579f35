package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/reseller/terraform-provider-reseller/wire"
)

// listPageSize is the largest page GET /instances serves (spec: Pagination).
const listPageSize = wire.MaxPageSize

// defaultViewTTL is how long one copy of the account's lists answers reads. A Terraform
// operation refreshes every resource within seconds, so one copy serves a whole refresh, and a
// change made outside Terraform is seen by the next operation.
const defaultViewTTL = 30 * time.Second

// pollViewTTL is how long one list answers waits (orders, snapshots): every wait polling at once
// shares one request of the list at most this often.
const pollViewTTL = 2 * time.Second

// accountView is the Client's shared, short-lived view of the account's instances (summaries),
// snapshots and recent orders, filled from the lists and dropped on every write this Client
// sends.
type accountView struct {
	instances *sharedList[Instance]
	snapshots *sharedList[Snapshot]
	orders    *sharedList[Order]
}

func newAccountView(c *Client) *accountView {
	return &accountView{
		instances: newSharedList(defaultViewTTL, c.listAllInstances),
		snapshots: newSharedList(defaultViewTTL, c.listAllSnapshots),
		orders:    newSharedList(pollViewTTL, c.listRecentOrders),
	}
}

// invalidate drops every list: a write may have changed any.
func (v *accountView) invalidate() {
	v.instances.invalidate()
	v.snapshots.invalidate()
	v.orders.invalidate()
}

// OrderShared returns order id for a wait: from the shared GET /orders list (orders of the last
// 24 hours, each deployed one with its server's full detail, credentials included), so N
// creates waiting at once cost one GET /orders per poll rather than N GET /orders/{id}. An
// order the list does not hold (older than a day) is read with GET /orders/{id}.
func (c *Client) OrderShared(ctx context.Context, id int64) (*Order, error) {
	items, err := c.view.orders.get(ctx)
	if err != nil {
		return nil, err
	}
	if o, ok := items[id]; ok {
		return &o, nil
	}
	return c.GetOrder(ctx, id)
}

// SnapshotShared returns snapshot id for a wait: from the shared GET /snapshots list no older
// than pollViewTTL, so every snapshot wait of the run shares one poll; a snapshot the list does
// not hold is read with GET /snapshots/{id}.
func (c *Client) SnapshotShared(ctx context.Context, id int64) (*Snapshot, error) {
	items, err := c.view.snapshots.getWithin(ctx, pollViewTTL)
	if err != nil {
		return nil, err
	}
	if s, ok := items[id]; ok {
		return &s, nil
	}
	return c.GetSnapshot(ctx, id)
}

// listRecentOrders reads GET /orders.
func (c *Client) listRecentOrders(ctx context.Context) (map[int64]Order, error) {
	list, err := c.ListOrders(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing orders: %w", err)
	}
	items := make(map[int64]Order, len(list))
	for _, o := range list {
		items[o.OrderID] = o
	}
	return items, nil
}

// InstanceSummary returns instance id as GET /instances lists it (summary fields only: the
// detail fields such as Credentials and Traffic are nil), from the shared view of the account,
// and false when the list does not hold it (it does not exist for this account). Concurrent
// callers share one walk of the list: ceil(N/500) requests for N instances.
func (c *Client) InstanceSummary(ctx context.Context, id int64) (*Instance, bool, error) {
	items, err := c.view.instances.get(ctx)
	if err != nil {
		return nil, false, err
	}
	in, ok := items[id]
	if !ok {
		return nil, false, nil
	}
	return &in, true, nil
}

// SnapshotFromList returns snapshot id from the shared view of GET /snapshots (inactive ones
// included; the list carries every field of the detail), and false when the list does not hold
// it.
func (c *Client) SnapshotFromList(ctx context.Context, id int64) (*Snapshot, bool, error) {
	items, err := c.view.snapshots.get(ctx)
	if err != nil {
		return nil, false, err
	}
	s, ok := items[id]
	if !ok {
		return nil, false, nil
	}
	return &s, true, nil
}

// DetailedRefresh reports whether the provider asked for a detail read of every instance on
// refresh (provider setting detailed_refresh).
func (c *Client) DetailedRefresh() bool { return c.detailedRefresh }

// listAllInstances walks GET /instances?only_active=false page by page.
func (c *Client) listAllInstances(ctx context.Context) (map[int64]Instance, error) {
	items := map[int64]Instance{}
	for offset := int64(0); ; {
		q := url.Values{
			"only_active": {"false"},
			"limit":       {strconv.Itoa(listPageSize)},
			"offset":      {strconv.FormatInt(offset, 10)},
		}
		var page []Instance
		meta, err := c.doWithMeta(ctx, request{method: http.MethodGet, path: "/instances", query: q}, &page)
		if err != nil {
			return nil, fmt.Errorf("listing instances: %w", err)
		}
		for _, in := range page {
			items[in.ID] = in
		}
		offset += int64(len(page))
		if len(page) == 0 || meta.Page == nil || offset >= meta.Page.Total {
			return items, nil
		}
	}
}

// listAllSnapshots reads GET /snapshots?include_inactive=true.
func (c *Client) listAllSnapshots(ctx context.Context) (map[int64]Snapshot, error) {
	list, err := c.ListSnapshots(ctx, true)
	if err != nil {
		return nil, fmt.Errorf("listing snapshots: %w", err)
	}
	items := make(map[int64]Snapshot, len(list))
	for _, s := range list {
		items[s.ID] = s
	}
	return items, nil
}
