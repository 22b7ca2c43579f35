package service

import (
	"errors"
	"fmt"

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

	// CodeUnsupportedMediaType answers a request body that is not application/json.
	CodeUnsupportedMediaType = "unsupported_media_type"

	// CodeDeployRejected is the spec's answer when the datacenter refuses a build outright; the
	// simulated datacenter never does, so nothing here answers it yet, but clients know it.
	CodeDeployRejected = "deploy_rejected"
)

// Codes is every error code of the API: the spec's and the backend's own (backend/docs/choices.md),
// the one list of them. The OpenAPI document's ErrorCode enum is held equal to it and the
// provider's client codes to a part of it (backend/internal/api: TestErrorCodes_*).
var Codes = []string{
	CodeValidation, CodeUnauthorized, CodeInsufficientBalance, CodeForbidden, CodeNotFound,
	CodeInstanceLocked, CodeIdempotencyInProgress, CodeCostUnconfirmed, CodeIdempotencyKeyReused,
	CodeRateLimited, CodeServerError, CodeProviderError, CodeDeployRejected,
	CodeMethodNotAllowed, CodeServiceUnavailable, CodeUnsupportedMediaType,
	CodeOrderLimitReached, CodeServerLimitReached, CodeDatacenterUnavailable, CodeIPChangeTooSoon, CodeAppConflict,
	CodeSnapshotLimitReached, CodeSnapshotUnavailable, CodeSnapshotLocked, CodeRestoreUnsupported,
}

// Kind is what sort of failure an Error is. The service says what went wrong and the API says
// how that is answered: package api gives each kind its HTTP status, once, so no status is
// decided here and a new code of a known kind needs nothing there.
type Kind uint8

// The kinds of failure. The zero Kind is KindInternal, so an Error built without one is never
// shown as the client's fault.
const (
	KindInternal            Kind = iota // a fault of ours; its detail goes to the log only
	KindInvalid                         // bad input; the message names the field
	KindUnauthorized                    // the API key is missing or wrong
	KindInsufficientBalance             // the wallet cannot cover the price
	KindForbidden                       // the account may not do this
	KindNotFound                        // no such resource, or not the caller's
	KindConflict                        // the resource's state refuses the operation; Code says which rule
	KindKeyReused                       // an Idempotency-Key sent again with another body
	KindProvider                        // the datacenter failed; Reference names the failure for support
	KindUnavailable                     // the service cannot take the work now; retry later

	// Refusals of a request as such, which the API raises itself before a route runs.
	KindTooLarge             // the body is over the API's limit
	KindMethodNotAllowed     // the path exists under other methods
	KindUnsupportedMediaType // a body not declared as JSON
	KindRateLimited          // over a rate limit; the answer says when to retry
)

// Error is a failure the API can show a client: its kind, a stable code and a message safe to
// publish. The cause, when there is one, is only for the log.
type Error struct {
	Kind      Kind
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
	return &Error{Kind: KindInvalid, Code: CodeValidation, Field: field,
		Message: fmt.Sprintf("%s: %s", field, fmt.Sprintf(format, args...))}
}

// NotFound reports a resource that does not exist or is not the caller's.
func NotFound(what string) *Error {
	return &Error{Kind: KindNotFound, Code: CodeNotFound, Message: what + " not found"}
}

// Forbidden reports an account that may not do this (blocked, closed datacenter, identity check).
func Forbidden(message string) *Error {
	return &Error{Kind: KindForbidden, Code: CodeForbidden, Message: message}
}

// Unauthorized reports a missing or wrong API key.
func Unauthorized() *Error {
	return &Error{Kind: KindUnauthorized, Code: CodeUnauthorized, Message: "missing or invalid API key"}
}

// Conflict reports an operation the resource's state refuses, under the code of the rule that refuses it.
func Conflict(code, format string, args ...any) *Error {
	return &Error{Kind: KindConflict, Code: code, Message: fmt.Sprintf(format, args...)}
}

// InsufficientBalance reports a wallet that cannot cover need; available already counts the
// prices of orders still provisioning.
func InsufficientBalance(need, available money.Micros) *Error {
	return &Error{Kind: KindInsufficientBalance, Code: CodeInsufficientBalance,
		Message: fmt.Sprintf("insufficient balance: %s USD needed, %s USD available", need, max(available, 0))}
}

// ProviderFailure reports a failure on the datacenter's side with its support reference.
// An error that is not a *datacenter.Error is a fault of ours and becomes Internal.
func ProviderFailure(err error) *Error {
	var de *datacenter.Error
	if !errors.As(err, &de) {
		return Internal(err)
	}
	return &Error{Kind: KindProvider, Code: CodeProviderError, Reference: de.Reference, cause: err,
		Message: "the datacenter did not answer; retry later and quote the reference if it repeats"}
}

// Unavailable reports work the service cannot take now; the client retries later.
func Unavailable(message string) *Error {
	return &Error{Kind: KindUnavailable, Code: CodeServiceUnavailable, Message: message}
}

// Internal hides err behind a generic message; err goes to the log only.
func Internal(err error) *Error {
	return &Error{Kind: KindInternal, Code: CodeServerError,
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
