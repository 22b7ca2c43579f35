package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// replayable reports whether sending r twice is harmless: the idempotent methods, a POST the
// endpoint marks retrySafe, and a request the server deduplicates by its Idempotency-Key.
func (r request) replayable() bool {
	switch r.method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return r.retrySafe || r.idempotencyKey != ""
}

// retryPlan decides whether a failed attempt is repeated, after how long, and why (for the log).
// resp is nil when no complete answer arrived (err is then a network error).
func (c *Client) retryPlan(r request, resp *response, err error, attempt int) (time.Duration, string, bool) {
	if resp == nil {
		switch {
		case isDialError(err):
			return c.backoff(attempt), "connection failed before the request was sent", true
		case r.replayable():
			return c.backoff(attempt), "network error", true
		}
		return 0, "", false
	}
	switch resp.status {
	case http.StatusTooManyRequests:
		// A 429 is answered before any work is done, so every request may be repeated.
		return c.serverDelay(resp, attempt), "rate limited", true
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if r.replayable() {
			return c.serverDelay(resp, attempt), "service unavailable", true
		}
	case http.StatusInternalServerError:
		// A fault of the service's in the middle of a request (its database's commit lost with
		// the connection, say) leaves it unknown whether the request was carried out. One with
		// an Idempotency-Key is sent again with it: the server answers the first outcome if
		// there was one (a replay) and carries it out if not, so an order placed but answered
		// 500 still reaches the state instead of building a server nothing tracks.
		if r.idempotencyKey != "" {
			return c.backoff(attempt), reasonServerError, true
		}
	}
	return 0, "", false
}

// reasonServerError is retryPlan's reason for repeating a keyed request answered 500. Running
// out of retries on it is still a fault of the service's, not unavailability: IsUnavailable
// reads the answer's server_error.
const reasonServerError = "server error, the outcome unknown: sent again with its Idempotency-Key"

// UnavailableError is a request the API could not be reached for, or answered as unavailable
// (502, 503 or 504 from it or a proxy in front of it, or no complete answer), after every
// attempt the client allows, and which was safe to send again each time (retryPlan). So a caller
// that can wait longer, a wait of tfutil.Poll bounded by the operation's own timeout, may send it
// again: a resellerd that restarts slowly or a database failover then costs time, not the apply.
// Its text is the familiar "METHOD path: giving up after N attempts: cause".
type UnavailableError struct {
	Method, Path string
	Attempts     int
	Reason       string // retryPlan's reason for the last retry, e.g. "connection failed before the request was sent"
	Err          error  // the last attempt's error
}

func (e *UnavailableError) Error() string {
	if e.Attempts <= 1 {
		return fmt.Sprintf("%s %s: %v", e.Method, e.Path, e.Err)
	}
	return fmt.Sprintf("%s %s: giving up after %d attempts: %v", e.Method, e.Path, e.Attempts, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// IsUnavailable reports whether err is an *UnavailableError: the API was unreachable or answered
// as unavailable, and the request may be sent again. A 502 that is the API's own answer with
// an error code other than service_unavailable (a datacenter's provider_error) is a real
// outcome, not unavailability, and a 429 is rate_limited (IsCode).
func IsUnavailable(err error) bool {
	var u *UnavailableError
	if !errors.As(err, &u) {
		return false
	}
	apiErr, answered := AsAPIError(u.Err)
	return !answered || apiErr.Code == "" || apiErr.Code == CodeServiceUnavailable
}

// serverDelay honours Retry-After when the server sent one, plus a little jitter so parallel
// resources sharing a key do not come back in lockstep; otherwise it backs off.
func (c *Client) serverDelay(resp *response, attempt int) time.Duration {
	if d, ok := parseRetryAfter(resp.header.Get("Retry-After"), time.Now()); ok {
		return d + c.jitter(c.minBackoff)
	}
	return c.backoff(attempt)
}

// backoff is capped exponential backoff with full jitter: a random wait in
// [0, min(maxBackoff, minBackoff·2^(attempt-1))).
func (c *Client) backoff(attempt int) time.Duration {
	ceiling := c.minBackoff
	for i := 1; i < attempt && ceiling < c.maxBackoff; i++ {
		ceiling *= 2
	}
	return c.jitter(min(ceiling, c.maxBackoff))
}

// fullJitter returns a random duration in [0, d).
func fullJitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d)
}

// Sleep waits for d unless ctx ends first, in which case it returns ctx.Err() at once. It is the
// one cancellable pause of the provider: the client's retries and pacing and tfutil.Poll's
// intervals all wait with it.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// isDialError reports whether err happened while connecting, before any byte of the request
// was sent, so the server certainly did not process it.
func isDialError(err error) bool {
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// logRetry records a retry: never the body or headers, only what explains the wait.
func (c *Client) logRetry(ctx context.Context, attempt int, wait time.Duration, reason string, resp *response, err error) {
	fields := map[string]any{
		"attempt":     attempt,
		"max_retries": c.maxRetries,
		"wait":        wait.String(),
		"reason":      reason,
		"error":       err.Error(),
	}
	if resp != nil {
		fields["status"] = resp.status
		fields["request_id"] = resp.header.Get("X-Request-ID")
	}
	tflog.Info(ctx, "retrying Reseller API request", fields)
}
