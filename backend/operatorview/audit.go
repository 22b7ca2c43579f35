package operatorview

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// AuditEntry is one entry as `resellerd audit --json` prints it (an array of them, oldest
// first). account_id and instance_id are omitted when the command had none; before and after
// are objects of the fields the command changed, money in USD.
type AuditEntry struct {
	ID         int64          `json:"id"`
	Time       time.Time      `json:"time"`
	Operator   string         `json:"operator"`
	Command    string         `json:"command"`
	AccountID  int64          `json:"account_id,omitempty"`
	InstanceID int64          `json:"instance_id,omitempty"`
	Reason     string         `json:"reason"`
	Before     map[string]any `json:"before"`
	After      map[string]any `json:"after"`
}

// NewAuditEntry is e as `resellerd audit` shows it; a stored state that is not a JSON object is
// an error naming the entry.
func NewAuditEntry(e resellerd.AuditEntry) (AuditEntry, error) {
	before, err := auditState(e.Before)
	if err != nil {
		return AuditEntry{}, fmt.Errorf("audit entry %d: %w", e.ID, err)
	}
	after, err := auditState(e.After)
	if err != nil {
		return AuditEntry{}, fmt.Errorf("audit entry %d: %w", e.ID, err)
	}
	return AuditEntry{ID: e.ID, Time: e.At, Operator: e.Operator, Command: e.Command, AccountID: e.AccountID,
		InstanceID: e.InstanceID, Reason: e.Reason, Before: before, After: after}, nil
}

// auditState decodes a stored before or after object, turning each micro-USD field
// ("balance_micros") into USD under its plain name ("balance"): money is converted here, at
// the edge, as the API converts it.
func auditState(stored string) (map[string]any, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stored), &raw); err != nil {
		return nil, fmt.Errorf("stored state: %w", err)
	}
	out := make(map[string]any, len(raw))
	for k, v := range raw {
		name, isMoney := strings.CutSuffix(k, "_micros")
		if !isMoney {
			out[k] = v
			continue
		}
		var m int64
		if err := json.Unmarshal(v, &m); err != nil {
			return nil, fmt.Errorf("stored %s: %w", k, err)
		}
		out[name] = money.Micros(m)
	}
	return out, nil
}

// WriteAudit prints entries as `resellerd audit` does: one JSON array, or a table whose before
// and after columns are compact JSON. Nothing is printed when an entry cannot be read.
func WriteAudit(w io.Writer, entries []resellerd.AuditEntry, asJSON bool) error {
	out := make([]AuditEntry, len(entries))
	for i, e := range entries {
		var err error
		if out[i], err = NewAuditEntry(e); err != nil {
			return err
		}
	}
	if asJSON {
		return WriteJSON(w, out)
	}
	return writeAuditTable(w, out)
}

// writeAuditTable prints the entries as a table, before and after as compact JSON.
func writeAuditTable(w io.Writer, entries []AuditEntry) error {
	tw := newTable(w)
	fmt.Fprintln(tw, "ID\tTIME\tOPERATOR\tCOMMAND\tACCOUNT\tINSTANCE\tREASON\tBEFORE\tAFTER")
	for _, e := range entries {
		before, err := json.Marshal(e.Before)
		if err != nil {
			return err
		}
		after, err := json.Marshal(e.After)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, e.Time.Format(time.RFC3339), e.Operator, e.Command,
			idOrDash(e.AccountID), idOrDash(e.InstanceID), dashIfEmpty(e.Reason), before, after)
	}
	return tw.Flush()
}

func idOrDash(id int64) string {
	if id == 0 {
		return "-"
	}
	return fmt.Sprint(id)
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
