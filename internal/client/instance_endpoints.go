package client

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Endpoints of orders, instances, their actions and app installs (spec: Orders, Instances).

// NewIdempotencyKey returns a random Idempotency-Key for one POST /instances. A create generates
// it once and sends it on every attempt, so the API never builds two servers for one create.
func NewIdempotencyKey() string {
	return "tf-" + rand.Text()
}

// CreateInstance calls POST /instances with the given Idempotency-Key (required).
//
// The request is replayable: the transport repeats it after 429, 502, 503 and network errors
// with the same key, and the API answers a repeat with the first order. While an earlier attempt
// with this key is still being processed the API answers 409 idempotency_in_progress; that is
// waited out here with the same backoff, within the retry budget, and then repeated.
func (c *Client) CreateInstance(ctx context.Context, in CreateInstanceRequest, idempotencyKey string) (*CreatedOrder, error) {
	if idempotencyKey == "" {
		return nil, fmt.Errorf("POST /instances: an Idempotency-Key is required")
	}
	if in.Term == "" {
		in.Term = TermHourly
	}
	r := request{method: http.MethodPost, path: "/instances", body: in, idempotencyKey: idempotencyKey}
	for attempt := 1; ; attempt++ {
		var out CreatedOrder
		meta, err := c.doWithMeta(ctx, r, &out)
		if err == nil {
			out.Replayed = meta.IdempotentReplay
			return &out, nil
		}
		if !IsCode(err, CodeIdempotencyInProgress) || attempt > c.maxRetries {
			return nil, err
		}
		wait := c.backoff(attempt)
		tflog.Info(ctx, "an earlier attempt of this order is still being processed; waiting to repeat it", map[string]any{
			"attempt": attempt, "wait": wait.String(),
		})
		if waitErr := c.wait(ctx, wait); waitErr != nil {
			return nil, fmt.Errorf("POST /instances: %w while waiting to repeat after: %w", waitErr, err)
		}
	}
}

// GetOrder calls GET /orders/{order_id}.
func (c *Client) GetOrder(ctx context.Context, id int64) (*Order, error) {
	var out Order
	return &out, c.do(ctx, request{method: http.MethodGet, path: "/orders/" + strconv.FormatInt(id, 10)}, &out)
}

// ListOrders calls GET /orders: orders pending or finished in the last 24 hours, newest first.
func (c *Client) ListOrders(ctx context.Context) ([]Order, error) {
	var out []Order
	return out, c.do(ctx, request{method: http.MethodGet, path: "/orders"}, &out)
}

// ListInstances calls GET /instances; onlyActive false includes canceled and expired instances.
func (c *Client) ListInstances(ctx context.Context, onlyActive bool) ([]Instance, error) {
	q := url.Values{"only_active": {strconv.FormatBool(onlyActive)}}
	var out []Instance
	return out, c.do(ctx, request{method: http.MethodGet, path: "/instances", query: q}, &out)
}

// GetInstance calls GET /instances/{id}; refresh asks the datacenter for live status first.
func (c *Client) GetInstance(ctx context.Context, id int64, refresh bool) (*Instance, error) {
	var q url.Values
	if refresh {
		q = url.Values{"refresh": {"true"}}
	}
	var out Instance
	return &out, c.do(ctx, request{method: http.MethodGet, path: instancePath(id), query: q}, &out)
}

// UpdateInstance calls PATCH /instances/{id}.
func (c *Client) UpdateInstance(ctx context.Context, id int64, in UpdateInstanceRequest) (*Instance, error) {
	var out Instance
	return &out, c.do(ctx, request{method: http.MethodPatch, path: instancePath(id), body: in}, &out)
}

// CancelInstance calls DELETE /instances/{id}. Repeating it is safe.
func (c *Client) CancelInstance(ctx context.Context, id int64) (*CanceledInstance, error) {
	var out CanceledInstance
	return &out, c.do(ctx, request{method: http.MethodDelete, path: instancePath(id)}, &out)
}

// RunAction calls POST /instances/{id}/actions. Actions change the server (and some charge), so
// the call is repeated only where the API certainly did not process it (429, refused connection).
func (c *Client) RunAction(ctx context.Context, id int64, in ActionRequest) (*ActionResult, error) {
	var out ActionResult
	return &out, c.do(ctx, request{method: http.MethodPost, path: instancePath(id) + "/actions", body: in}, &out)
}

// GetResizeOptions calls GET /instances/{id}/resize-options.
func (c *Client) GetResizeOptions(ctx context.Context, id int64) (*ResizeOptions, error) {
	var out ResizeOptions
	return &out, c.do(ctx, request{method: http.MethodGet, path: instancePath(id) + "/resize-options"}, &out)
}

// GetTraffic calls GET /instances/{id}/traffic.
func (c *Client) GetTraffic(ctx context.Context, id int64, refresh bool) (*Traffic, error) {
	var q url.Values
	if refresh {
		q = url.Values{"refresh": {"true"}}
	}
	var out Traffic
	return &out, c.do(ctx, request{method: http.MethodGet, path: instancePath(id) + "/traffic", query: q}, &out)
}

// ListInstanceApps calls GET /instances/{id}/apps; installs come newest first.
func (c *Client) ListInstanceApps(ctx context.Context, id int64) (*InstanceApps, error) {
	var out InstanceApps
	return &out, c.do(ctx, request{method: http.MethodGet, path: instancePath(id) + "/apps"}, &out)
}

// InstallApps calls POST /instances/{id}/apps.
func (c *Client) InstallApps(ctx context.Context, id int64, in InstallAppsRequest) (*InstalledApps, error) {
	var out InstalledApps
	return &out, c.do(ctx, request{method: http.MethodPost, path: instancePath(id) + "/apps", body: in}, &out)
}

func instancePath(id int64) string { return "/instances/" + strconv.FormatInt(id, 10) }
