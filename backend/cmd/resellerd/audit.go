package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/server"
)

// auditJSON is one entry as `resellerd audit --json` prints it (an array of them, oldest
// first). account_id and instance_id are omitted when the command had none; before and after
// are objects of the fields the command changed, money in USD.
type auditJSON struct {
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

// auditCommand runs `resellerd audit [--account N] [--since 24h] [--json]`.
func auditCommand(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	fs, c := newOperatorCommand("audit")
	id := fs.Int64("account", 0, "only the entries about this account (its servers' locks included)")
	since := fs.Duration("since", 0, "only the entries of this last while (24h, 30m); 0: all")
	asJSON := fs.Bool("json", false, "print one JSON document (an array of entries) instead of a table")
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	if *id < 0 {
		return fmt.Errorf("%w: audit: --account must be a positive id", errUsage)
	}
	if *since < 0 {
		return fmt.Errorf("%w: audit: --since must not be negative", errUsage)
	}
	srv, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer srv.Close()
	f := server.AuditFilter{AccountID: *id}
	if *since > 0 {
		f.Since = time.Now().Add(-*since)
	}
	entries, err := srv.AuditEntries(ctx, f)
	if err != nil {
		return err
	}
	out := make([]auditJSON, len(entries))
	for i, e := range entries {
		if out[i], err = newAuditJSON(e); err != nil {
			return err
		}
	}
	if *asJSON {
		return writeJSON(stdout, out)
	}
	return writeAuditTable(stdout, out)
}

func newAuditJSON(e server.AuditEntry) (auditJSON, error) {
	before, err := auditState(e.Before)
	if err != nil {
		return auditJSON{}, fmt.Errorf("audit entry %d: %w", e.ID, err)
	}
	after, err := auditState(e.After)
	if err != nil {
		return auditJSON{}, fmt.Errorf("audit entry %d: %w", e.ID, err)
	}
	return auditJSON{ID: e.ID, Time: e.At, Operator: e.Operator, Command: e.Command, AccountID: e.AccountID,
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

// writeAuditTable prints the entries as a table, before and after as compact JSON.
func writeAuditTable(w io.Writer, entries []auditJSON) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
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
