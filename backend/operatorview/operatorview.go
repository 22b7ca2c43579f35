// Package operatorview renders what resellerd's operator commands print (backend/docs/
// operating-for-customers.md): accounts, an account's pending orders and locked servers, and
// the audit trail, as aligned tables for people or as JSON documents for scripts. The JSON
// field names are a contract (DESIGN.md, "Operating it for customers"). It only renders: the
// commands in cmd/resellerd parse the flags and ask the server. It sits beside backend/resellerd,
// not under backend/internal, because what it renders are the server's operator types.
package operatorview

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// Account is an account as `account list --json` and `account show --json` print it.
type Account struct {
	ID            int64        `json:"id"`
	Balance       money.Micros `json:"balance"`
	Debt          money.Micros `json:"debt"`
	Servers       int          `json:"servers"`
	ServerLimit   int          `json:"server_limit"`
	APIOrderLimit int          `json:"api_order_limit"`
	Blocked       bool         `json:"blocked"`
	Verified      bool         `json:"verified"`
	AppsEnabled   bool         `json:"apps_enabled"`
	Language      string       `json:"language"`
	APIKeyHint    string       `json:"api_key_hint"`
}

// NewAccount is a as the JSON documents show it, money in USD.
func NewAccount(a resellerd.AccountInfo) Account {
	return Account{ID: a.ID, Balance: money.Micros(a.BalanceMicros), Debt: money.Micros(a.DebtMicros),
		Servers: a.Servers, ServerLimit: a.ServerLimit, APIOrderLimit: a.OrderLimit, Blocked: a.Blocked,
		Verified: a.Verified, AppsEnabled: a.AppsEnabled, Language: a.Language, APIKeyHint: a.KeyHint}
}

// AccountDetail is `account show --json`: the account's fields, its pending orders and its
// locked servers (empty arrays, never null, when it has none).
type AccountDetail struct {
	Account
	PendingOrders []PendingOrder `json:"pending_orders"`
	Locks         []Lock         `json:"locks"`
}

// PendingOrder is one of an account's orders still waiting for its server.
type PendingOrder struct {
	ID        int64        `json:"id"`
	CreatedAt time.Time    `json:"created_at"`
	Price     money.Micros `json:"price"`
	Hostname  string       `json:"hostname"`
	Building  bool         `json:"building"`
}

// Lock is one of an account's locked servers.
type Lock struct {
	InstanceID int64     `json:"instance_id"`
	Reason     string    `json:"reason"`
	LockedAt   time.Time `json:"locked_at"`
}

// NewAccountDetail is d as `account show --json` prints it.
func NewAccountDetail(d resellerd.AccountDetails) AccountDetail {
	out := AccountDetail{Account: NewAccount(d.AccountInfo), PendingOrders: []PendingOrder{}, Locks: []Lock{}}
	for _, o := range d.PendingOrders {
		out.PendingOrders = append(out.PendingOrders, PendingOrder{ID: o.ID, CreatedAt: o.CreatedAt,
			Price: money.Micros(o.PriceMicros), Hostname: o.Hostname, Building: o.Building})
	}
	for _, l := range d.Locks {
		out.Locks = append(out.Locks, Lock{InstanceID: l.InstanceID, Reason: l.Reason, LockedAt: l.LockedAt})
	}
	return out
}

// WriteJSON prints v as one indented JSON document.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// newTable is the aligned table every command prints: columns two spaces apart.
func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
}

// accountHeader is the header of the accounts' table.
const accountHeader = "ID\tBALANCE\tDEBT\tSERVERS\tORDER LIMIT\tBLOCKED\tVERIFIED\tAPPS\tLANGUAGE\tKEY"

// WriteAccounts prints accts as `account list` does: one JSON array, or a table of one row
// each.
func WriteAccounts(w io.Writer, accts []resellerd.AccountInfo, asJSON bool) error {
	if asJSON {
		out := make([]Account, len(accts))
		for i, a := range accts {
			out[i] = NewAccount(a)
		}
		return WriteJSON(w, out)
	}
	tw := newTable(w)
	fmt.Fprintln(tw, accountHeader)
	for _, a := range accts {
		writeAccountRow(tw, a)
	}
	return tw.Flush()
}

