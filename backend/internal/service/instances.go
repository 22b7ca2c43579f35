package service

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/wire"
)

// Limits of the instance and snapshot texts (spec: Limits), shared with the provider.
const (
	maxName = wire.MaxNameLength
	maxNote = wire.MaxNoteLength
)

// trafficCycle is the length of a traffic allowance period (spec: GB per 30 days).
const trafficCycle = 30 * 24 * time.Hour

// InstanceDetail is an instance with everything GET /instances/{id} shows beside it.
type InstanceDetail struct {
	store.Instance
	// Status is the status now: a reboot, rebuild or resize that has settled shows where it
	// ended even before the store caught up.
	Status             string
	Plan               catalog.Plan
	Datacenter         catalog.Datacenter
	Location           catalog.Location
	Template           catalog.Template
	Features           []catalog.Feature
	Costs              money.Micros // features, per hour
	Recurring          money.Micros // plan and features: what each renewal charges
	IPChangeCost       money.Micros
	CredentialsPending bool
	Traffic            Traffic
	Apps               []AppRecord // filled only for the detail
}

// Traffic is an instance's traffic in its current 30-day cycle.
type Traffic struct {
	Enabled      bool // the plan has an allowance to count against
	IncludedGB   int
	UsedGB       int
	OverageGB    int
	AllowOverage bool
	CycleStart   time.Time
}

// AppRecord is an app install with its catalogue entry.
type AppRecord struct {
	store.AppInstall
	App catalog.App
}

// describe joins an instance with the catalogue; withApps also loads its app installs.
func (s *Service) describe(ctx context.Context, in store.Instance, withApps bool) (InstanceDetail, error) {
	if !withApps {
		return s.describeWith(in, nil), nil
	}
	apps, err := s.appRecords(ctx, in.ID)
	if err != nil {
		return InstanceDetail{}, err
	}
	return s.describeWith(in, apps), nil
}

// describeWith is describe with the instance's app records already read (nil for none).
func (s *Service) describeWith(in store.Instance, apps []AppRecord) InstanceDetail {
	now := s.now()
	plan, _ := s.catalog.Plan(in.PlanID)
	dc, _ := s.catalog.Datacenter(in.DatacenterID)
	loc, _ := s.catalog.Location(in.LocationID)
	tmpl, _ := s.catalog.Template(in.TemplateID)
	d := InstanceDetail{
		Instance: in, Status: in.Next.StatusAt(in.Status, now), Plan: plan, Datacenter: dc, Location: loc, Template: tmpl,
		IPChangeCost:       dc.IPChangeCost,
		CredentialsPending: in.Active && now.Before(in.CredentialsAt),
		Traffic:            trafficOf(in, plan, now),
	}
	for _, id := range in.Features {
		if f, ok := s.catalog.Feature(id); ok {
			d.Features = append(d.Features, f)
			d.Costs += f.Price
		}
	}
	d.Recurring = plan.Price + d.Costs
	d.Apps = apps
	return d
}

func (s *Service) appRecords(ctx context.Context, instanceID int64) ([]AppRecord, error) {
	installs, err := s.store.AppInstalls(ctx, instanceID)
	if err != nil {
		return nil, Internal(fmt.Errorf("service: app installs of instance %d: %w", instanceID, err))
	}
	return s.appRecordsOf(installs), nil
}

// appRecordsOf joins installs to their catalogue apps.
func (s *Service) appRecordsOf(installs []store.AppInstall) []AppRecord {
	out := make([]AppRecord, 0, len(installs))
	for _, a := range installs {
		app, _ := s.catalog.App(a.AppID)
		out = append(out, AppRecord{AppInstall: a, App: app})
	}
	return out
}

