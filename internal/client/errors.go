package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Error codes of the Reseller API (spec, "Errors"). Codes are stable between releases while
// message text is not, so callers branch on these and never on Message.
const (
	CodeValidation            = "validation_error"
	CodeUnauthorized          = "unauthorized"
	CodeInsufficientBalance   = "insufficient_balance"
	CodeForbidden             = "forbidden"
	CodeNotFound              = "not_found"
	CodeInstanceLocked        = "instance_locked"
	CodeIdempotencyInProgress = "idempotency_in_progress"
	CodeCostUnconfirmed       = "cost_unconfirmed"
	CodeIdempotencyKeyReused  = "idempotency_key_reused"
	CodeRateLimited           = "rate_limited"
	CodeServerError           = "server_error"
	CodeProviderError         = "provider_error"
	CodeDeployRejected        = "deploy_rejected"
	CodeServiceUnavailable    = "service_unavailable"
	// Conflict codes the backend documents beyond the spec's table (OpenAPI: Conflict).
	CodeOrderLimitReached     = "order_limit_reached"
	CodeServerLimitReached    = "server_limit_reached"
	CodeDatacenterUnavailable = "datacenter_unavailable"
	CodeIPChangeTooSoon       = "ip_change_too_soon"
	CodeAppConflict           = "app_conflict"
	// Codes of the snapshot endpoints beyond the spec's table (backend/docs/choices.md and OpenAPI:
	// snapshot 403 and 409 codes).
	CodeSnapshotLimitReached = "snapshot_limit_reached"
	CodeSnapshotUnavailable  = "snapshot_unavailable"
	CodeSnapshotLocked       = "snapshot_locked"
	CodeRestoreUnsupported   = "restore_unsupported"
)

// Codes is every code above: the API's list (backend/internal/service.Codes) is held to contain
// them all (backend/internal/api: TestErrorCodes_client).
var Codes = []string{
	CodeValidation, CodeUnauthorized, CodeInsufficientBalance, CodeForbidden, CodeNotFound,
	CodeInstanceLocked, CodeIdempotencyInProgress, CodeCostUnconfirmed, CodeIdempotencyKeyReused,
	CodeRateLimited, CodeServerError, CodeProviderError, CodeDeployRejected, CodeServiceUnavailable,
	CodeOrderLimitReached, CodeServerLimitReached, CodeDatacenterUnavailable, CodeIPChangeTooSoon, CodeAppConflict,
	CodeSnapshotLimitReached, CodeSnapshotUnavailable, CodeSnapshotLocked, CodeRestoreUnsupported,
}

// snippetLimit bounds how much of a foreign (non-API) error body is quoted in a message: enough
// to recognise a proxy's error page, short enough to keep a Terraform diagnostic readable.
const snippetLimit = 200

// APIError is an error answer of the API, or any non-2xx answer that reached the client.
//
// It carries what a user needs to act on a failure: the stable Code to branch on, the Message to
// read, and the RequestID and Reference that support asks for. Answers that are not API error
// envelopes (a proxy's HTML 502 page, an empty 500) still become an APIError with Status set,
// Code empty and a Message saying what came back.
type APIError struct {
	// Status is the HTTP status code of the answer.
	Status int
	// Code is error.code, one of the Code constants; empty when the body was not an API error.
	Code string
	// Message is error.message, or a description of a body that was not an API error.
	Message string
	// RequestID is error.request_id, or the X-Request-ID header when the body had none.
	RequestID string
	// Reference is error.reference, the support code of datacenter-side failures.
	Reference string
	// RetryAfter is the parsed Retry-After header (capped at two minutes); 0 when absent.
	RetryAfter time.Duration
}

