package service

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Audit names an operator command for the audit trail: who runs it, which command, and why.
// The operator's methods (…By) append one entry in the transaction of the change they make, so
// a change and its entry land together or not at all, and a refused command leaves neither.
// The zero Audit writes no entry: the seeds, `resellerd dev`'s hooks and tests act as the
// system, not as an operator.
type Audit struct {
	Operator string // --operator, RESELLER_OPERATOR, else the OS user
	Command  string // "account block", "instance lock", ...
	Reason   string
}

// enabled reports whether a entry is to be written.
func (a Audit) enabled() bool { return a.Command != "" }

// state is the part of an account or instance an entry shows, before or after the command:
// field names as `resellerd account list --json` has them, money in micro-USD under names
// ending in _micros (the CLI converts them to USD). It never holds a secret.
type state map[string]any

// auditTarget is what an entry is about.
type auditTarget struct {
	accountID, instanceID int64
}

// audit appends the entry of who's command on target to the trail in tx; nothing for the zero
// Audit.
func (s *Service) audit(ctx context.Context, tx store.Tx, who Audit, target auditTarget, before, after state) error {
	if !who.enabled() {
		return nil
	}
	b, err := stateJSON(before)
	if err != nil {
		return err
	}
	a, err := stateJSON(after)
	if err != nil {
		return err
	}
	_, err = tx.AddAuditEntry(ctx, store.AuditEntry{CreatedAt: s.now(), Operator: who.Operator, Command: who.Command,
		AccountID: target.accountID, InstanceID: target.instanceID, Reason: who.Reason, Before: b, After: a})
	return err
}

// stateJSON is st as a JSON object ({} for none).
func stateJSON(st state) (string, error) {
	if st == nil {
		return "{}", nil
	}
	b, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("service: audit state: %w", err)
	}
	return string(b), nil
}

// AuditEntries lists the entries f selects, oldest first (a page: f.Limit of them after
// f.AfterID).
func (s *Service) AuditEntries(ctx context.Context, f store.AuditFilter) ([]store.AuditEntry, error) {
	entries, err := s.store.AuditEntries(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("service: audit entries: %w", err)
	}
	return entries, nil
}
