package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/server"
)

// Operating resellerd for customers (backend/docs/operating-for-customers.md): `resellerd
// account list|show|block|unblock|verify|set` and `resellerd instance lock|unlock`. Each runs
// beside a running serve on the same database; every replica sees a change at its next request.

// accountJSON is an account as `account list --json` and `account show --json` print it: the
// field names are a contract (DESIGN.md, "Operating it for customers").
type accountJSON struct {
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

func newAccountJSON(a server.AccountInfo) accountJSON {
	return accountJSON{ID: a.ID, Balance: money.Micros(a.BalanceMicros), Debt: money.Micros(a.DebtMicros),
		Servers: a.Servers, ServerLimit: a.ServerLimit, APIOrderLimit: a.OrderLimit, Blocked: a.Blocked,
		Verified: a.Verified, AppsEnabled: a.AppsEnabled, Language: a.Language, APIKeyHint: a.KeyHint}
}

// accountDetailJSON is `account show --json`: the account's fields, its pending orders and its
// locked servers.
type accountDetailJSON struct {
	accountJSON
	PendingOrders []pendingOrderJSON `json:"pending_orders"`
	Locks         []lockJSON         `json:"locks"`
}

type pendingOrderJSON struct {
	ID        int64        `json:"id"`
	CreatedAt time.Time    `json:"created_at"`
	Price     money.Micros `json:"price"`
	Hostname  string       `json:"hostname"`
	Building  bool         `json:"building"`
}

type lockJSON struct {
	InstanceID int64     `json:"instance_id"`
	Reason     string    `json:"reason"`
	LockedAt   time.Time `json:"locked_at"`
}

// writeJSON prints v as one indented JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// accountList runs `resellerd account list [--json]`.
func accountList(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	fs, c := newOperatorCommand("account list")
	asJSON := fs.Bool("json", false, "print one JSON document (an array of accounts) instead of a table")
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	srv, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer srv.Close()
	accts, err := srv.Accounts(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]accountJSON, len(accts))
		for i, a := range accts {
			out[i] = newAccountJSON(a)
		}
		return writeJSON(stdout, out)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tBALANCE\tDEBT\tSERVERS\tORDER LIMIT\tBLOCKED\tVERIFIED\tAPPS\tLANGUAGE\tKEY")
	for _, a := range accts {
		writeAccountRow(tw, a)
	}
	return tw.Flush()
}

// writeAccountRow writes one account as a row of account list's table.
func writeAccountRow(w io.Writer, a server.AccountInfo) {
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

// accountShow runs `resellerd account show --account N [--json]`.
func accountShow(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	fs, c := newOperatorCommand("account show")
	c.touchesSecrets = true
	id := fs.Int64("account", 0, "account id")
	asJSON := fs.Bool("json", false, "print one JSON document instead of tables")
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	if err := requireID(c.name, "--account", *id); err != nil {
		return err
	}
	srv, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer srv.Close()
	d, err := srv.Account(ctx, *id)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, newAccountDetailJSON(d))
	}
	return writeAccountDetail(stdout, d)
}

func newAccountDetailJSON(d server.AccountDetails) accountDetailJSON {
	out := accountDetailJSON{accountJSON: newAccountJSON(d.AccountInfo), PendingOrders: []pendingOrderJSON{}, Locks: []lockJSON{}}
	for _, o := range d.PendingOrders {
		out.PendingOrders = append(out.PendingOrders, pendingOrderJSON{ID: o.ID, CreatedAt: o.CreatedAt,
			Price: money.Micros(o.PriceMicros), Hostname: o.Hostname, Building: o.Building})
	}
	for _, l := range d.Locks {
		out.Locks = append(out.Locks, lockJSON{InstanceID: l.InstanceID, Reason: l.Reason, LockedAt: l.LockedAt})
	}
	return out
}

// writeAccountDetail prints the account's row, then its pending orders and locked servers.
func writeAccountDetail(w io.Writer, d server.AccountDetails) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tBALANCE\tDEBT\tSERVERS\tORDER LIMIT\tBLOCKED\tVERIFIED\tAPPS\tLANGUAGE\tKEY")
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

// requireID refuses a missing or non-positive id flag (exit 2, naming it).
func requireID(command, flagName string, id int64) error {
	if id <= 0 {
		return fmt.Errorf("%w: %s: %s is required (a positive id)", errUsage, command, flagName)
	}
	return nil
}

// accountChange runs `resellerd account block|unblock|verify`: one switch of the account,
// turned as fixed by the command. block requires --reason; the others take one.
func accountChange(ctx context.Context, command string, args []string, stdout io.Writer, env lookupEnv) error {
	fs, c := newOperatorCommand("account " + command)
	id := fs.Int64("account", 0, "account id")
	reason := fs.String("reason", "", "why, for the audit trail (required by block)")
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	if err := requireID(c.name, "--account", *id); err != nil {
		return err
	}
	var ch server.AccountChange
	yes, no := true, false
	switch command {
	case "block":
		if *reason == "" {
			return fmt.Errorf("%w: %s: --reason is required (debt, abuse, ...: the audit trail keeps it)", errUsage, c.name)
		}
		ch.Blocked = &yes
	case "unblock":
		ch.Blocked = &no
	case "verify":
		ch.Verified = &yes
	}
	return applyAccountChange(ctx, c, *id, ch, *reason, stdout, env)
}

