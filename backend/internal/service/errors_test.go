package service

import (
	"errors"
	"net/http"
	"testing"
)

func TestErrors(t *testing.T) {
	t.Parallel()
	cause := errors.New("disk on fire")
	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantCode   string
		wantMsg    string
	}{
		{"validation names the field", Validation("server_id", "must be %s", "an integer"), http.StatusBadRequest, CodeValidation, "server_id: must be an integer"},
		{"not found", NotFound("server"), http.StatusNotFound, CodeNotFound, "server not found"},
		{"forbidden", Forbidden("account is blocked"), http.StatusForbidden, CodeForbidden, "account is blocked"},
		{"unauthorized", Unauthorized(), http.StatusUnauthorized, CodeUnauthorized, "missing or invalid API key"},
		{"internal hides the cause", Internal(cause), http.StatusInternalServerError, CodeServerError, "internal error; quote the request id to support"},
		{"anything else is internal", cause, http.StatusInternalServerError, CodeServerError, "internal error; quote the request id to support"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := AsError(tt.err)
			if e.Status != tt.wantStatus || e.Code != tt.wantCode || e.Message != tt.wantMsg {
				t.Fatalf("got %d %s %q, want %d %s %q", e.Status, e.Code, e.Message, tt.wantStatus, tt.wantCode, tt.wantMsg)
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
