package service

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// ActionRequest is the body of POST /instances/{id}/actions; nil fields were not sent.
type ActionRequest struct {
	Action     string
	TemplateID *int64
	ServerID   *int64
	AcceptCost *money.Micros
	Apps       []string
	AppInputs  map[string]map[string]string
	Name       *string
	Note       *string
}

// ActionResult is what an action reports; nil fields do not apply to it.
type ActionResult struct {
	Action          string
	Password        *string
	IPv4            *string
	Clean           *bool
	Debt            *money.Micros
	ConsoleURL      *string
	ConsolePassword *string
	QueuedApps      []string // nil: not a rebuild
	Charged         *money.Micros
	ServerProductID *int64
}

// validate checks that the action is known and that the request carries only the fields the
// action uses, so a field sent to the wrong action is reported rather than silently ignored.
func (r ActionRequest) validate() error {
	if r.Action == "" {
		return Validation("action", "is required; one of %s", strings.Join(catalog.AllActions(), ", "))
	}
	if !slices.Contains(catalog.AllActions(), r.Action) {
		return Validation("action", "unknown action %q; one of %s", r.Action, strings.Join(catalog.AllActions(), ", "))
	}
	sent := map[string]bool{
		"template_id": r.TemplateID != nil, "server_id": r.ServerID != nil, "accept_cost": r.AcceptCost != nil,
		"apps": r.Apps != nil, "app_inputs": r.AppInputs != nil, "name": r.Name != nil, "note": r.Note != nil,
	}
	uses := map[string][]string{
		catalog.ActionRebuild:        {"template_id", "apps", "app_inputs"},
		catalog.ActionResize:         {"server_id"},
		catalog.ActionChangeIP:       {"accept_cost"},
		catalog.ActionUpdateMetadata: {"name", "note"},
	}
	for _, field := range []string{"template_id", "server_id", "accept_cost", "apps", "app_inputs", "name", "note"} {
		if sent[field] && !slices.Contains(uses[r.Action], field) {
			return Validation(field, "is not used by %s", r.Action)
		}
	}
	if r.AcceptCost != nil && *r.AcceptCost < 0 {
		return Validation("accept_cost", "must not be negative")
	}
	if r.AcceptCost != nil {
		return checkAmount("accept_cost", *r.AcceptCost)
	}
	return nil
}

// RunAction runs one of the nine actions on an instance. A locked or inactive instance is 409
// instance_locked; an action its plan does not list is 400 naming action. The datacenter is
// called outside any transaction; its failures are 502 provider_error with a reference, and
// nothing is recorded for them.
func (s *Service) RunAction(ctx context.Context, acct store.Account, id int64, req ActionRequest) (ActionResult, error) {
	if err := req.validate(); err != nil {
		return ActionResult{}, err
	}
	in, err := s.operable(ctx, s.store, acct.ID, id)
	if err != nil {
		return ActionResult{}, err
	}
	plan, _ := s.catalog.Plan(in.PlanID)
	if !slices.Contains(plan.Actions, req.Action) {
		return ActionResult{}, Validation("action", "%s is not supported by server %d; its actions are %s",
			req.Action, plan.ID, strings.Join(plan.Actions, ", "))
	}
	res := ActionResult{Action: req.Action}
	switch req.Action {
	case catalog.ActionPowerOn, catalog.ActionPowerOff, catalog.ActionReboot:
		err = s.power(ctx, in, req.Action)
	case catalog.ActionRebuild:
		res.QueuedApps, err = s.rebuild(ctx, acct, in, req)
	case catalog.ActionResetPassword:
		res.Password, err = s.resetPassword(ctx, in)
	case catalog.ActionChangeIP:
		err = s.changeIP(ctx, in, req.AcceptCost, &res)
	case catalog.ActionConsole:
		err = s.console(ctx, in, &res)
	case catalog.ActionResize:
		err = s.resize(ctx, in, req.ServerID, &res)
	case catalog.ActionUpdateMetadata:
		_, err = s.UpdateInstance(ctx, acct, id, InstanceUpdate{Name: req.Name, Note: req.Note})
	}
	if err != nil {
		return ActionResult{}, err
	}
	return res, nil
}

// commit applies change to the instance as it is now, in a transaction. The instance is read
// again and must still be operable: the datacenter call before it took time.
func (s *Service) commit(ctx context.Context, in store.Instance, change func(tx store.Tx, cur *store.Instance) error) error {
	err := s.store.WithTx(ctx, func(tx store.Tx) error {
		cur, err := s.operable(ctx, tx, in.AccountID, in.ID)
		if err != nil {
			return err
		}
		cur.Next.Settle(&cur.Status, s.now())
		if err := change(tx, &cur); err != nil {
			return err
		}
		return tx.UpdateInstance(ctx, cur)
	})
	return asServiceError(err, "record action")
}

