package tfutil

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

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

// TestCodeAdviceCoversActionableCodes pins the codes the advice table answers: every code a
// user can act on has advice, and the codes that only the provider handles have none.
func TestCodeAdviceCoversActionableCodes(t *testing.T) {
	withAdvice := []string{
		client.CodeUnauthorized, client.CodeForbidden, client.CodeInsufficientBalance, client.CodeRateLimited,
		client.CodeProviderError, client.CodeDeployRejected, client.CodeServerError, client.CodeServerLimitReached,
		client.CodeOrderLimitReached, client.CodeDatacenterUnavailable, client.CodeIPChangeTooSoon,
		client.CodeSnapshotLocked, client.CodeSnapshotLimitReached, client.CodeSnapshotUnavailable,
		client.CodeRestoreUnsupported, client.CodeInstanceLocked,
	}
	for _, code := range withAdvice {
		if codeAdvice(code) == "" {
			t.Errorf("code %s has no advice", code)
		}
	}
	for _, code := range []string{client.CodeValidation, client.CodeNotFound, client.CodeCostUnconfirmed, ""} {
		if got := codeAdvice(code); got != "" {
			t.Errorf("code %q: got advice %q, want none", code, got)
		}
	}
}

func TestLockAdvice(t *testing.T) {
	for reason, want := range map[string]string{
		client.LockDebt:     "Top up the wallet",
		client.LockTraffic:  "30-day traffic cycle",
		client.LockDeletion: "being deleted",
		"mystery":           "Contact support",
	} {
		if got := LockAdvice(reason); !strings.Contains(got, want) {
			t.Errorf("LockAdvice(%q) = %q, want it to contain %q", reason, got, want)
		}
	}
}

func TestAddSnapshotRefusal(t *testing.T) {
	const consequence = "so it cannot be restored; its server was not changed"
	tests := []struct {
		code, summary, detail string
	}{
		{client.CodeSnapshotLocked, "Snapshot locked", "Snapshot 5 is locked, " + consequence},
		{client.CodeSnapshotUnavailable, "Snapshot not available", "Snapshot 5 is not available, " + consequence},
	}
	for _, tc := range tests {
		var diags diag.Diagnostics
		if !AddSnapshotRefusal(&diags, 5, consequence, &client.APIError{Status: 409, Code: tc.code}) {
			t.Fatalf("%s: not reported", tc.code)
		}
		d := diags.Errors()[0]
		if d.Summary() != tc.summary || !strings.Contains(d.Detail(), tc.detail) ||
			!strings.Contains(d.Detail(), codeAdvice(tc.code)) {
			t.Errorf("%s: got %q / %q", tc.code, d.Summary(), d.Detail())
		}
		if wp, ok := d.(diag.DiagnosticWithPath); !ok || !wp.Path().Equal(path.Root("snapshot_id")) {
			t.Errorf("%s: not attached to snapshot_id", tc.code)
		}
	}
	var diags diag.Diagnostics
	if AddSnapshotRefusal(&diags, 5, consequence, &client.APIError{Status: 402, Code: client.CodeInsufficientBalance}) ||
		diags.HasError() {
		t.Errorf("insufficient_balance: reported as a snapshot refusal")
	}
}
