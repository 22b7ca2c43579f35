package api

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// unreachableWindows is a shared store of rate-limit windows whose database cannot be reached.
type unreachableWindows struct{}

func (unreachableWindows) UpdateRateLog(context.Context, string, time.Time, func([]time.Time) []time.Time) error {
	return errors.New("sqlstore: rate log: dial tcp 127.0.0.1:5432: connect: connection refused")
}

func (unreachableWindows) DropRateLogsBefore(context.Context, time.Time) error {
	return errors.New("sqlstore: drop rate logs: dial tcp 127.0.0.1:5432: connect: connection refused")
}

// TestRateLimitWindowsUnreachableLetRequestsThrough: when the windows the replicas share cannot
// be read, a request is served as if under its limit, never refused for it, and the operator's
// log says why, once per request: a limit protects the API and is no reason to refuse what it
// would serve.
func TestRateLimitWindowsUnreachableLetRequestsThrough(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	handler := newTestHandler(t, &logs, func(routeFunc) {}, func(c *Config) { c.RateWindows = unreachableWindows{} })
	const requests = 200 // more than any read route's limit in a minute
	for i := range requests {
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/health", nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("request %d: status %d, want 200; body %s", i+1, rec.Code, rec.Body)
		}
	}
	if n := strings.Count(logs.String(), "rate limit windows unavailable; request let through"); n != requests {
		t.Fatalf("the log says %d times that the windows were unavailable, want %d:\n%.2000s", n, requests, logs.String())
	}
}