// writeAccountRow writes one account as a row of the accounts' table.
func writeAccountRow(w io.Writer, a resellerd.AccountInfo) {
	fmt.Fprintf(w, "%d\t%s\t%s\t%d/%d\t%d\t%s\t%s\t%s\t%s\t%s…\n", a.ID, money.Micros(a.BalanceMicros),
		money.Micros(a.DebtMicros), a.Servers, a.ServerLimit, a.OrderLimit, yesNo(a.Blocked), yesNo(a.Verified),
		onOff(a.AppsEnabled), a.Language, a.KeyHint)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// WriteAccountDetail prints d as `account show` does: one JSON document, or the account's row,
// then its pending orders and its locked servers, each a table.
func WriteAccountDetail(w io.Writer, d resellerd.AccountDetails, asJSON bool) error {
	if asJSON {
		return WriteJSON(w, NewAccountDetail(d))
	}
	tw := newTable(w)
	fmt.Fprintln(tw, accountHeader)
	writeAccountRow(tw, d.AccountInfo)
	fmt.Fprintf(tw, "\nPENDING ORDER\tCREATED\tPRICE\tHOSTNAME\tBUILD\n")
	for _, o := range d.PendingOrders {
		build := "waiting"
		if o.Building {
			build = "submitted"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", o.ID, o.CreatedAt.Format(time.RFC3339), money.Micros(o.PriceMicros), o.Hostname, build)
	}
	fmt.Fprintf(tw, "\nLOCKED SERVER\tSINCE\tREASON\n")
	for _, l := range d.Locks {
		fmt.Fprintf(tw, "%d\t%s\t%s\n", l.InstanceID, l.LockedAt.Format(time.RFC3339), l.Reason)
	}
	return tw.Flush()
}

// DescribeChange says what ch did, for the one line `account block|unblock|verify|set` print
// ("blocked", "server_limit 3, apps off").
func DescribeChange(ch resellerd.AccountChange) string {
	var parts []string
	add := func(format string, v any) { parts = append(parts, fmt.Sprintf(format, v)) }
	if ch.Blocked != nil {
		add("%s", map[bool]string{true: "blocked", false: "unblocked"}[*ch.Blocked])
	}
	if ch.Verified != nil && *ch.Verified {
		add("%s", "identity verified")
	}
	if ch.ServerLimit != nil {
		add("server_limit %d", *ch.ServerLimit)
	}
	if ch.OrderLimit != nil {
		add("api_order_limit %d", *ch.OrderLimit)
	}
	if ch.AppsEnabled != nil {
		add("apps %s", onOff(*ch.AppsEnabled))
	}
	if ch.Language != nil {
		add("language %s", *ch.Language)
	}
	return strings.Join(parts, ", ")
}

// LockState says what `instance lock` or `instance unlock` left: "locked (REASON)" or
// "unlocked".
func LockState(locked bool, reason string) string {
	if locked {
		return "locked (" + reason + ")"
	}
	return "unlocked"
}

// Traffic is an instance's traffic as `resellerd instance set --json` prints it: the fields of
// the API's Traffic (GET /instances/{id}/traffic) and the instance's id.
type Traffic struct {
	InstanceID     int64  `json:"instance_id"`
	Enabled        bool   `json:"enabled"`
	Included       int    `json:"included"`
	Used           int    `json:"used"`
	Overage        int    `json:"overage"`
	AllowOverage   bool   `json:"allow_overage"`
	CycleStartDate string `json:"cycle_start_date"`
}

// WriteTraffic prints what `instance set` left: one JSON document, or one line.
func WriteTraffic(w io.Writer, t resellerd.InstanceTraffic, asJSON bool) error {
	if asJSON {
		return WriteJSON(w, Traffic{InstanceID: t.InstanceID, Enabled: t.Enabled, Included: t.IncludedGB, Used: t.UsedGB,
			Overage: t.OverageGB, AllowOverage: t.AllowOverage, CycleStartDate: t.CycleStart.UTC().Format(time.RFC3339)})
	}
	included := "unlimited"
	if t.IncludedGB > 0 {
		included = fmt.Sprintf("%d GB", t.IncludedGB)
	}
	_, err := fmt.Fprintf(w, "instance %d: traffic included %s a cycle, overage %s; %d GB used since %s\n", t.InstanceID,
		included, onOff(t.AllowOverage), t.UsedGB, t.CycleStart.UTC().Format(time.RFC3339))
	return err
}