// trafficOf computes the traffic of the current cycle; cycles start every 30 days from creation.
// used is what the last read of the datacenter found (0 for a cycle not read yet).
func trafficOf(in store.Instance, plan catalog.Plan, now time.Time) Traffic {
	included, allow := allowance(in, plan)
	start := cycleStart(in.CreatedAt, now)
	t := Traffic{Enabled: included > 0, IncludedGB: included, UsedGB: in.TrafficUsedGB, AllowOverage: allow, CycleStart: start}
	if !in.TrafficCycle.IsZero() && in.TrafficCycle.Before(start) {
		t.UsedGB = 0 // the cycle read last is over
	}
	t.OverageGB = overageGB(t.UsedGB, included)
	return t
}

func cycleStart(created, now time.Time) time.Time {
	if now.Before(created) {
		return created
	}
	cycles := now.Sub(created) / trafficCycle
	return created.Add(cycles * trafficCycle)
}

// Instances lists the account's instances, newest first, and how many match in all.
func (s *Service) Instances(ctx context.Context, acct store.Account, onlyActive bool, page store.Page) ([]InstanceDetail, int, error) {
	list, total, err := s.store.Instances(ctx, acct.ID, onlyActive, page)
	if err != nil {
		return nil, 0, Internal(fmt.Errorf("service: list instances: %w", err))
	}
	out := make([]InstanceDetail, 0, len(list))
	for _, in := range list {
		d, err := s.describe(ctx, in, false)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, d)
	}
	return out, total, nil
}

// Instance returns one instance of the account. With refresh the datacenter is asked for live
// status and traffic first; if it does not answer, the stored values are shown.
func (s *Service) Instance(ctx context.Context, acct store.Account, id int64, refresh bool) (InstanceDetail, error) {
	if !refresh {
		in, installs, err := s.store.InstanceWithInstalls(ctx, acct.ID, id)
		if err != nil {
			return InstanceDetail{}, notFoundOr(err, "instance", "read instance")
		}
		return s.describeWith(in, s.appRecordsOf(installs)), nil
	}
	in, err := s.instance(ctx, s.store, acct.ID, id)
	if err != nil {
		return InstanceDetail{}, err
	}
	if in.Active { // only a refresh reaches here
		if in, err = s.refresh(ctx, in); err != nil {
			return InstanceDetail{}, err
		}
	}
	return s.describe(ctx, in, true)
}

// instance reads an instance of the account; another account's is 404.
func (s *Service) instance(ctx context.Context, q store.Queries, accountID, id int64) (store.Instance, error) {
	in, err := q.Instance(ctx, accountID, id)
	if err != nil {
		return store.Instance{}, notFoundOr(err, "instance", "read instance")
	}
	return in, nil
}

// refresh asks the datacenter for the live status and traffic and stores them, with the
// traffic settled (traffic.go): overage billed, or the instance locked for passing its
// allowance, or unlocked in a new cycle.
func (s *Service) refresh(ctx context.Context, in store.Instance) (store.Instance, error) {
	now := s.now()
	live, err := s.dc.Live(ctx, in.MachineRef, cycleStart(in.CreatedAt, now))
	if err != nil {
		s.log.WarnContext(ctx, "refresh: datacenter did not answer; showing stored values",
			slog.Int64("instance_id", in.ID), slog.Any("error", err))
		return in, nil
	}
	var out store.Instance
	err = s.store.WithTx(ctx, func(tx store.Tx) error {
		cur, err := tx.Instance(ctx, in.AccountID, in.ID)
		if err != nil {
			return err
		}
		cur.Next.Settle(&cur.Status, now)
		if live.Status != "" && cur.Next.Status == "" && cur.Active {
			cur.Status = live.Status
		}
		reckonTraffic(&cur, live, cycleStart(cur.CreatedAt, now))
		if err := s.settleTraffic(ctx, tx, &cur, live.Counted); err != nil {
			return err
		}
		out = cur
		return tx.UpdateInstance(ctx, cur)
	})
	if err != nil {
		return store.Instance{}, asServiceError(err, "refresh instance")
	}
	return out, nil
}

// InstanceUpdate is the body of PATCH /instances/{id}; nil leaves a field unchanged.
type InstanceUpdate struct {
	Name  *string
	Note  *string
	Renew *bool
}

