// Package planbudget checks a run's plan against the account's budget: what its creates need
// (new servers, first charges) against what the account has (server_limit, active servers,
// orders provisioning, available balance). It is what one provider process knows about the run
// it serves at plan time: the first charge of each distinct order (from POST /quote, asked once
// per plan, template and features) and the tally of the run's creates. The provider's
// plan_checks setting says whether a budget passed is a warning, an error or not checked.
//
// Terraform plans every resource of an operation through one provider process, so the tally
// sees the whole run. The apply re-plans each create in a new process (a new Run), which builds
// the same tally again: nothing is doubled across the two. The protocol gives a provider no
// resource address, so a replacement is recognised by the private data Terraform hands from the
// plan of the old object to the plan of its replacement (Create.Replaces; the instance package's
// plan_tally.go sets and reads that private data).
package planbudget

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// Modes of the provider's plan_checks setting.
const (
	ModeWarn  = "warn"
	ModeError = "error"
	ModeOff   = "off"
)

// Run is the plan-time view of one provider process (one Configure). Its methods are safe for
// the concurrent ModifyPlan calls of a run.
type Run struct {
	c    *client.Client
	mode string

	mu     sync.Mutex
	quotes map[string]*quoteCall
	// account is read once, at the first create tallied, before this process orders anything,
	// so the run's own orders are never counted twice (once as provisioning, once in the tally).
	account     *accountView
	accountRead bool
	servers     int64 // new servers tallied
	charges     int64 // first charges tallied, micro-USD
	replaced    map[int64]bool
	deleted     int64 // servers this process deleted after the account was read
}

// New returns the Run of a process. mode is one of the Mode constants.
func New(c *client.Client, mode string) *Run {
	return &Run{c: c, mode: mode, quotes: map[string]*quoteCall{}, replaced: map[int64]bool{}}
}

// Mode returns the plan_checks mode.
func (r *Run) Mode() string { return r.mode }

// quoteCall is one POST /quote of the run, shared by every caller asking for the same order.
type quoteCall struct {
	done chan struct{}
	cost float64
	ok   bool
}

// FirstCharge returns what an order of req will charge (the quote's cost: one hour of the plan
// with its features, forced ones included, plus the creation fee), asking the API once per
// distinct plan, template and features in the run; concurrent callers wait for the same answer.
// ok is false when the API cannot price it (an unknown plan, a feature the plan lacks): the
// apply reports that.
func (r *Run) FirstCharge(ctx context.Context, req client.QuoteRequest) (cost float64, ok bool) {
	key := quoteKey(req)
	r.mu.Lock()
	call, found := r.quotes[key]
	if !found {
		call = &quoteCall{done: make(chan struct{})}
		r.quotes[key] = call
	}
	r.mu.Unlock()
	if found {
		select {
		case <-call.done:
			return call.cost, call.ok
		case <-ctx.Done():
			return 0, false
		}
	}
	defer close(call.done)
	q, err := r.c.Quote(ctx, req)
	if err != nil {
		if ctx.Err() != nil { // this caller went away: the next one with the key asks again
			r.mu.Lock()
			delete(r.quotes, key)
			r.mu.Unlock()
		}
		tflog.Debug(ctx, "no price at plan time: the quote failed", map[string]any{"server_id": req.ServerID, "error": err.Error()})
		return 0, false
	}
	call.cost, call.ok = q.Cost, true
	return call.cost, true
}

// quoteKey identifies an order's price: plan, template and the sorted features.
func quoteKey(req client.QuoteRequest) string {
	features := append([]string(nil), req.ActiveFeatures...)
	sort.Strings(features)
	tmpl := "-"
	if req.TemplateID != nil {
		tmpl = strconv.FormatInt(*req.TemplateID, 10)
	}
	return fmt.Sprintf("%d/%s/%s", req.ServerID, tmpl, strings.Join(features, ","))
}

// Create is one create of the run as the tally sees it.
type Create struct {
	// Charge is the order's first charge in USD; ChargeKnown is false when it cannot be known
	// at plan time (then it is left out of the balance check).
	Charge      float64
	ChargeKnown bool
	// Replaces is the id of the server this create replaces, 0 for a new server. A replacement
	// destroys its server first, so it needs no room under server_limit; it is charged all the
	// same.
	Replaces int64
}

// Add tallies c and reports on diags each limit the run has passed with it: a warning, or an
// error in mode "error". Nothing is checked (or read) in mode "off"; when the account cannot be
// read the checks are skipped with a log line, since the apply still meets the API's own checks.
func (r *Run) Add(ctx context.Context, c Create, diags *diag.Diagnostics) {
	if r.mode == ModeOff {
		return
	}
	findings := r.add(ctx, c)
	for _, f := range findings {
		if r.mode == ModeError {
			diags.AddError(f.Summary, f.Detail+"\n\n"+modeNote)
		} else {
			diags.AddWarning(f.Summary, f.Detail+"\n\n"+modeNote)
		}
	}
}

