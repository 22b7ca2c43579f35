package tfutil

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

func TestPoll(t *testing.T) {
	t.Parallel()
	// fast's waits end by a check, never at the timeout, which only keeps a broken test from hanging.
	fast := PollOptions{What: "thing", Interval: time.Millisecond, MaxInterval: 4 * time.Millisecond, Timeout: time.Minute}
	boom := errors.New("boom")
	tests := []struct {
		name      string
		opts      PollOptions
		doneAfter int   // checks until done; 0 never
		failAt    int   // check that fails; 0 never
		wantErr   error // nil, boom, or a context error inside a WaitError
		wantWait  bool
	}{
		{name: "done at once", opts: fast, doneAfter: 1},
		{name: "done after several checks", opts: fast, doneAfter: 5},
		{name: "check error ends the wait", opts: fast, failAt: 3, wantErr: boom},
		{name: "timeout", opts: PollOptions{What: "thing", Interval: time.Millisecond, Timeout: 30 * time.Millisecond},
			wantErr: context.DeadlineExceeded, wantWait: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checks := 0
			err := Poll(context.Background(), tc.opts, func(context.Context) (bool, string, error) {
				checks++
				if tc.failAt != 0 && checks == tc.failAt {
					return false, "", boom
				}
				return tc.doneAfter != 0 && checks >= tc.doneAfter, "pending", nil
			})
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("got error %v, want %v", err, tc.wantErr)
			}
			if IsWaitError(err) != tc.wantWait {
				t.Errorf("IsWaitError: got %v, want %v", IsWaitError(err), tc.wantWait)
			}
			if tc.doneAfter != 0 && checks != tc.doneAfter {
				t.Errorf("checks: got %d, want %d", checks, tc.doneAfter)
			}
			if tc.wantWait && !strings.Contains(err.Error(), "last status: pending") {
				t.Errorf("error %q: want the last status in it", err)
			}
		})
	}
}

func TestPollCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	start := time.Now()
	err := Poll(ctx, PollOptions{What: "thing", Interval: time.Hour}, func(context.Context) (bool, string, error) {
		cancel()
		return false, "pending", nil
	})
	if !errors.Is(err, context.Canceled) || !IsWaitError(err) {
		t.Fatalf("got %v, want a WaitError wrapping context.Canceled", err)
	}
	if !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("error %q: want it to say the wait was interrupted", err)
	}
	if d := time.Since(start); d > time.Minute { // not the hour's interval
		t.Errorf("cancel took %s, want it at once", d)
	}
}

// TestPollCheckErrorAfterDeadline: a check that fails because the context ended (an HTTP call
// cut off by the timeout) is a WaitError, not the check's own failure.
func TestPollCheckErrorAfterDeadline(t *testing.T) {
	t.Parallel()
	err := Poll(context.Background(), PollOptions{What: "thing", Interval: time.Millisecond, Timeout: 20 * time.Millisecond},
		func(ctx context.Context) (bool, string, error) {
			<-ctx.Done()
			return false, "", ctx.Err()
		})
	if !IsWaitError(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want a WaitError wrapping context.DeadlineExceeded", err)
	}
}

func TestPollDefaultsBoundTheWait(t *testing.T) {
	t.Parallel()
	o := pollDefaults(PollOptions{Interval: time.Minute})
	if o.MaxInterval != time.Minute || o.What == "" {
		t.Errorf("defaults: got %+v, want MaxInterval raised to Interval and a What", o)
	}
	o = pollDefaults(PollOptions{})
	if o.Interval != DefaultPollInterval || o.MaxInterval != DefaultPollMaxInterval {
		t.Errorf("defaults: got %+v, want %s and %s", o, DefaultPollInterval, DefaultPollMaxInterval)
	}
}

func TestPollKeepsWaitingThroughRateLimits(t *testing.T) {
	t.Parallel()
	opts := PollOptions{What: "thing", Interval: time.Millisecond, MaxInterval: time.Millisecond, Timeout: time.Minute}
	limited := fmt.Errorf("reading thing: %w", &client.APIError{Status: 429, Code: client.CodeRateLimited})
	checks := 0
	err := Poll(context.Background(), opts, func(context.Context) (bool, string, error) {
		checks++
		if checks < 3 {
			return false, "", limited
		}
		return true, "done", nil
	})
	if err != nil || checks != 3 {
		t.Fatalf("Poll = %v after %d checks, want nil after 3: a rate-limited check must not end the wait", err, checks)
	}

	other := fmt.Errorf("reading thing: %w", &client.APIError{Status: 404, Code: client.CodeNotFound})
	err = Poll(context.Background(), opts, func(context.Context) (bool, string, error) { return false, "", other })
	if !errors.Is(err, other) {
		t.Fatalf("Poll = %v, want the not_found error to end the wait", err)
	}
}

// TestPollRidesOutAnUnavailableAPI: a wait goes on through an API that is down or answers as
// unavailable for longer than the client's own retries (a resellerd restarting slowly), bounded
// by its timeout, not by a count; a real answer of the API (a datacenter's provider_error) still
// ends it at once.
func TestPollRidesOutAnUnavailableAPI(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) <= 7 {
			http.Error(w, "<h1>502 Bad Gateway</h1>", http.StatusBadGateway) // a proxy in front of a restarting resellerd
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"success":true,"data":{"id":1,"name":"a"}}`))
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{Endpoint: srv.URL + "/api/v1", APIKey: "k", MaxRetries: 1,
		MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	opts := PollOptions{What: "thing", Interval: time.Millisecond, MaxInterval: time.Millisecond, Timeout: time.Minute}
	checks := 0
	err = Poll(context.Background(), opts, func(ctx context.Context) (bool, string, error) {
		checks++
		_, err := c.GetAccount(ctx)
		return err == nil, "read", err
	})
	if err != nil || checks != 4 {
		t.Fatalf("Poll = %v after %d checks, want nil after 4 (three checks of two attempts each met a 502)", err, checks)
	}

	failed := fmt.Errorf("reading thing: %w", &client.APIError{Status: 502, Code: client.CodeProviderError})
	err = Poll(context.Background(), opts, func(context.Context) (bool, string, error) { return false, "", failed })
	if !errors.Is(err, failed) {
		t.Fatalf("Poll = %v, want the provider_error to end the wait", err)
	}

	down := &client.UnavailableError{Method: "GET", Path: "/orders", Attempts: 3, Err: errors.New("connection refused")}
	short := PollOptions{What: "thing", Interval: time.Millisecond, MaxInterval: time.Millisecond, Timeout: 50 * time.Millisecond}
	err = Poll(context.Background(), short, func(context.Context) (bool, string, error) { return false, "", down })
	if !IsWaitError(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Poll = %v, want the wait's own timeout to end a wait on an API that stays down", err)
	}
}