// Error renders the error for a Terraform diagnostic, for example
// "insufficient_balance: Balance too low (HTTP 402, request ID req-1)".
func (e *APIError) Error() string {
	head := e.Code
	var details []string
	if head == "" {
		head = strings.TrimSpace("HTTP " + strconv.Itoa(e.Status) + " " + http.StatusText(e.Status))
	} else {
		details = append(details, "HTTP "+strconv.Itoa(e.Status))
	}
	if e.RequestID != "" {
		details = append(details, "request ID "+e.RequestID)
	}
	if e.Reference != "" {
		details = append(details, "support reference "+e.Reference)
	}
	msg := e.Message
	if msg == "" {
		msg = "no error message"
	}
	if len(details) == 0 {
		return head + ": " + msg
	}
	return head + ": " + msg + " (" + strings.Join(details, ", ") + ")"
}

// AsAPIError finds an *APIError in err's chain, so callers can read its fields through any
// wrapping added on the way up.
func AsAPIError(err error) (*APIError, bool) {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr, true
	}
	return nil, false
}

// IsNotFound reports whether err is the API saying the resource is gone or not owned by the
// account; Read uses it to drop a resource from state. A bare 404 without an API body counts too.
func IsNotFound(err error) bool {
	apiErr, ok := AsAPIError(err)
	return ok && (apiErr.Code == CodeNotFound || apiErr.Status == http.StatusNotFound)
}

// IsCode reports whether err is an API error with the given code (one of the Code constants).
func IsCode(err error, code string) bool {
	apiErr, ok := AsAPIError(err)
	return ok && apiErr.Code == code
}

// errorBody is the `error` object of an error envelope.
type errorBody struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"request_id"`
	Reference string `json:"reference"`
}

// newAPIError builds the APIError of a non-2xx answer (or a 2xx answer with success false).
// secret is scrubbed from any quoted foreign body, since some proxies echo request headers.
func newAPIError(status int, header http.Header, body []byte, secret string) *APIError {
	e := &APIError{Status: status, RequestID: header.Get("X-Request-ID")}
	e.RetryAfter, _ = parseRetryAfter(header.Get("Retry-After"), time.Now())

	var env envelope
	if err := json.Unmarshal(body, &env); err == nil && env.Error != nil && env.Error.Code != "" {
		e.Code = env.Error.Code
		e.Message = env.Error.Message
		e.Reference = env.Error.Reference
		if env.Error.RequestID != "" {
			e.RequestID = env.Error.RequestID
		}
		return e
	}
	e.Message = describeForeignBody(header.Get("Content-Type"), body, secret)
	return e
}

// describeForeignBody explains an error answer that is not an API error envelope, quoting the
// start of the body so a user can tell a proxy page from a misconfigured endpoint.
func describeForeignBody(contentType string, body []byte, secret string) string {
	const hint = "a proxy or load balancer in front of the API may have answered, " +
		"or the endpoint does not point at the Reseller API"
	snippet := snippet(body, secret)
	if snippet == "" {
		return "the response has an empty body; " + hint
	}
	if contentType == "" {
		contentType = "none"
	}
	return fmt.Sprintf("the response is not a Reseller API error (Content-Type %s); %s; body starts: %q",
		contentType, hint, snippet)
}

// snippet returns the start of body with whitespace collapsed, control characters dropped and
// secret replaced, at most snippetLimit runes.
func snippet(body []byte, secret string) string {
	text := string(body)
	if secret != "" {
		text = strings.ReplaceAll(text, secret, "***")
	}
	text = strings.Join(strings.Fields(text), " ")
	text = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, text)
	if runes := []rune(text); len(runes) > snippetLimit {
		text = string(runes[:snippetLimit]) + "…"
	}
	return text
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date (RFC 9110 10.2.3).
// A date in the past or a negative number means "now". The result is capped at maxRetryAfter so
// a broken or hostile header cannot park a Terraform run for hours.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, true
		}
		if secs > int64(maxRetryAfter/time.Second) {
			return maxRetryAfter, true
		}
		return time.Duration(secs) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return min(max(at.Sub(now), 0), maxRetryAfter), true
	}
	return 0, false
}