// modeNote closes every finding.
const modeNote = "The provider's plan_checks setting (RESELLER_PLAN_CHECKS) makes these checks errors " +
	"(\"error\", so a pipeline stops at plan time) or turns them off (\"off\"). The tally cannot see other runs " +
	"on the same account at the same time, nor the extra server of a create_before_destroy replacement."

// Finding is a limit a create passes.
type Finding struct{ Summary, Detail string }

func (r *Run) add(ctx context.Context, c Create) []Finding {
	r.mu.Lock()
	defer r.mu.Unlock()
	acct := r.readAccount(ctx)
	if acct == nil {
		return nil
	}
	var out []Finding
	if c.Replaces != 0 {
		if r.replaced[c.Replaces] {
			return nil // the same replacement planned again in this process
		}
		r.replaced[c.Replaces] = true
	} else {
		r.servers++
		if room := acct.room() + r.deleted; r.servers > room {
			out = append(out, acct.serverFinding(r.servers, room))
		}
	}
	if c.ChargeKnown {
		r.charges += Micros(c.Charge)
		if r.charges > acct.available {
			out = append(out, acct.balanceFinding(r.charges, Micros(c.Charge)))
		}
	}
	return out
}

// Deleted records that this process deleted a server, which frees its room for the creates
// re-planned after it (the apply of a replacement destroys the old server first).
func (r *Run) Deleted() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.accountRead {
		r.deleted++
	}
}

// accountView is what the checks compare the run with, read from GET /account and GET
// /account/balance.
type accountView struct {
	serverLimit, active, provisioning int64
	balance, reserved, available      int64 // micro-USD
}

// readAccount reads the account once per Run (r.mu held).
func (r *Run) readAccount(ctx context.Context) *accountView {
	if r.accountRead {
		return r.account
	}
	acct, err := r.c.GetAccount(ctx)
	// A read cut short by its caller's cancellation is tried again by the next caller; any other
	// failure turns the checks off for the run (one warning, not one per server).
	r.accountRead = ctx.Err() == nil
	if err != nil {
		tflog.Warn(ctx, "plan checks skipped: the account could not be read", map[string]any{"error": err.Error()})
		return nil
	}
	bal, err := r.c.GetBalance(ctx)
	r.accountRead = ctx.Err() == nil
	if err != nil {
		tflog.Warn(ctx, "plan checks skipped: the balance could not be read", map[string]any{"error": err.Error()})
		return nil
	}
	r.account = &accountView{
		serverLimit: acct.ServerLimit, active: bal.ActiveInstances, provisioning: bal.PendingOrders,
		balance: Micros(bal.Balance), reserved: Micros(bal.Reserved), available: Micros(bal.Available),
	}
	tflog.Debug(ctx, "plan checks: account read", map[string]any{
		"server_limit": acct.ServerLimit, "active": bal.ActiveInstances, "provisioning": bal.PendingOrders, "available": bal.Available,
	})
	return r.account
}

// room is how many more servers the account takes.
func (a *accountView) room() int64 { return max(0, a.serverLimit-a.active-a.provisioning) }

func (a *accountView) serverFinding(need, room int64) Finding {
	return Finding{
		Summary: "Plan exceeds the account's server limit",
		Detail: fmt.Sprintf("This plan orders at least %d new %s; the account has room for %d (server_limit %d: "+
			"%d active, %d provisioning). The order of this server would be refused with server_limit_reached, "+
			"leaving the apply half done. Raise the account's server_limit, delete servers you no longer need, "+
			"or plan fewer new servers.", need, servers(need), room, a.serverLimit, a.active, a.provisioning),
	}
}

func (a *accountView) balanceFinding(need, this int64) Finding {
	return Finding{
		Summary: "Plan exceeds the account's available balance",
		Detail: fmt.Sprintf("The first charges of this plan's new servers come to at least %s (this server: %s); the "+
			"account has %s available (balance %s minus %s reserved by orders still provisioning). The order of this "+
			"server would be refused with insufficient_balance, leaving the apply half done. Top up the wallet, or "+
			"plan fewer or smaller servers.", usd(need), usd(this), usd(a.available), usd(a.balance), usd(a.reserved)),
	}
}

// servers is "server" or "servers" for n.
func servers(n int64) string {
	if n == 1 {
		return "server"
	}
	return "servers"
}

// Micros converts USD to integer micro-USD, the backend's unit, so sums compare exactly.
func Micros(usd float64) int64 { return int64(math.Round(usd * 1e6)) }

// usd renders micro-USD with as many decimals as it needs (at least two).
func usd(m int64) string {
	s := strconv.FormatFloat(float64(m)/1e6, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i < 0 {
		s += ".00"
	} else if len(s)-i < 3 {
		s += strings.Repeat("0", 3-(len(s)-i))
	}
	return "$" + s
}
