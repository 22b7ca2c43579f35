package store

import (
	"context"
	"time"
)

// AuditEntry is one operator command in the audit trail: who ran it, what it was, what it was
// about and why, and what it changed. Entries are append-only (migration 0015 refuses an update
// or delete); no retention purges them.
type AuditEntry struct {
	ID         int64
	CreatedAt  time.Time
	Operator   string // --operator, RESELLER_OPERATOR or the OS user
	Command    string // "account block", "instance lock", ...
	AccountID  int64  // 0: none
	InstanceID int64  // 0: none
	Reason     string
	Before     string // a JSON object of the fields the command changed, as they were; never a secret
	After      string // the same fields after the command
}

// AuditFilter selects audit entries: of one account (0: every one), written at or after Since
// (zero: from the first), with an id above AfterID (a page's start), at most Limit of them.
type AuditFilter struct {
	AccountID int64
	Since     time.Time
	AfterID   int64
	Limit     int
}

// AccountSettings are an account's settings the operator may change besides its switches.
type AccountSettings struct {
	ServerLimit int
	OrderLimit  int
	Language    string
}

// AuditQueries append to and read the audit trail, and list what the operator looks at.
type AuditQueries interface {
	// AddAuditEntry appends e (its ID is ignored) and returns its id.
	AddAuditEntry(ctx context.Context, e AuditEntry) (int64, error)
	// AuditEntries lists the entries f selects, oldest first.
	AuditEntries(ctx context.Context, f AuditFilter) ([]AuditEntry, error)
	// AccountsAfter lists up to limit accounts with ids above afterID, lowest id first, with
	// the counts kept on their rows: the operator's list, a page at a time.
	AccountsAfter(ctx context.Context, afterID int64, limit int) ([]AccountCounts, error)
	// AccountPendingOrders lists up to limit pending orders of the account, oldest first.
	AccountPendingOrders(ctx context.Context, accountID int64, limit int) ([]Order, error)
	// SetAccountSettings replaces the account's limits and language; ErrNotFound when there is
	// no such account.
	SetAccountSettings(ctx context.Context, id int64, s AccountSettings) error
}
