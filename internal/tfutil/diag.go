package tfutil

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// APIErrorDetail renders err for a diagnostic detail. For an *client.APIError it lists the
// message followed by the error code, HTTP status, request id and support reference, which is
// what support asks for; any other error is rendered as is.
func APIErrorDetail(err error) string {
	if err == nil {
		return ""
	}
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) {
		return err.Error()
	}
	var b strings.Builder
	if apiErr.Message != "" {
		b.WriteString(apiErr.Message)
	} else {
		b.WriteString("The API returned an error without a message.")
	}
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "Error code: %s\n", valueOr(apiErr.Code, "(none)"))
	if apiErr.Status != 0 {
		fmt.Fprintf(&b, "HTTP status: %d\n", apiErr.Status)
	}
	if apiErr.RequestID != "" {
		fmt.Fprintf(&b, "Request ID: %s\n", apiErr.RequestID)
	}
	if apiErr.Reference != "" {
		fmt.Fprintf(&b, "Support reference: %s\n", apiErr.Reference)
	}
	if hint := codeAdvice(apiErr.Code); hint != "" {
		b.WriteString("\n")
		b.WriteString(hint)
	}
	return strings.TrimRight(b.String(), "\n")
}

// codeAdvice is the one table of advice for the error codes a user can act on, keyed by the
// stable error code, never the message text, which the API may change between releases. Every
// diagnostic that quotes an API error gets its advice from here through APIErrorDetail.
func codeAdvice(code string) string {
	switch code {
	case client.CodeUnauthorized:
		return "Check the provider's api_key (or the RESELLER_API_KEY environment variable)."
	case client.CodeForbidden:
		return "The account is blocked, the datacenter is closed to it, or an identity check (KYC) is required."
	case client.CodeInsufficientBalance:
		return "Top up the wallet; the prices of orders still provisioning count against the balance."
	case client.CodeRateLimited:
		return "The API rate limit was hit even after retries; raise the provider's max_retries or try again later."
	case client.CodeProviderError, client.CodeDeployRejected:
		return "The datacenter reported a problem; quote the support reference if it repeats."
	case client.CodeServerError:
		return "The service failed; quote the request id to support."
	case client.CodeServerLimitReached:
		return "The account has as many active servers (plus orders provisioning) as its server_limit allows " +
			"(see reseller_account); delete a server or ask support to raise the limit."
	case client.CodeOrderLimitReached:
		return "Too many orders of the account are provisioning at once (api_order_limit, see reseller_account); " +
			"apply again when they have finished, or lower terraform's -parallelism."
	case client.CodeDatacenterUnavailable:
		return "The plan's datacenter takes no orders now (its status is not available); choose a plan of another datacenter."
	case client.CodeIPChangeTooSoon:
		return "Free IP changes are limited to one per hour; change ip_change_trigger again later."
	case client.CodeSnapshotLocked:
		return "The snapshot is locked, so it can be neither restored nor built from. With lock_reason \"unpaid\" a " +
			"charge of it could not be paid: top up the wallet by at least the account's debt (the debt attribute of " +
			"the reseller_account data source). A top-up pays the debt first and the snapshot unlocks as soon as " +
			"nothing is owed; then apply again. A snapshot left unpaid for 72 hours expires. A lock for any other " +
			"reason is lifted only by support."
	case client.CodeSnapshotLimitReached:
		return "The server has as many snapshots as its datacenter allows (creating, available and restoring ones " +
			"count; see max_per_instance). Delete one it no longer needs (list them with the reseller_snapshots data " +
			"source and instance_id), then apply again."
	case client.CodeSnapshotUnavailable:
		return "Only an available snapshot can be used: it is still being created, is being restored, or has " +
			"ended. Apply again once it is available."
	case client.CodeRestoreUnsupported:
		return "This datacenter offers no restore in place, only new servers built from the snapshot: use " +
			"reseller_instance with snapshot_id instead (see the snapshot's restore attribute)."
	case client.CodeInstanceLocked:
		return "The instance is locked (debt, traffic cap passed, or deletion in progress); see its lock_reason. " +
			"A debt lock lifts when the wallet is topped up."
	}
	return ""
}

// LockAdvice says what to do about an instance locked for reason (its lock_reason); a reason
// without advice of its own is lifted only by support.
func LockAdvice(reason string) string {
	switch reason {
	case client.LockDebt:
		return "The wallet could not pay for the server. Top up the wallet: the debt is paid first and the " +
			"instance unlocks; then run terraform apply again."
	case client.LockTraffic:
		return "The traffic allowance of the plan is used up. The lock lifts when the next 30-day traffic " +
			"cycle starts."
	case client.LockDeletion:
		return "The instance was canceled and is being deleted; it cannot be changed any more."
	}
	return "Contact support to have the lock lifted, quoting the request ID below."
}

// AddSnapshotRefusal reports err on the snapshot_id attribute when the API refused to use
// snapshot id because it is locked or not available, and returns whether it did. consequence
// says what the refusal left undone ("so it cannot be restored; its server was not changed");
// the advice comes from the code table.
func AddSnapshotRefusal(diags *diag.Diagnostics, id int64, consequence string, err error) bool {
	var summary, state string
	switch {
	case HasCode(err, client.CodeSnapshotLocked):
		summary, state = "Snapshot locked", "locked"
	case HasCode(err, client.CodeSnapshotUnavailable):
		summary, state = "Snapshot not available", "not available"
	default:
		return false
	}
	diags.AddAttributeError(path.Root("snapshot_id"), summary,
		fmt.Sprintf("Snapshot %d is %s, %s.\n\n%s", id, state, consequence, APIErrorDetail(err)))
	return true
}

// AddAPIError appends an error diagnostic built from err with the given summary, for example
// "Unable to read plans".
func AddAPIError(diags *diag.Diagnostics, summary string, err error) {
	diags.AddError(summary, APIErrorDetail(err))
}

// AddAttributeAPIError is AddAPIError attached to the attribute that caused the error.
func AddAttributeAPIError(diags *diag.Diagnostics, p path.Path, summary string, err error) {
	diags.AddAttributeError(p, summary, APIErrorDetail(err))
}

// IsNotFound reports whether err is the API's not_found error (or a bare 404).
func IsNotFound(err error) bool { return client.IsNotFound(err) }

// HasCode reports whether err is an *client.APIError with the given error code.
func HasCode(err error, code string) bool { return client.IsCode(err, code) }

func valueOr(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
