package operatorview

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

var entries = []resellerd.AuditEntry{
	{ID: 1, At: at, Operator: "ops", Command: "account topup", AccountID: 7,
		Before: `{"balance_micros":1000000}`, After: `{"balance_micros":51500000}`},
	{ID: 22, At: at, Operator: "someone-else", Command: "instance lock", AccountID: 7, InstanceID: 9, Reason: "debt",
		Before: `{"locked":false}`, After: `{"locked":true,"reason":"debt"}`},
	{ID: 333, At: at, Operator: "ops", Command: "secrets rotate", Before: `{}`, After: `{"resealed":4}`},
}

func TestWriteAudit_JSON(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteAudit(&buf, entries, true); err != nil {
		t.Fatal(err)
	}
	var got []json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil || len(got) != 3 {
		t.Fatalf("want an array of three entries, got %s (%v)", buf.String(), err)
	}
	all := []string{"account_id", "after", "before", "command", "id", "instance_id", "operator", "reason", "time"}
	if k := keys(t, got[1]); !slices.Equal(k, all) {
		t.Errorf("fields = %v, want %v", k, all)
	}
	// Without an account or instance the fields are left out, not 0.
	if k := keys(t, got[2]); slices.Contains(k, "account_id") || slices.Contains(k, "instance_id") {
		t.Errorf("an entry without target has fields %v", k)
	}
	// Money is turned to USD under its plain name.
	if !strings.Contains(string(got[0]), `"after": {`) || !strings.Contains(string(got[0]), `"balance": 51.5`) ||
		strings.Contains(string(got[0]), "_micros") {
		t.Errorf("money not in USD: %s", got[0])
	}
}

func TestWriteAudit_tableIsAligned(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteAudit(&buf, entries, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("got %d lines, want a header and three rows:\n%s", len(lines), buf.String())
	}
	columnsAligned(t, buf.String(), 9)
	if got := splitColumns(lines[0]); !slices.Equal(got, []string{"ID", "TIME", "OPERATOR", "COMMAND", "ACCOUNT", "INSTANCE", "REASON", "BEFORE", "AFTER"}) {
		t.Errorf("header = %q", got)
	}
	want := []string{"333", "2026-11-28T04:00:00Z", "ops", "secrets rotate", "-", "-", "-", "{}", `{"resealed":4}`}
	if got := splitColumns(lines[3]); !slices.Equal(got, want) {
		t.Errorf("row = %q, want %q (dashes for no target and no reason, compact JSON)", got, want)
	}
	if !strings.Contains(lines[1], `{"balance":51.5}`) {
		t.Errorf("row %q: want the after state in USD", lines[1])
	}
}

func TestWriteAudit_badStoredStateNamesTheEntryAndPrintsNothing(t *testing.T) {
	bad := append(slices.Clone(entries), resellerd.AuditEntry{ID: 44, Before: `{}`, After: `not json`})
	for _, asJSON := range []bool{true, false} {
		var buf bytes.Buffer
		err := WriteAudit(&buf, bad, asJSON)
		if err == nil || !strings.Contains(err.Error(), "audit entry 44") {
			t.Errorf("json %v: err = %v, want one naming audit entry 44", asJSON, err)
		}
		if buf.Len() != 0 {
			t.Errorf("json %v: printed %q before the error", asJSON, buf.String())
		}
	}
	_, err := NewAuditEntry(resellerd.AuditEntry{ID: 5, Before: `{"balance_micros":"x"}`, After: `{}`})
	if err == nil || !strings.Contains(err.Error(), "balance_micros") {
		t.Errorf("a money field that is no number: err = %v, want one naming it", err)
	}
}
