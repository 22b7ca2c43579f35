package tfutil

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

func TestAPIErrorDetail(t *testing.T) {
	apiErr := &client.APIError{Status: 402, Code: "insufficient_balance", Message: "balance too low",
		RequestID: "req-42", Reference: "REF9"}
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"api error", apiErr, []string{"balance too low", "Error code: insufficient_balance", "HTTP status: 402",
			"Request ID: req-42", "Support reference: REF9", "Top up the wallet"}},
		{"snapshot locked", &client.APIError{Status: 409, Code: "snapshot_locked", Message: "locked"},
			[]string{"Error code: snapshot_locked", "top up the wallet", "reseller_account", "unlocks as soon as nothing is owed", "72 hours"}},
		{"restore unsupported", &client.APIError{Status: 409, Code: "restore_unsupported", Message: "no"},
			[]string{"Error code: restore_unsupported", "reseller_instance with snapshot_id"}},
		{"snapshot limit", &client.APIError{Status: 409, Code: "snapshot_limit_reached", Message: "cap"},
			[]string{"max_per_instance", "reseller_snapshots"}},
		{"wrapped api error", fmt.Errorf("reading: %w", apiErr), []string{"Error code: insufficient_balance"}},
		{"other error", errors.New("dial tcp: connection refused"), []string{"dial tcp: connection refused"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := APIErrorDetail(tc.err)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("got %q, want it to contain %q", got, w)
				}
			}
		})
	}
}

func TestHasCodeIgnoresMessage(t *testing.T) {
	err := &client.APIError{Status: 400, Code: "validation_error", Message: "not_found"}
	if IsNotFound(err) {
		t.Errorf("IsNotFound on code validation_error with message not_found: got true, want false")
	}
	if !HasCode(err, "validation_error") {
		t.Errorf("HasCode(validation_error): got false, want true")
	}
}
