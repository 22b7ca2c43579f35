package wire

import (
	"fmt"
	"net/http"
)

// The bodies of /account/webhook (spec: Webhook settings).

// WebhookSettings is the body of GET, PUT and DELETE /account/webhook. It has no field for the
// secret, so none can leak.
type WebhookSettings struct {
	URL        *string  `json:"url"`
	Configured bool     `json:"configured"`
	Events     []string `json:"events"`
}

// WebhookTestResult is the answer of POST /account/webhook/test: whether the ping was delivered
// (a 2xx answer) and the HTTP status the endpoint answered with, nil when it did not answer
// (schema WebhookTestResult).
type WebhookTestResult struct {
	Delivered bool   `json:"delivered"`
	Status    *int64 `json:"status"`
}

// String describes the result for a diagnostic: "delivered (HTTP 204)", "HTTP 401
// Unauthorized", or "no answer".
func (r WebhookTestResult) String() string {
	switch {
	case r.Status == nil && r.Delivered:
		return "delivered"
	case r.Status == nil:
		return "no answer (connection refused or timed out)"
	case r.Delivered:
		return fmt.Sprintf("delivered (HTTP %d)", *r.Status)
	}
	return fmt.Sprintf("HTTP %d %s", *r.Status, http.StatusText(int(*r.Status)))
}
