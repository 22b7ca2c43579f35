package client

import (
	"context"
	"net/url"
	"time"
)

// This file is compiled only into the tests. It lets the external tests (package client_test)
// drive the transport with requests no endpoint method makes yet (plain POSTs, Idempotency-Key)
// and observe waits without spending real seconds.

// TestRequest mirrors the unexported request.
type TestRequest struct {
	Method, Path   string
	Query          url.Values
	Body           any
	RetrySafe      bool
	IdempotencyKey string
}

// DoForTest runs r through doWithMeta.
func (c *Client) DoForTest(ctx context.Context, r TestRequest, out any) (Meta, error) {
	return c.doWithMeta(ctx, request{
		method:         r.Method,
		path:           r.Path,
		query:          r.Query,
		body:           r.Body,
		retrySafe:      r.RetrySafe,
		idempotencyKey: r.IdempotencyKey,
	}, out)
}

// SetWaitForTest replaces the context-aware sleeper.
func (c *Client) SetWaitForTest(wait func(ctx context.Context, d time.Duration) error) {
	c.wait = wait
}

// SetJitterForTest replaces the random jitter.
func (c *Client) SetJitterForTest(jitter func(d time.Duration) time.Duration) {
	c.jitter = jitter
}