// transition records a datacenter status change on the instance.
func transition(in *store.Instance, tr datacenter.Transition) {
	in.Status, in.Next = tr.Status, store.Pending{}
	if tr.Settled != "" && tr.Settled != tr.Status {
		in.Next = store.PendingTo(tr.Settled, tr.SettlesAt)
	}
}

// power runs power_on (online), power_off (offline) or reboot (rebooting, then online).
func (s *Service) power(ctx context.Context, in store.Instance, action string) error {
	tr, err := s.dc.Power(ctx, in.MachineRef, action)
	if err != nil {
		return ProviderFailure(err)
	}
	return s.commit(ctx, in, func(_ store.Tx, cur *store.Instance) error {
		transition(cur, tr)
		return nil
	})
}

// rebuild erases the disk and installs a template. Addresses are kept; the new password is
// pending until the rebuild settles. Earlier installs went with the old disk; the request's apps
// are queued for the new one. Features the new OS forces are switched on (and billed).
func (s *Service) rebuild(ctx context.Context, acct store.Account, in store.Instance, req ActionRequest) ([]string, error) {
	if req.TemplateID == nil {
		return nil, Validation("template_id", "is required for rebuild")
	}
	plan, _ := s.catalog.Plan(in.PlanID)
	tmpl, ok := s.catalog.Template(*req.TemplateID)
	if !ok || !plan.HasTemplate(tmpl.ID) {
		return nil, Validation("template_id", "%d is not a template of server %d", *req.TemplateID, plan.ID)
	}
	apps, err := s.resolveApps(acct, plan, tmpl, req.Apps)
	if err != nil {
		return nil, err
	}
	inputs, err := appInputs(apps, req.AppInputs)
	if err != nil {
		return nil, err
	}
	rb, err := s.dc.Rebuild(ctx, in.MachineRef, tmpl.ID, tmpl.OSType)
	if err != nil {
		return nil, ProviderFailure(err)
	}
	err = s.commit(ctx, in, func(tx store.Tx, cur *store.Instance) error {
		cur.TemplateID = tmpl.ID
		for _, f := range s.catalog.ForcedFeatures(plan, tmpl.OSType) {
			if !slices.Contains(cur.Features, f.ID) {
				cur.Features = append(cur.Features, f.ID)
			}
		}
		cur.Password, cur.CredentialsAt = rb.Password, rb.CredentialsAt
		cur.Username, cur.Port = "root", 22
		if tmpl.OSType == catalog.OSWindows {
			cur.Username, cur.Port = "Administrator", 3389
		}
		transition(cur, rb.Transition)
		if err := tx.DeleteAppInstalls(ctx, cur.ID); err != nil {
			return err
		}
		return s.queueInstalls(ctx, tx, cur.ID, apps, inputs)
	})
	if err != nil {
		return nil, err
	}
	return appIDs(apps), nil
}

// resetPassword sets a new root password, stores it and emits instance.password_reset (without
// the password, which is read from GET /instances/{id}).
func (s *Service) resetPassword(ctx context.Context, in store.Instance) (*string, error) {
	pw, err := s.dc.ResetPassword(ctx, in.MachineRef)
	if err != nil {
		return nil, ProviderFailure(err)
	}
	err = s.commit(ctx, in, func(tx store.Tx, cur *store.Instance) error {
		cur.Password = pw
		return s.emit(ctx, tx, cur.AccountID, EventInstancePasswordReset, instancePasswordResetData{InstanceID: cur.ID})
	})
	if err != nil {
		return nil, err
	}
	return &pw, nil
}

// changeIP gives the instance a new IPv4 address. Where the datacenter's ip_change_cost is 0 the
// change is free but allowed once per catalog.FreeIPChangeInterval (409 ip_change_too_soon).
// Elsewhere accept_cost must be at least the cost (409 cost_unconfirmed, nothing changed); a
// clean address is charged, and when the pool has none ready an ordinary address is given free.
// What the wallet cannot cover is booked as debt, reported, and locks the instance.
func (s *Service) changeIP(ctx context.Context, in store.Instance, accept *money.Micros, res *ActionResult) error {
	cost := s.ipChangeCost(in)
	if err := s.checkIPChange(in, cost, accept); err != nil {
		return err
	}
	change, err := s.dc.ChangeIP(ctx, in.MachineRef, in.DatacenterID, cost > 0)
	if err != nil {
		return ProviderFailure(err)
	}
	var charged, debt money.Micros
	err = s.commit(ctx, in, func(tx store.Tx, cur *store.Instance) error {
		if err := s.checkIPChange(*cur, cost, accept); err != nil {
			return err
		}
		cur.IPv4, cur.LastIPChange = change.IPv4, s.now()
		if cost > 0 && change.Clean {
			var err error
			if debt, err = s.charge(ctx, tx, cur.AccountID, cost, store.LedgerIPChange, instanceRef(cur.ID, "ip_change")); err != nil {
				return err
			}
			charged = cost
			cur.Paid += cost
			lockForDebt(cur, debt, s.now())
		}
		return s.emit(ctx, tx, cur.AccountID, EventInstanceIPChanged, instanceIPChangedData{InstanceID: cur.ID, IPv4: change.IPv4})
	})
	if err != nil {
		return err
	}
	res.IPv4 = &change.IPv4
	if cost > 0 {
		res.Clean, res.Charged, res.Debt = &change.Clean, &charged, &debt
	}
	return nil
}

