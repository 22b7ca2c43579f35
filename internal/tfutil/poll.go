package tfutil

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// Defaults of PollOptions.
const (
	DefaultPollInterval    = 500 * time.Millisecond
	DefaultPollMaxInterval = 5 * time.Second
	// DefaultPollTimeout bounds a wait whose context has no deadline, so no wait is endless even
	// when a caller forgets its timeout.
	DefaultPollTimeout = 30 * time.Minute
)

// PollOptions shapes a Poll.
type PollOptions struct {
	// What names the wait in logs and errors, e.g. "order 12 to be deployed".
	What string
	// Timeout bounds the whole wait. Zero keeps the context's deadline, or DefaultPollTimeout
	// when the context has none.
	Timeout time.Duration
	// Interval is the first pause between checks (default DefaultPollInterval). Each pause is
	// half as long again as the one before, up to MaxInterval (default DefaultPollMaxInterval),
	// so short operations finish quickly and long ones do not flood the API.
	Interval, MaxInterval time.Duration
}

// PollFunc checks once. It returns done when the wait is over, a short status for the progress
// log (e.g. the order status), or an error that ends the wait at once.
type PollFunc func(ctx context.Context) (done bool, status string, err error)

// WaitError is a wait cut short by its timeout or by cancellation (Terraform's interrupt). It
// unwraps to context.DeadlineExceeded or context.Canceled.
type WaitError struct {
	What       string
	Elapsed    time.Duration
	LastStatus string
	Err        error
}

func (e *WaitError) Error() string {
	reason := "timed out"
	if errors.Is(e.Err, context.Canceled) {
		reason = "was interrupted"
	}
	msg := fmt.Sprintf("waiting for %s %s after %s", e.What, reason, e.Elapsed.Round(time.Second))
	if e.LastStatus != "" {
		msg += fmt.Sprintf(" (last status: %s)", e.LastStatus)
	}
	return msg
}

func (e *WaitError) Unwrap() error { return e.Err }

// IsWaitError reports whether err is a wait cut short by its timeout or by cancellation, as
// opposed to a failure of the thing waited for.
func IsWaitError(err error) bool {
	var we *WaitError
	return errors.As(err, &we)
}

// Poll calls check until it reports done or fails, pausing between calls with a growing
// interval. The wait is bounded by opts.Timeout (or the context's deadline) and ends at once
// when ctx is canceled; either end returns a *WaitError. Progress (status changes and elapsed
// time) is logged with tflog, so TF_LOG=INFO shows what a long apply is waiting for. A check
// that fails with rate_limited, or because the API is unavailable (passingFailure), is not an
// error: the wait goes on, within its bound, and each such check is logged with its cause.
func Poll(ctx context.Context, opts PollOptions, check PollFunc) error {
	opts = pollDefaults(opts)
	var cancel context.CancelFunc
	if opts.Timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
	} else if _, ok := ctx.Deadline(); !ok {
		ctx, cancel = context.WithTimeout(ctx, DefaultPollTimeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	ctx = tflog.SetField(ctx, "waiting_for", opts.What)

	start := time.Now()
	interval := opts.Interval
	last := ""
	tflog.Info(ctx, "waiting for "+opts.What)
	for checks := 1; ; checks++ {
		done, status, err := check(ctx)
		elapsed := time.Since(start)
		if err != nil && ctx.Err() == nil {
			if passing, ok := passingFailure(err); ok {
				tflog.Info(ctx, "the Reseller API did not answer "+opts.What+"'s check; trying again within the wait's bound",
					map[string]any{"cause": passing, "error": err.Error(), "elapsed": elapsed.Round(time.Second).String(), "checks": checks})
				done, status, err = false, passing, nil
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return &WaitError{What: opts.What, Elapsed: elapsed, LastStatus: last, Err: ctx.Err()}
			}
			return err
		}
		logProgress(ctx, opts.What, status, last, elapsed, checks)
		if status != "" {
			last = status
		}
		if done {
			tflog.Info(ctx, "finished waiting for "+opts.What, map[string]any{"elapsed": elapsed.Round(time.Millisecond).String(), "checks": checks})
			return nil
		}
		if err := client.Sleep(ctx, interval); err != nil {
			return &WaitError{What: opts.What, Elapsed: time.Since(start), LastStatus: last, Err: err}
		}
		interval = min(interval*3/2, opts.MaxInterval)
	}
}

// passingFailure reports whether a check's error is one a wait rides out, and names it: the
// read limit still hit after the client's own retries (many resources polling at once can do
// that), or the API unreachable or unavailable after them (a resellerd restarting slowly, a
// database failover, a proxy's 502/503/504), which the client only reports for a request it may
// send again (client.IsUnavailable). Neither is the outcome of the thing waited for, so the
// wait goes on, bounded by the operation's own timeout rather than by a count of attempts.
func passingFailure(err error) (string, bool) {
	switch {
	case HasCode(err, client.CodeRateLimited):
		return "rate limited", true
	case client.IsUnavailable(err):
		var u *client.UnavailableError
		if errors.As(err, &u) && u.Reason != "" {
			return "API unavailable: " + u.Reason, true
		}
		return "API unavailable", true
	}
	return "", false
}

func pollDefaults(opts PollOptions) PollOptions {
	if opts.What == "" {
		opts.What = "the operation to finish"
	}
	if opts.Interval <= 0 {
		opts.Interval = DefaultPollInterval
	}
	if opts.MaxInterval <= 0 {
		opts.MaxInterval = DefaultPollMaxInterval
	}
	opts.MaxInterval = max(opts.MaxInterval, opts.Interval)
	return opts
}

// logProgress logs a changed status at INFO and every other check at DEBUG.
func logProgress(ctx context.Context, what, status, last string, elapsed time.Duration, checks int) {
	fields := map[string]any{"status": status, "elapsed": elapsed.Round(time.Second).String(), "checks": checks}
	if status != last {
		tflog.Info(ctx, "waiting for "+what, fields)
		return
	}
	tflog.Debug(ctx, "still waiting for "+what, fields)
}
