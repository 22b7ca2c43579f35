package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Meta is the `meta` object of a success envelope. Most calls ignore it; paginated lists read
// Page, and the instance create reads IdempotentReplay to know its order was created earlier.
type Meta struct {
	// Page is meta.page; nil unless the list was asked for with `limit`.
	Page *Page `json:"page"`
	// IdempotentReplay is meta.idempotent_replay: true when POST /instances returned the order
	// created by an earlier request with the same Idempotency-Key.
	IdempotentReplay bool `json:"idempotent_replay"`
	// Raw is meta as sent, for fields this type does not name (meta.settings of snapshots).
	Raw json.RawMessage `json:"-"`
	// RequestID is the X-Request-ID header of the answer, for logs and support.
	RequestID string `json:"-"`
}

// envelope is every body the API sends: {success, data, meta} or {success: false, error}.
type envelope struct {
	Success *bool           `json:"success"`
	Data    json.RawMessage `json:"data"`
	Meta    json.RawMessage `json:"meta"`
	Error   *errorBody      `json:"error"`
}

// response is an HTTP answer read completely, so it can be decoded and logged after the
// connection is released.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do runs r and decodes the envelope's data into out (which may be nil).
func (c *Client) do(ctx context.Context, r request, out any) error {
	_, err := c.doWithMeta(ctx, r, out)
	return err
}

// doWithMeta runs r with the retry and failover rules of Client, decodes data into out (which
// may be nil) and returns meta. Errors are prefixed with the method and path; API answers are
// an *APIError in the chain, context ends wrap ctx.Err().
func (c *Client) doWithMeta(ctx context.Context, r request, out any) (Meta, error) {
	body, err := encodeBody(r.body)
	if err != nil {
		return Meta{}, fmt.Errorf("%s %s: encode request body: %w", r.method, r.path, err)
	}
	ctx = c.logContext(ctx, r)
	if r.method != http.MethodGet && !r.retrySafe {
		// The write may change what the lists show: drop them before it (so no read started
		// now keeps an older copy) and after it (so no copy fetched meanwhile survives). A
		// retrySafe POST (POST /quote, which every planned server asks) changes nothing.
		c.view.invalidate()
		defer c.view.invalidate()
	}
	for attempt := 1; ; attempt++ {
		resp, err := c.send(ctx, r, body, attempt)
		if err == nil {
			meta, decodeErr := c.decode(resp, out)
			if decodeErr == nil {
				return meta, nil
			}
			err = decodeErr
		}
		if ctxErr := ctx.Err(); resp == nil && ctxErr != nil {
			return Meta{}, fmt.Errorf("%s %s: %w", r.method, r.path, ctxErr)
		}
		wait, reason, retry := c.retryPlan(r, resp, err, attempt)
		if !retry {
			return Meta{}, fmt.Errorf("%s %s: %w", r.method, r.path, err)
		}
		if c.maxRetries == 0 || attempt > c.maxRetries {
			return Meta{}, &UnavailableError{Method: r.method, Path: r.path, Attempts: attempt, Reason: reason, Err: err}
		}
		c.logRetry(ctx, attempt, wait, reason, resp, err)
		if waitErr := c.wait(ctx, wait); waitErr != nil {
			return Meta{}, fmt.Errorf("%s %s: %w while waiting %s to retry after: %w", r.method, r.path, waitErr, wait, err)
		}
	}
}

// encodeBody marshals the body once, so every retry and failover sends the same bytes.
func encodeBody(body any) ([]byte, error) {
	if body == nil {
		return nil, nil
	}
	return json.Marshal(body)
}

// logContext adds the request's fields to every log line of the call and masks the API key, in
// case an error text or a proxy page ever echoes it.
func (c *Client) logContext(ctx context.Context, r request) context.Context {
	if c.apiKey != "" {
		ctx = tflog.MaskLogStrings(ctx, c.apiKey)
	}
	ctx = tflog.SetField(ctx, "method", r.method)
	ctx = tflog.SetField(ctx, "path", r.path)
	if r.idempotencyKey != "" {
		ctx = tflog.SetField(ctx, "idempotency_key", r.idempotencyKey)
	}
	return ctx
}

// send performs one attempt (including a failover, see exchange) and reads the whole answer.
// A failure to read the body returns a nil response: the answer is incomplete, like a
// network error.
func (c *Client) send(ctx context.Context, r request, body []byte, attempt int) (*response, error) {
	httpResp, err := c.exchange(ctx, r, body, attempt)
	if err != nil {
		return nil, err
	}
	defer httpResp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(httpResp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read response body: %w", err)
	}
	resp := &response{status: httpResp.StatusCode, header: httpResp.Header, body: data}
	if len(data) > maxResponseBytes {
		return resp, fmt.Errorf("response body is larger than %d bytes", maxResponseBytes)
	}
	return resp, nil
}

