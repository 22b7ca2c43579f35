package snapshot

import (
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// snapshotAdvice says what to do about the error codes of the snapshot endpoints a user can act
// on. It is matched on the stable error code, never on the message text.
var snapshotAdvice = map[string]string{
	client.CodeSnapshotLimitReached: "The server has as many snapshots as its datacenter allows (creating, available " +
		"and restoring ones count; see max_per_instance). Delete one it no longer needs (list them with the " +
		"reseller_snapshots data source and instance_id), then apply again.",
	client.CodeSnapshotUnavailable: "Only an available snapshot can be used: it is still being created, is being " +
		"restored, or has ended. Apply again once it is available.",
	client.CodeSnapshotLocked: "A charge of the snapshot is unpaid, so it cannot be used. Top up the wallet: the debt " +
		"is paid first and the snapshot unlocks.",
	client.CodeRestoreUnsupported: "This datacenter offers no restore in place, only new servers built from the " +
		"snapshot: use reseller_instance with snapshot_id instead (see the snapshot's restore attribute).",
	client.CodeInstanceLocked: "The server is locked (debt, traffic cap passed, or canceled); see its lock_reason. A " +
		"debt lock lifts when the wallet is topped up.",
}

// apiErrorDetail is tfutil.APIErrorDetail followed by the advice for a snapshot error code.
func apiErrorDetail(err error) string {
	detail := tfutil.APIErrorDetail(err)
	if apiErr, ok := client.AsAPIError(err); ok {
		if advice, ok := snapshotAdvice[apiErr.Code]; ok {
			detail += "\n\n" + advice
		}
	}
	return detail
}

// addError reports a failed snapshot operation with the advice its error code calls for.
func addError(diags *diag.Diagnostics, summary string, err error) {
	diags.AddError(summary, apiErrorDetail(err))
}

// isGone reports whether err says the snapshot no longer exists for the account.
func isGone(err error) bool {
	var ended *endedError
	return tfutil.IsNotFound(err) || errors.As(err, &ended)
}