func (u InstanceUpdate) validate() error {
	if u.Name != nil {
		if err := checkName(*u.Name); err != nil {
			return err
		}
	}
	if u.Note != nil {
		if err := checkNote(*u.Note); err != nil {
			return err
		}
	}
	return nil
}

// checkName accepts 1 to 64 characters without control characters and not only spaces.
func checkName(name string) error {
	if strings.TrimSpace(name) == "" {
		return Validation("name", "must not be empty")
	}
	if utf8.RuneCountInString(name) > maxName {
		return Validation("name", "must be at most %d characters", maxName)
	}
	if strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return Validation("name", "must not contain control characters")
	}
	return nil
}

// checkNote accepts up to 512 characters; "" clears the note.
func checkNote(note string) error {
	if utf8.RuneCountInString(note) > maxNote {
		return Validation("note", "must be at most %d characters", maxNote)
	}
	return nil
}

// UpdateInstance renames the instance, sets its note or switches auto-renew.
func (s *Service) UpdateInstance(ctx context.Context, acct store.Account, id int64, u InstanceUpdate) (InstanceDetail, error) {
	if err := u.validate(); err != nil {
		return InstanceDetail{}, err
	}
	var out store.Instance
	err := s.store.WithTx(ctx, func(tx store.Tx) error {
		in, err := s.operable(ctx, tx, acct.ID, id)
		if err != nil {
			return err
		}
		if u.Name != nil {
			in.Name = *u.Name
		}
		if u.Note != nil {
			in.Note = *u.Note
		}
		if u.Renew != nil {
			in.Renew = *u.Renew
		}
		out = in
		return tx.UpdateInstance(ctx, in)
	})
	if err != nil {
		return InstanceDetail{}, asServiceError(err, "update instance")
	}
	return s.describe(ctx, out, true)
}

// operable reads an instance that operations may change: 404 when it is not the account's, 409
// instance_locked when it is locked (debt, traffic, or canceled and being deleted).
func (s *Service) operable(ctx context.Context, q store.Queries, accountID, id int64) (store.Instance, error) {
	in, err := s.instance(ctx, q, accountID, id)
	if err != nil {
		return store.Instance{}, err
	}
	if err := lockedError(in); err != nil {
		return store.Instance{}, err
	}
	return in, nil
}

// lockedError is the 409 of an instance operations may not change, or nil.
func lockedError(in store.Instance) error {
	if !in.Active {
		return Conflict(CodeInstanceLocked, "instance %d is %s; deletion is in progress", in.ID, in.Status)
	}
	if in.Locked {
		return Conflict(CodeInstanceLocked, "instance %d is locked (%s)", in.ID, in.LockReason)
	}
	return nil
}

// CancelInstance cancels the instance: billing stops, deletion at the datacenter is queued, and
// instance.canceled is emitted with reason api. Canceling an inactive instance changes nothing
// and answers the same, so the call is safe to repeat. A locked instance can be canceled: a
// server locked for debt must still be stoppable, and its debt stays owed.
func (s *Service) CancelInstance(ctx context.Context, acct store.Account, id int64) (store.Instance, error) {
	var out store.Instance
	err := s.store.WithTx(ctx, func(tx store.Tx) error {
		in, err := s.instance(ctx, tx, acct.ID, id)
		if err != nil || !in.Active {
			out = in
			return err
		}
		out, err = s.stop(ctx, tx, in, store.StatusCanceled, store.CancelAPI, s.now())
		return err
	})
	if err != nil {
		return store.Instance{}, asServiceError(err, "cancel instance")
	}
	return out, nil
}

