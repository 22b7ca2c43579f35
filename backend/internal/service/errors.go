package service

import (
	"errors"
	"fmt"
	"net/http"
)

// Stable error codes of the API (spec: Errors). Clients decide by these, so they never change.
const (
	CodeValidation         = "validation_error"
	CodeUnauthorized       = "unauthorized"
	CodeInsufficientFunds  = "insufficient_balance"
	CodeForbidden          = "forbidden"
	CodeNotFound           = "not_found"
	CodeMethodNotAllowed   = "method_not_allowed"
	CodeRateLimited        = "rate_limited"
	CodeServerError        = "server_error"
	CodeServiceUnavailable = "service_unavailable"
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