// applyAccountChange makes ch on account id for c's operator and says what it did.
func applyAccountChange(ctx context.Context, c *operatorCommand, id int64, ch server.AccountChange, reason string,
	stdout io.Writer, env lookupEnv) error {
	srv, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer srv.Close()
	if err := srv.UpdateAccount(ctx, c.as(reason, env), id, ch); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "account %d: %s\n", id, describeChange(ch))
	return err
}

// describeChange says what ch did, for the command's one line of output.
func describeChange(ch server.AccountChange) string {
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

// optionalInt is an int flag that knows whether it was given.
type optionalInt struct{ v *int }

func (f *optionalInt) String() string {
	if f.v == nil {
		return ""
	}
	return strconv.Itoa(*f.v)
}

func (f *optionalInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("not a whole number")
	}
	if n < 0 {
		return errors.New("must not be negative")
	}
	f.v = &n
	return nil
}

// optionalChoice is a string flag of fixed choices that knows whether it was given.
type optionalChoice struct {
	choices []string
	v       *string
}

func (f *optionalChoice) String() string {
	if f.v == nil {
		return ""
	}
	return *f.v
}

func (f *optionalChoice) Set(s string) error {
	for _, c := range f.choices {
		if s == c {
			f.v = &s
			return nil
		}
	}
	return fmt.Errorf("must be one of %v", f.choices)
}

// accountSet runs `resellerd account set --account N [--server-limit N] [--order-limit N]
// [--apps on|off] [--language fa|en]`: every flag given, in one change.
func accountSet(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	fs, c := newOperatorCommand("account set")
	id := fs.Int64("account", 0, "account id")
	reason := fs.String("reason", "", "why, for the audit trail")
	var serverLimit, orderLimit optionalInt
	fs.Var(&serverLimit, "server-limit", "active servers and pending orders at most (server_limit; 0 admits no new one)")
	fs.Var(&orderLimit, "order-limit", "orders provisioning at once at most (api_order_limit)")
	apps := optionalChoice{choices: []string{"on", "off"}}
	fs.Var(&apps, "apps", "on or off: whether the account may order and install one-click apps")
	language := optionalChoice{choices: []string{"fa", "en"}}
	fs.Var(&language, "language", "fa or en")
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	if err := requireID(c.name, "--account", *id); err != nil {
		return err
	}
	ch := server.AccountChange{ServerLimit: serverLimit.v, OrderLimit: orderLimit.v, Language: language.v}
	if apps.v != nil {
		on := *apps.v == "on"
		ch.AppsEnabled = &on
	}
	if ch == (server.AccountChange{}) {
		return fmt.Errorf("%w: %s: nothing to change: give --server-limit, --order-limit, --apps or --language", errUsage, c.name)
	}
	return applyAccountChange(ctx, c, *id, ch, *reason, stdout, env)
}

// instanceCommand runs `resellerd instance SUBCOMMAND`.
func instanceCommand(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: instance: no subcommand (lock, unlock)", errUsage)
	}
	switch args[0] {
	case "lock", "unlock":
		return instanceLock(ctx, args[0], args[1:], stdout, env)
	default:
		return fmt.Errorf("%w: instance: unknown subcommand %q", errUsage, args[0])
	}
}

// instanceLock runs `resellerd instance lock --instance N --reason TEXT` and `instance unlock
// --instance N`: actions on a locked server answer 409 instance_locked; reads and DELETE work.
func instanceLock(ctx context.Context, command string, args []string, stdout io.Writer, env lookupEnv) error {
	fs, c := newOperatorCommand("instance " + command)
	c.touchesSecrets = true
	id := fs.Int64("instance", 0, "instance id")
	reason := fs.String("reason", "", "debt, traffic, abuse or any text: the lock's reason, as the API shows it (required by lock)")
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	if err := requireID(c.name, "--instance", *id); err != nil {
		return err
	}
	if command == "lock" && *reason == "" {
		return fmt.Errorf("%w: %s: --reason is required (debt, traffic, abuse or any text)", errUsage, c.name)
	}
	srv, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer srv.Close()
	op := c.as(*reason, env)
	if command == "lock" {
		err = srv.LockInstanceBy(ctx, op, *id)
	} else {
		err = srv.UnlockInstanceBy(ctx, op, *id)
	}
	if err != nil {
		return err
	}
	state := "unlocked"
	if command == "lock" {
		state = "locked (" + *reason + ")"
	}
	_, err = fmt.Fprintf(stdout, "instance %d: %s\n", *id, state)
	return err
}

var _ flag.Value = (*optionalInt)(nil)