// stop ends an active instance as of at with status (canceled or expired) for reason, in the
// caller's transaction, and emits instance.canceled. Its machine is deleted later by the
// housekeeping worker; until then the instance is locked for deletion. Its local snapshots end
// with it; the others outlive it.
func (s *Service) stop(ctx context.Context, tx store.Tx, in store.Instance, status, reason string, at time.Time) (store.Instance, error) {
	in.Status, in.Next = status, store.Pending{}
	in.Active, in.ExpiredAt, in.CancelReason = false, at, reason
	in.Locked, in.LockReason, in.LockedAt = true, store.LockDeletion, at
	if err := tx.UpdateInstance(ctx, in); err != nil {
		return store.Instance{}, err
	}
	if err := s.expireLocalSnapshots(ctx, tx, in.ID, at); err != nil {
		return store.Instance{}, err
	}
	err := s.emit(ctx, tx, in.AccountID, EventInstanceCanceled, instanceCanceledData{InstanceID: in.ID, Status: status, Reason: reason})
	return in, err
}

// Traffic returns the instance's traffic, asking the datacenter first with refresh.
func (s *Service) Traffic(ctx context.Context, acct store.Account, id int64, refresh bool) (Traffic, error) {
	d, err := s.Instance(ctx, acct, id, refresh)
	if err != nil {
		return Traffic{}, err
	}
	return d.Traffic, nil
}

// ResizeOption is a plan the instance can move to, with what the move costs.
type ResizeOption struct {
	Plan      catalog.Plan
	ChargeNow money.Micros // the price difference for what is left of the current hour
	NewCost   money.Micros // per hour from the next renewal, features included
}

// ResizeOptions lists where an instance can be resized to.
type ResizeOptions struct {
	InstanceID    int64
	CurrentPlanID int64
	Options       []ResizeOption
}

// ResizeOptions lists the plans bigger in every dimension at the instance's location. It is
// empty when the plan does not offer resize or the instance is no longer active.
func (s *Service) ResizeOptions(ctx context.Context, acct store.Account, id int64) (ResizeOptions, error) {
	in, err := s.instance(ctx, s.store, acct.ID, id)
	if err != nil {
		return ResizeOptions{}, err
	}
	return s.resizeOptions(in), nil
}

func (s *Service) resizeOptions(in store.Instance) ResizeOptions {
	out := ResizeOptions{InstanceID: in.ID, CurrentPlanID: in.PlanID, Options: []ResizeOption{}}
	plan, ok := s.catalog.Plan(in.PlanID)
	if !ok || !in.Active || !slices.Contains(plan.Actions, catalog.ActionResize) {
		return out
	}
	left := in.RenewalDue.Sub(s.now())
	for _, target := range s.catalog.ResizeTargets(plan) {
		out.Options = append(out.Options, ResizeOption{
			Plan:      target,
			ChargeNow: prorate(target.Price-plan.Price, left),
			NewCost:   hourly(target, s.keptFeatures(in, target)),
		})
	}
	return out
}

// keptFeatures are the instance's features a target plan offers, plus those the target forces
// for the instance's OS; a feature the target does not offer is dropped by a resize.
func (s *Service) keptFeatures(in store.Instance, target catalog.Plan) []catalog.Feature {
	var out []catalog.Feature
	seen := map[int64]bool{}
	for _, id := range in.Features {
		if f, ok := s.catalog.Feature(id); ok && target.HasFeature(id) && !seen[id] {
			seen[id] = true
			out = append(out, f)
		}
	}
	if tmpl, ok := s.catalog.Template(in.TemplateID); ok {
		for _, f := range s.catalog.ForcedFeatures(target, tmpl.OSType) {
			if !seen[f.ID] {
				seen[f.ID] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// prorate is the share of an amount per billing hour for the part of the hour left, in whole
// micro-USD, rounded half up. Nothing is left of an hour that is already due.
func prorate(amount money.Micros, left time.Duration) money.Micros {
	if amount <= 0 || left <= 0 {
		return 0
	}
	const termMillis = int64(catalog.BillingHour / time.Millisecond)
	ms := min(left, catalog.BillingHour).Milliseconds()
	return money.Micros((int64(amount)*ms + termMillis/2) / termMillis)
}

// featureIDs lists the ids of features.
func featureIDs(features []catalog.Feature) []int64 {
	out := make([]int64, 0, len(features))
	for _, f := range features {
		out = append(out, f.ID)
	}
	return out
}
