package service

import (
	"errors"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
)

func TestErrors(t *testing.T) {
	t.Parallel()
	cause := errors.New("disk on fire")
	tests := []struct {
		name     string
		err      error
		wantKind Kind
		wantCode string
		wantMsg  string
	}{
		{"validation names the field", Validation("server_id", "must be %s", "an integer"), KindInvalid, CodeValidation, "server_id: must be an integer"},
		{"not found", NotFound("server"), KindNotFound, CodeNotFound, "server not found"},
		{"forbidden", Forbidden("account is blocked"), KindForbidden, CodeForbidden, "account is blocked"},
		{"unauthorized", Unauthorized(), KindUnauthorized, CodeUnauthorized, "missing or invalid API key"},
		{"conflict keeps its rule's code", Conflict(CodeInstanceLocked, "instance %d is locked", 7), KindConflict, CodeInstanceLocked, "instance 7 is locked"},
		{"insufficient balance", InsufficientBalance(2_000, -5), KindInsufficientBalance, CodeInsufficientBalance,
			"insufficient balance: 0.002 USD needed, 0 USD available"},
		{"provider failure", ProviderFailure(&datacenter.Error{Reference: "AB12"}), KindProvider, CodeProviderError,
			"the datacenter did not answer; retry later and quote the reference if it repeats"},
		{"provider failure that is ours", ProviderFailure(cause), KindInternal, CodeServerError, "internal error; quote the request id to support"},
		{"unavailable", Unavailable("busy"), KindUnavailable, CodeServiceUnavailable, "busy"},
		{"internal hides the cause", Internal(cause), KindInternal, CodeServerError, "internal error; quote the request id to support"},
		{"anything else is internal", cause, KindInternal, CodeServerError, "internal error; quote the request id to support"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := AsError(tt.err)
			if e.Kind != tt.wantKind || e.Code != tt.wantCode || e.Message != tt.wantMsg {
				t.Fatalf("got %d %s %q, want %d %s %q", e.Kind, e.Code, e.Message, tt.wantKind, tt.wantCode, tt.wantMsg)
			}
		})
	}
	if !errors.Is(Internal(cause), cause) {
		t.Fatal("Internal does not unwrap to its cause, so the log would lose it")
	}
}

func TestCheckTerm(t *testing.T) {
	t.Parallel()
	for term, ok := range map[string]bool{"hourly": true, "": false, "monthly": false, "HOURLY": false} {
		if err := CheckTerm(term); (err == nil) != ok {
			t.Errorf("CheckTerm(%q) = %v, want ok=%v", term, err, ok)
		}
	}
}