func (s *Service) ipChangeCost(in store.Instance) money.Micros {
	dc, _ := s.catalog.Datacenter(in.DatacenterID)
	return dc.IPChangeCost
}

// checkIPChange applies the wait window of free changes and the cost confirmation of paid ones.
func (s *Service) checkIPChange(in store.Instance, cost money.Micros, accept *money.Micros) error {
	if cost == 0 {
		next := in.LastIPChange.Add(catalog.FreeIPChangeInterval)
		if !in.LastIPChange.IsZero() && s.now().Before(next) {
			return Conflict(CodeIPChangeTooSoon, "free IP changes are limited to one per %s; the next is possible at %s",
				catalog.FreeIPChangeInterval, next.Format(time.RFC3339))
		}
		return nil
	}
	if accept == nil || *accept < cost {
		return Conflict(CodeCostUnconfirmed, "change_ip costs %s USD on this server; send accept_cost of at least %s", cost, cost)
	}
	return nil
}

// console opens a short-lived console session; nothing is recorded.
func (s *Service) console(ctx context.Context, in store.Instance, res *ActionResult) error {
	c, err := s.dc.Console(ctx, in.MachineRef)
	if err != nil {
		return ProviderFailure(err)
	}
	res.ConsoleURL, res.ConsolePassword = &c.URL, &c.Password
	return nil
}

// resize moves the instance to a plan of its resize options and charges at once the price
// difference for what is left of the current hour (402 when balance minus reserved cannot cover
// it). Features the new plan does not offer are dropped; the next renewal charges new_cost.
func (s *Service) resize(ctx context.Context, in store.Instance, serverID *int64, res *ActionResult) error {
	if serverID == nil {
		return Validation("server_id", "is required for resize: a plan from resize-options")
	}
	opt, ok := s.resizeOption(in, *serverID)
	if !ok {
		return Validation("server_id", "%d is not a resize option of instance %d; see GET /instances/%d/resize-options",
			*serverID, in.ID, in.ID)
	}
	err := s.store.WithTx(ctx, func(tx store.Tx) error { return s.checkFunds(ctx, tx, in.AccountID, opt.ChargeNow) })
	if err != nil {
		return asServiceError(err, "check funds")
	}
	tr, err := s.dc.Resize(ctx, in.MachineRef, opt.Plan.ID)
	if err != nil {
		return ProviderFailure(err)
	}
	var charged money.Micros
	err = s.commit(ctx, in, func(tx store.Tx, cur *store.Instance) error {
		// Priced again as the instance is now: time has passed since the check.
		current, ok := s.resizeOption(*cur, opt.Plan.ID)
		if !ok {
			return Conflict(CodeInstanceLocked, "instance %d changed while resizing; try again", cur.ID)
		}
		debt, err := s.charge(ctx, tx, cur.AccountID, current.ChargeNow, store.LedgerResize, instanceRef(cur.ID, "resize"))
		if err != nil {
			return err
		}
		charged = current.ChargeNow
		cur.Features = featureIDs(s.keptFeatures(*cur, current.Plan))
		cur.PlanID, cur.Paid = current.Plan.ID, cur.Paid+charged
		lockForDebt(cur, debt, s.now())
		transition(cur, tr)
		return s.emit(ctx, tx, cur.AccountID, EventInstanceResized, instanceResizedData{InstanceID: cur.ID, ServerID: current.Plan.ID, Charged: charged})
	})
	if err != nil {
		return err
	}
	res.Charged, res.ServerProductID = &charged, &opt.Plan.ID
	return nil
}

func (s *Service) resizeOption(in store.Instance, planID int64) (ResizeOption, bool) {
	for _, o := range s.resizeOptions(in).Options {
		if o.Plan.ID == planID {
			return o, true
		}
	}
	return ResizeOption{}, false
}
