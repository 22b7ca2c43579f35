package tfutil

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

func TestWithTimeout(t *testing.T) {
	t.Parallel()
	var diags diag.Diagnostics
	ctx, cancel := WithTimeout(context.Background(), func(_ context.Context, def time.Duration) (time.Duration, diag.Diagnostics) {
		return def, nil
	}, time.Hour, &diags)
	defer cancel()
	deadline, ok := ctx.Deadline()
	if !ok || time.Until(deadline) <= 59*time.Minute || diags.HasError() {
		t.Errorf("readable block: got deadline %v (set %v), diags %v; want about an hour from now", deadline, ok, diags)
	}

	ctx, cancel = WithTimeout(context.Background(), func(context.Context, time.Duration) (time.Duration, diag.Diagnostics) {
		var d diag.Diagnostics
		d.AddError("bad timeout", "not a duration")
		return 0, d
	}, time.Hour, &diags)
	defer cancel()
	if _, ok := ctx.Deadline(); ok || !diags.HasError() {
		t.Errorf("unreadable block: got a deadline %v, diags %v; want none and the error", ok, diags)
	}
}