// exchange sends the request to the preferred endpoint and, when that fails at the network level
// in a way that allows it (canFailover), at once to the other one.
func (c *Client) exchange(ctx context.Context, r request, body []byte, attempt int) (*http.Response, error) {
	first := int(c.preferred.Load())
	resp, err := c.roundTrip(ctx, r, body, first, attempt)
	if err == nil || !c.canFailover(ctx, r, err) {
		return resp, err
	}
	other := 1 - first
	tflog.Warn(ctx, "Reseller API endpoint unreachable, failing over", map[string]any{
		"attempt": attempt,
		"from":    c.endpoints[first],
		"to":      c.endpoints[other],
		"error":   err.Error(),
	})
	resp, otherErr := c.roundTrip(ctx, r, body, other, attempt)
	if otherErr != nil {
		return nil, fmt.Errorf("%w (the other endpoint failed too: %w)", otherErr, err)
	}
	return resp, nil
}

// canFailover reports whether a network failure may be repeated against the other endpoint in
// the same attempt: only with two endpoints, a live context, and a request that either certainly
// did not reach the server (dial error) or is safe to send twice.
func (c *Client) canFailover(ctx context.Context, r request, err error) bool {
	return len(c.endpoints) == 2 && ctx.Err() == nil && (isDialError(err) || r.replayable())
}

// roundTrip sends one HTTP request to endpoints[idx]. An endpoint that answers at all becomes the
// preferred one (sticky failover).
func (c *Client) roundTrip(ctx context.Context, r request, body []byte, idx, attempt int) (*http.Response, error) {
	req, err := c.newHTTPRequest(ctx, r, body, c.endpoints[idx])
	if err != nil {
		return nil, err
	}
	if c.pacer != nil {
		mark, err := c.pacer.take(ctx, r.method, r.path)
		if err != nil {
			return nil, fmt.Errorf("waiting for the request budget: %w", err)
		}
		defer c.pacer.answered(mark)
	}
	tflog.Debug(ctx, "sending Reseller API request", map[string]any{"attempt": attempt, "endpoint": c.endpoints[idx]})
	start := time.Now()
	resp, err := c.httpClient.Do(req)
	if err != nil {
		tflog.Debug(ctx, "Reseller API request failed", map[string]any{"attempt": attempt, "error": err.Error()})
		return nil, err
	}
	c.preferred.Store(int32(idx))
	tflog.Debug(ctx, "received Reseller API response", map[string]any{
		"attempt":     attempt,
		"status":      resp.StatusCode,
		"request_id":  resp.Header.Get("X-Request-ID"),
		"duration_ms": time.Since(start).Milliseconds(),
	})
	return resp, nil
}

// newHTTPRequest builds the HTTP request of r against base with every header the API expects.
func (c *Client) newHTTPRequest(ctx context.Context, r request, body []byte, base string) (*http.Request, error) {
	target := base + r.path
	if len(r.query) > 0 {
		target += "?" + r.query.Encode()
	}
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, target, reader)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	h := req.Header
	h.Set("Accept", "application/json")
	h.Set("Accept-Language", c.language)
	h.Set("User-Agent", c.userAgent)
	if c.apiKey != "" {
		h.Set("Authorization", "Bearer "+c.apiKey)
	}
	if body != nil {
		h.Set("Content-Type", "application/json")
	}
	if r.idempotencyKey != "" {
		h.Set("Idempotency-Key", r.idempotencyKey)
	}
	return req, nil
}

// decode turns a complete answer into meta and out, or into an *APIError.
func (c *Client) decode(resp *response, out any) (Meta, error) {
	if resp.status < 200 || resp.status > 299 {
		return Meta{}, newAPIError(resp.status, resp.header, resp.body, c.apiKey)
	}
	requestID := resp.header.Get("X-Request-ID")
	if isNull(resp.body) {
		return Meta{RequestID: requestID}, nil
	}
	var env envelope
	if err := json.Unmarshal(resp.body, &env); err != nil || env.Success == nil {
		return Meta{}, fmt.Errorf("the HTTP %d response is not a Reseller API envelope (Content-Type %q); "+
			"check that the endpoint includes the version prefix such as /api/v1; body starts: %q",
			resp.status, resp.header.Get("Content-Type"), snippet(resp.body, c.apiKey))
	}
	if !*env.Success {
		return Meta{}, newAPIError(resp.status, resp.header, resp.body, c.apiKey)
	}
	if out != nil && !isNull(env.Data) {
		if err := json.Unmarshal(env.Data, out); err != nil {
			return Meta{}, fmt.Errorf("decode response data: %w", err)
		}
	}
	return decodeMeta(env.Meta, requestID), nil
}

// decodeMeta reads the fields Meta names. It is lenient on purpose: meta is informational, and
// failing a create whose order was accepted over an odd meta would do more harm than good; Raw
// keeps the original either way.
func decodeMeta(raw json.RawMessage, requestID string) Meta {
	var meta Meta
	if !isNull(raw) {
		_ = json.Unmarshal(raw, &meta)
		meta.Raw = raw
	}
	meta.RequestID = requestID
	return meta
}

// isNull reports whether raw JSON is absent or null.
func isNull(raw []byte) bool {
	trimmed := bytes.TrimSpace(raw)
	return len(trimmed) == 0 || string(trimmed) == "null"
}
