package client

import (
	"context"
	"maps"
	"slices"
)

// AllInstances returns every instance of the account, active or not, by id, as GET /instances
// lists them (summary fields only), from the shared view of the account: one paginated walk of
// the list (limit 500) shared with the refreshes of the run. Used by the list resource and data.reseller_instances.
func (c *Client) AllInstances(ctx context.Context) ([]Instance, error) {
	items, err := c.view.instances.get(ctx)
	if err != nil {
		return nil, err
	}
	return byID(items), nil
}

// AllSnapshots returns every snapshot of the account, ended ones included, by id, from the
// shared view of GET /snapshots. Used by the list resource.
func (c *Client) AllSnapshots(ctx context.Context) ([]Snapshot, error) {
	items, err := c.view.snapshots.get(ctx)
	if err != nil {
		return nil, err
	}
	return byID(items), nil
}

// byID returns the items of a shared list (not to be changed) as a new slice in id order.
func byID[T any](items map[int64]T) []T {
	out := make([]T, 0, len(items))
	for _, id := range slices.Sorted(maps.Keys(items)) {
		out = append(out, items[id])
	}
	return out
}
