package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
)

// TestErrorStatuses holds every kind of service error to the status the spec gives its codes
// (spec: Errors), as fail answers it: the status, the envelope's code and reference, and a log
// line for the 5xx only.
func TestErrorStatuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err        error
		wantStatus int
		wantCode   string
	}{
		{service.Validation("server_id", "must be an integer"), http.StatusBadRequest, service.CodeValidation},
		{service.Unauthorized(), http.StatusUnauthorized, service.CodeUnauthorized},
		{service.InsufficientBalance(2_000, 1_000), http.StatusPaymentRequired, service.CodeInsufficientBalance},
		{service.Forbidden("account is blocked"), http.StatusForbidden, service.CodeForbidden},
		{service.NotFound("server"), http.StatusNotFound, service.CodeNotFound},
		{&service.Error{Kind: service.KindMethodNotAllowed, Code: service.CodeMethodNotAllowed}, http.StatusMethodNotAllowed, service.CodeMethodNotAllowed},
		{service.Conflict(service.CodeInstanceLocked, "locked"), http.StatusConflict, service.CodeInstanceLocked},
		{service.Conflict(service.CodeSnapshotLimitReached, "full"), http.StatusConflict, service.CodeSnapshotLimitReached},
		{bodyTooLarge(maxBodyBytes), http.StatusRequestEntityTooLarge, service.CodeValidation},
		{&service.Error{Kind: service.KindUnsupportedMediaType, Code: service.CodeUnsupportedMediaType}, http.StatusUnsupportedMediaType, service.CodeUnsupportedMediaType},
		{&service.Error{Kind: service.KindKeyReused, Code: service.CodeIdempotencyKeyReused}, http.StatusUnprocessableEntity, service.CodeIdempotencyKeyReused},
		{&service.Error{Kind: service.KindRateLimited, Code: service.CodeRateLimited}, http.StatusTooManyRequests, service.CodeRateLimited},
		{service.Internal(errors.New("disk on fire")), http.StatusInternalServerError, service.CodeServerError},
		{errors.New("anything unexpected"), http.StatusInternalServerError, service.CodeServerError},
		{service.ProviderFailure(&datacenter.Error{Op: "deploy", Reference: "AB12"}), http.StatusBadGateway, service.CodeProviderError},
		{service.Unavailable("busy"), http.StatusServiceUnavailable, service.CodeServiceUnavailable},
	}
	kinds := map[service.Kind]bool{}
	for _, tt := range tests {
		var logs bytes.Buffer
		h := &handler{log: slog.New(slog.NewTextHandler(&logs, nil))}
		rec := httptest.NewRecorder()
		h.fail(rec, httptest.NewRequest(http.MethodGet, "/api/v1/x", nil), tt.err)
		var body errorBody
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("%v: body %q: %v", tt.err, rec.Body, err)
		}
		if rec.Code != tt.wantStatus || body.Error.Code != tt.wantCode || body.Success {
			t.Errorf("%v: answered %d %+v, want %d %s", tt.err, rec.Code, body, tt.wantStatus, tt.wantCode)
		}
		if logged := logs.Len() > 0; logged != (tt.wantStatus >= 500) {
			t.Errorf("%v: logged %v for a %d", tt.err, logged, tt.wantStatus)
		}
		kinds[service.AsError(tt.err).Kind] = true
	}
	if len(kinds) != len(statusOf) {
		t.Fatalf("the cases cover %d kinds, statusOf maps %d: a kind is untested", len(kinds), len(statusOf))
	}
	var ref errorBody
	rec := httptest.NewRecorder()
	(&handler{log: slog.New(slog.DiscardHandler)}).fail(rec, httptest.NewRequest(http.MethodGet, "/api/v1/x", nil),
		service.ProviderFailure(&datacenter.Error{Op: "deploy", Reference: "AB12"}))
	if err := json.Unmarshal(rec.Body.Bytes(), &ref); err != nil || ref.Error.Reference != "AB12" {
		t.Fatalf("provider_error body %s lacks its reference", rec.Body)
	}
}
