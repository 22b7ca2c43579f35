package acctest

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// Objects returns a check that hands a list (or set) of objects from state to fn, for
// assertions the built-in checks cannot express, such as "no item has require_kyc".
func Objects(desc string, fn func(items []map[string]any) error) knownvalue.Check {
	return objectsCheck{desc: desc, fn: fn}
}

type objectsCheck struct {
	desc string
	fn   func(items []map[string]any) error
}

func (c objectsCheck) CheckValue(v any) error {
	raw, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%s: got %T, want a list of objects", c.desc, v)
	}
	items := make([]map[string]any, 0, len(raw))
	for i, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: item %d: got %T, want an object", c.desc, i, r)
		}
		items = append(items, m)
	}
	return c.fn(items)
}

func (c objectsCheck) String() string { return c.desc }

// Int64Of reads an integer attribute of a state object.
func Int64Of(item map[string]any, key string) (int64, error) {
	n, ok := item[key].(json.Number)
	if !ok {
		return 0, fmt.Errorf("attribute %q: got %T (%v), want a number", key, item[key], item[key])
	}
	return strconv.ParseInt(string(n), 10, 64)
}

// Float64Of reads a number attribute of a state object.
func Float64Of(item map[string]any, key string) (float64, error) {
	n, ok := item[key].(json.Number)
	if !ok {
		return 0, fmt.Errorf("attribute %q: got %T (%v), want a number", key, item[key], item[key])
	}
	return n.Float64()
}

// ErrorRegexp compiles an ExpectError pattern that survives Terraform's line wrapping of
// diagnostics: every space in pattern matches any run of whitespace, and "." matches newlines.
func ErrorRegexp(pattern string) *regexp.Regexp {
	return regexp.MustCompile(`(?s)` + strings.ReplaceAll(pattern, " ", `\s+`))
}

// CheckNoActiveInstances is a CheckDestroy that asks the backend, not the state: it fails while
// the account still has an active instance.
func (b *Backend) CheckNoActiveInstances(t *testing.T) func(*terraform.State) error {
	t.Helper()
	c := b.Client(t, "en")
	return func(*terraform.State) error {
		list, err := c.ListInstances(context.Background(), true)
		if err != nil {
			return fmt.Errorf("listing the backend's instances: %w", err)
		}
		if len(list) != 0 {
			ids := make([]int64, 0, len(list))
			for _, in := range list {
				ids = append(ids, in.ID)
			}
			return fmt.Errorf("active instances after destroy: got %v, want none", ids)
		}
		return nil
	}
}

// Orders returns the account's orders of the last 24 hours, newest first, failing t on error.
func (b *Backend) Orders(t *testing.T) []client.Order {
	t.Helper()
	orders, err := b.Client(t, "en").ListOrders(context.Background())
	if err != nil {
		t.Fatalf("listing the backend's orders: %v", err)
	}
	return orders
}

// CheckNoSnapshots is a CheckDestroy that asks the backend: it fails while the account still has
// a snapshot that is creating, available or restoring.
func (b *Backend) CheckNoSnapshots(t *testing.T) func(*terraform.State) error {
	t.Helper()
	c := b.Client(t, "en")
	return func(*terraform.State) error {
		list, err := c.ListSnapshots(context.Background(), false)
		if err != nil {
			return fmt.Errorf("listing the backend's snapshots: %w", err)
		}
		if len(list) != 0 {
			ids := make([]string, 0, len(list))
			for _, s := range list {
				ids = append(ids, fmt.Sprintf("%d (%s)", s.ID, s.Status))
			}
			return fmt.Errorf("active snapshots after destroy: got %s, want none", strings.Join(ids, ", "))
		}
		return nil
	}
}

// CheckNoWebhook is a CheckDestroy that asks the backend: it fails while the account has a
// webhook registered.
func (b *Backend) CheckNoWebhook(t *testing.T) func(*terraform.State) error {
	t.Helper()
	c := b.Client(t, "en")
	return func(*terraform.State) error {
		w, err := c.GetWebhook(context.Background())
		if err != nil {
			return fmt.Errorf("reading the backend's webhook: %w", err)
		}
		if w.Configured {
			return fmt.Errorf("webhook after destroy: got configured (url %v), want none", w.URL)
		}
		return nil
	}
}

// AllOf combines CheckDestroy functions: every one must pass.
func AllOf(checks ...func(*terraform.State) error) func(*terraform.State) error {
	return func(s *terraform.State) error {
		for _, check := range checks {
			if err := check(s); err != nil {
				return err
			}
		}
		return nil
	}
}

// LockSnapshotUnpaid locks a snapshot of the backend as a charge the wallet could not cover
// would (lock_reason "unpaid"), without running billing into debt, which a test on the real
// clock cannot do. It fails t on error; call it from a PreConfig or a Check.
func (b *Backend) LockSnapshotUnpaid(t *testing.T, id int64) {
	t.Helper()
	if err := b.Server.LockSnapshot(context.Background(), id, "unpaid"); err != nil {
		t.Fatalf("locking snapshot %d: %v", id, err)
	}
}

// UnlockSnapshot lifts the lock of a snapshot of the backend, failing t on error.
func (b *Backend) UnlockSnapshot(t *testing.T, id int64) {
	t.Helper()
	if err := b.Server.UnlockSnapshot(context.Background(), id); err != nil {
		t.Fatalf("unlocking snapshot %d: %v", id, err)
	}
}

// CheckActiveInstances asks the backend, not the state: it fails unless the account's active
// instances are exactly ids, in any order. Mid-test, call it with a nil state to show that a
// failed apply left no server behind.
func (b *Backend) CheckActiveInstances(t *testing.T, ids ...int64) func(*terraform.State) error {
	t.Helper()
	c := b.Client(t, "en")
	return func(*terraform.State) error {
		list, err := c.ListInstances(context.Background(), true)
		if err != nil {
			return fmt.Errorf("listing the backend's instances: %w", err)
		}
		got := make([]int64, 0, len(list))
		for _, in := range list {
			got = append(got, in.ID)
		}
		want := slices.Clone(ids)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			return fmt.Errorf("active instances: got %v, want %v", got, want)
		}
		return nil
	}
}
