package service

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

// Stable error codes of the API (spec: Errors). Clients decide by these, so they never change.
const (
	CodeValidation          = "validation_error"
	CodeUnauthorized        = "unauthorized"
	CodeInsufficientBalance = "insufficient_balance"
	CodeForbidden           = "forbidden"
	CodeNotFound            = "not_found"
	CodeMethodNotAllowed    = "method_not_allowed"
	CodeRateLimited         = "rate_limited"
	CodeServerError         = "server_error"
	CodeServiceUnavailable  = "service_unavailable"

	CodeInstanceLocked        = "instance_locked"
	CodeIdempotencyInProgress = "idempotency_in_progress"
	CodeIdempotencyKeyReused  = "idempotency_key_reused"
	CodeCostUnconfirmed       = "cost_unconfirmed"
	CodeProviderError         = "provider_error"
	CodeOrderLimitReached     = "order_limit_reached"
	CodeServerLimitReached    = "server_limit_reached"
	CodeDatacenterUnavailable = "datacenter_unavailable"
	CodeIPChangeTooSoon       = "ip_change_too_soon"
	CodeAppConflict           = "app_conflict"

	CodeSnapshotLimitReached = "snapshot_limit_reached"
	CodeSnapshotUnavailable  = "snapshot_unavailable"
	CodeSnapshotLocked       = "snapshot_locked"
	CodeRestoreUnsupported   = "restore_unsupported"

	// CodeUnsupportedMediaType (415) answers a request body that is not application/json.
	CodeUnsupportedMediaType = "unsupported_media_type"
)

// Error is a failure the API can show a client: an HTTP status, a stable code and a message safe
// to publish. The cause, when there is one, is only for the log.
type Error struct {
	Status    int
	Code      string
	Message   string
	Field     string // the offending input of a validation_error
	Reference string // support reference of datacenter-side errors
	cause     error
}

func (e *Error) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.cause)
	}
	return e.Code + ": " + e.Message
}

// Unwrap exposes the internal cause to errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.cause }

// Validation reports bad input; the message names the field, as the spec requires.
func Validation(field, format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeValidation, Field: field,
		Message: fmt.Sprintf("%s: %s", field, fmt.Sprintf(format, args...))}
}

// NotFound reports a resource that does not exist or is not the caller's.
func NotFound(what string) *Error {
	return &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: what + " not found"}
}

// Forbidden reports an account that may not do this (blocked, closed datacenter, identity check).
func Forbidden(message string) *Error {
	return &Error{Status: http.StatusForbidden, Code: CodeForbidden, Message: message}
}

// Unauthorized reports a missing or wrong API key.
func Unauthorized() *Error {
	return &Error{Status: http.StatusUnauthorized, Code: CodeUnauthorized, Message: "missing or invalid API key"}
}

// Conflict reports an operation the resource's state refuses (409) under a specific code.
func Conflict(code, format string, args ...any) *Error {
	return &Error{Status: http.StatusConflict, Code: code, Message: fmt.Sprintf(format, args...)}
}

// InsufficientBalance reports a wallet that cannot cover need; available already counts the
// prices of orders still provisioning.
func InsufficientBalance(need, available money.Micros) *Error {
	return &Error{Status: http.StatusPaymentRequired, Code: CodeInsufficientBalance,
		Message: fmt.Sprintf("insufficient balance: %s USD needed, %s USD available", need, max(available, 0))}
}

// ProviderFailure reports a failure on the datacenter's side (502) with its support reference.
// An error that is not a *datacenter.Error is a fault of ours and becomes Internal.
func ProviderFailure(err error) *Error {
	var de *datacenter.Error
	if !errors.As(err, &de) {
		return Internal(err)
	}
	return &Error{Status: http.StatusBadGateway, Code: CodeProviderError, Reference: de.Reference, cause: err,
		Message: "the datacenter did not answer; retry later and quote the reference if it repeats"}
}

// Unavailable reports work the service cannot take now (503); the client retries later.
func Unavailable(message string) *Error {
	return &Error{Status: http.StatusServiceUnavailable, Code: CodeServiceUnavailable, Message: message}
}

// Internal hides err behind a generic 500; err goes to the log only.
func Internal(err error) *Error {
	return &Error{Status: http.StatusInternalServerError, Code: CodeServerError,
		Message: "internal error; quote the request id to support", cause: err}
}

// AsError returns err as an *Error, turning anything unexpected into Internal.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal(err)
}
