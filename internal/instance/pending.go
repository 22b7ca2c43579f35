package instance

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// A create that its timeout (or an interrupt) cut short is not an error: failing it would make
// Terraform taint the resource, and the next apply would then destroy it and order a second
// server. Instead the state keeps the order id, and this private marker records that the create
// is unfinished. ModifyPlan turns the marker into a planned in-place update, and that Update
// resumes waiting for the same order ("adoption").

// privatePendingKey is the private state key of the marker.
const privatePendingKey = "pending_create"

// pendingCreate is the marker's JSON value.
type pendingCreate struct {
	OrderID int64 `json:"order_id"`
}

// privateReader and privateWriter are the parts of the framework's private state data the
// marker needs (the framework's type lives in an internal package).
type privateReader interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateWriter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// getPending returns the marker, or nil when the create finished (or the resource was imported).
func getPending(ctx context.Context, p privateReader) (*pendingCreate, diag.Diagnostics) {
	if p == nil {
		return nil, nil
	}
	raw, diags := p.GetKey(ctx, privatePendingKey)
	if diags.HasError() || len(raw) == 0 {
		return nil, diags
	}
	var pc pendingCreate
	if err := json.Unmarshal(raw, &pc); err != nil || pc.OrderID == 0 {
		diags.AddError("Corrupt private state",
			fmt.Sprintf("The private state of this instance holds an unreadable %q marker (%s). This is a bug "+
				"in the provider; please report it.", privatePendingKey, raw))
		return nil, diags
	}
	return &pc, diags
}

// setPending records that the create of orderID is unfinished.
func setPending(ctx context.Context, p privateWriter, orderID int64) diag.Diagnostics {
	raw, err := json.Marshal(pendingCreate{OrderID: orderID})
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Unable to record the order in the private state", err.Error())
		return diags
	}
	return p.SetKey(ctx, privatePendingKey, raw)
}

// clearPending records that the create finished.
func clearPending(ctx context.Context, p privateWriter) diag.Diagnostics {
	return p.SetKey(ctx, privatePendingKey, nil)
}
