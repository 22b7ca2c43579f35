package tfutil

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// TimeoutReader is how a timeouts block gives the timeout of one operation, e.g. the method
// value model.Timeouts.Create: the configured duration, or def when none is configured.
type TimeoutReader func(ctx context.Context, def time.Duration) (time.Duration, diag.Diagnostics)

// WithTimeout bounds ctx by the timeout of the running operation (read from its timeouts block,
// def when unset), so every wait of the operation ends by then. A block that cannot be read adds
// its diagnostics to diags and leaves ctx unbounded; the caller returns on diags.HasError().
// cancel is never nil.
func WithTimeout(ctx context.Context, read TimeoutReader, def time.Duration, diags *diag.Diagnostics) (context.Context, context.CancelFunc) {
	timeout, d := read(ctx, def)
	diags.Append(d...)
	if d.HasError() {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, timeout)
}
