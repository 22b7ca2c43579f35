package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Traffic against the allowance (spec: Traffic; backend/docs/machines.md, "Traffic"). An
// instance's allowance is its plan's unless an operator set one (`resellerd instance set`).
// Each read of the datacenter sets `used` for the current 30-day cycle; then, in the same
// transaction, each whole GB of overage not billed yet is billed at the plan's overage_price
// (one ledger line per GB) when overage is allowed, and otherwise passing the allowance locks
// the instance (reason traffic) until the allowance covers it again: a new cycle, or an
// operator's larger allowance. Every lock and unlock writes its audit entry (operator
// "system") with it, so `resellerd audit` shows why a server stopped answering.

// gigabyte is the GB of `used`: 10^9 bytes, whole ones (rounded down).
const gigabyte = 1_000_000_000

// trafficBatch is how many live instances the traffic worker reads a statement.
const trafficBatch = 200

// systemOperator is who the audit trail names for a change the service makes itself.
const systemOperator = "system"

// allowance is what an instance may use a cycle (0: unlimited) and whether the overage is
// billed (else it locks): the operator's values where set, else the plan's.
func allowance(in store.Instance, plan catalog.Plan) (includedGB int, allowOverage bool) {
	includedGB, allowOverage = plan.Traffic.IncludedGB, plan.Traffic.AllowOverage
	if in.TrafficIncludedGB != nil {
		includedGB = *in.TrafficIncludedGB
	}
	if in.TrafficAllowOverage != nil {
		allowOverage = *in.TrafficAllowOverage
	}
	return includedGB, allowOverage
}

// overageGB is what of used passes included (0 = unlimited: never any).
func overageGB(used, included int) int {
	if included <= 0 {
		return 0
	}
	return max(0, used-included)
}

// reckonTraffic sets in's used GB from what the datacenter read, in the cycle that starts at
// cycle. A datacenter that counts bytes (Counted) gives a total that only grows: the cycle's
// share is what was counted since the cycle began (TrafficCycleBase, taken at the first read
// of a new cycle; the first cycle counts from the build, 0). A new cycle has nothing billed.
func reckonTraffic(in *store.Instance, live datacenter.Live, cycle time.Time) {
	newCycle := !in.TrafficCycle.Equal(cycle)
	if newCycle {
		if !in.TrafficCycle.IsZero() {
			in.TrafficCycleBase = live.CountedBytes
		}
		in.TrafficCycle, in.TrafficBilledGB = cycle, 0
	}
	if !live.Counted {
		in.TrafficUsedGB = live.TrafficUsedGB
		return
	}
	in.TrafficUsedGB = int(max(0, live.CountedBytes-in.TrafficCycleBase) / gigabyte)
}

// settleTraffic bills the overage of in not billed yet, or locks or unlocks it for traffic, in
// tx, with the ledger lines and audit entries of what it did. billing is off for a datacenter
// that does not count bytes (the simulator's traffic is a clock, not a charge).
func (s *Service) settleTraffic(ctx context.Context, tx store.Tx, in *store.Instance, billing bool) error {
	plan, _ := s.catalog.Plan(in.PlanID)
	included, allow := allowance(*in, plan)
	over := overageGB(in.TrafficUsedGB, included)
	if allow && billing {
		if err := s.billOverage(ctx, tx, in, over, plan); err != nil {
			return err
		}
	}
	locked := over > 0 && !allow
	before := lockState(*in)
	switch {
	case locked && !in.Locked:
		in.Locked, in.LockReason, in.LockedAt = true, store.LockTraffic, s.now()
	case !locked && in.Locked && in.LockReason == store.LockTraffic:
		in.Locked, in.LockReason, in.LockedAt = false, "", time.Time{}
	default:
		return nil
	}
	who := Audit{Operator: systemOperator, Command: "traffic lock",
		Reason: fmt.Sprintf("%d GB used of %d GB included this cycle", in.TrafficUsedGB, included)}
	if !in.Locked {
		who.Command = "traffic unlock"
	}
	return s.audit(ctx, tx, who, auditTarget{accountID: in.AccountID, instanceID: in.ID}, before, lockState(*in))
}

// unsettled reports whether settleTraffic would change in: overage to bill, or a traffic lock
// to take or lift.
func (s *Service) unsettled(in store.Instance, billing bool) bool {
	plan, _ := s.catalog.Plan(in.PlanID)
	included, allow := allowance(in, plan)
	over := overageGB(in.TrafficUsedGB, included)
	locked := over > 0 && !allow
	return (allow && billing && over > in.TrafficBilledGB) ||
		(locked && !in.Locked) || (!locked && in.Locked && in.LockReason == store.LockTraffic)
}

// billOverage charges each GB of overage up to over not billed yet this cycle, one ledger
// line each, at the plan's overage_price; what the balance cannot cover is debt and locks the
// instance, as a renewal's does.
func (s *Service) billOverage(ctx context.Context, tx store.Tx, in *store.Instance, over int, plan catalog.Plan) error {
	cycle := in.TrafficCycle.Format(time.RFC3339)
	for gb := in.TrafficBilledGB + 1; gb <= over; gb++ {
		ref := instanceRef(in.ID, fmt.Sprintf("traffic:%s:%d", cycle, gb))
		debt, err := s.charge(ctx, tx, in.AccountID, plan.Traffic.OveragePrice, store.LedgerTraffic, ref)
		if err != nil {
			return err
		}
		lockForDebt(in, debt, s.now())
		in.TrafficBilledGB = gb
	}
	return nil
}

// trafficFields are the fields of an instance a traffic read may change, comparable with ==
// (the cycle as Unix nanoseconds: a time.Time's == also compares its location and clock).
type trafficFields struct {
	used, billed int
	cycle, base  int64
	locked       bool
	reason       string
}

func trafficFieldsOf(in store.Instance) trafficFields {
	return trafficFields{used: in.TrafficUsedGB, billed: in.TrafficBilledGB, cycle: in.TrafficCycle.UnixNano(),
		base: in.TrafficCycleBase, locked: in.Locked, reason: in.LockReason}
}

// TrafficDue is the traffic worker's step (sandbox only): it reads every live instance's
// traffic from the datacenter and settles it (refreshTraffic), so `used`, the overage billed
// and the traffic locks are at most one tick old. Its work is the live instances, whatever the
// rows ever stored.
func (s *Service) TrafficDue(ctx context.Context) error {
	var after int64
	for {
		page, err := s.store.ActiveInstancesAfter(ctx, after, trafficBatch)
		if err != nil {
			return fmt.Errorf("service: live instances: %w", err)
		}
		for _, in := range page {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := s.refreshTraffic(ctx, in); err != nil {
				return fmt.Errorf("service: traffic of instance %d: %w", in.ID, err)
			}
			after = in.ID
		}
		if len(page) < trafficBatch {
			return nil
		}
	}
}

// refreshTraffic reads in's traffic and settles it; the row is written only when something
// changed. A datacenter that does not answer leaves it for the next tick. It reads without
// waiting on another host where the datacenter can (datacenter.StoredTraffic).
func (s *Service) refreshTraffic(ctx context.Context, in store.Instance) error {
	now := s.now()
	read := s.dc.Live
	if stored, ok := s.dc.(datacenter.StoredTraffic); ok {
		read = stored.LiveStored
	}
	live, err := read(ctx, in.MachineRef, cycleStart(in.CreatedAt, now))
	if err != nil {
		s.log.WarnContext(ctx, "traffic: datacenter did not answer", slog.Int64("instance_id", in.ID), slog.Any("error", err))
		return nil
	}
	probe := in
	reckonTraffic(&probe, live, cycleStart(in.CreatedAt, now))
	if trafficFieldsOf(probe) == trafficFieldsOf(in) && !s.unsettled(probe, live.Counted) {
		return nil // nothing moved: no transaction (most ticks, for most servers)
	}
	err = s.store.WithTx(ctx, func(tx store.Tx) error {
		cur, err := tx.InstanceByID(ctx, in.ID)
		if err != nil || !cur.Active {
			return err
		}
		was := trafficFieldsOf(cur)
		reckonTraffic(&cur, live, cycleStart(cur.CreatedAt, now))
		if err := s.settleTraffic(ctx, tx, &cur, live.Counted); err != nil {
			return err
		}
		if trafficFieldsOf(cur) == was {
			return nil
		}
		return tx.UpdateInstance(ctx, cur)
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil // gone meanwhile
	}
	return err
}

// TrafficChange is an operator's change of an instance's allowance; nil leaves a field as it
// is.
type TrafficChange struct {
	IncludedGB   *int
	AllowOverage *bool
}

// MaxIncludedGB bounds an allowance an operator sets: 10^9 GB, far beyond any cycle.
const MaxIncludedGB = 1_000_000_000

// trafficState is an instance's allowance and lock as the trail shows them.
func trafficState(in store.Instance, plan catalog.Plan) state {
	included, allow := allowance(in, plan)
	return state{"traffic_included_gb": included, "allow_overage": allow, "locked": in.Locked, "lock_reason": in.LockReason}
}

// SetTrafficBy sets an active instance's traffic allowance for an operator (`resellerd
// instance set`), with its audit entry, and settles the traffic already counted against it at
// once: a larger allowance or allowed overage unlocks a server locked for traffic, a smaller
// one may lock it. It returns the instance's traffic as the API then shows it.
func (s *Service) SetTrafficBy(ctx context.Context, who Audit, id int64, ch TrafficChange) (Traffic, error) {
	if who.Reason == "" {
		return Traffic{}, Validation("reason", "is required")
	}
	if ch.IncludedGB == nil && ch.AllowOverage == nil {
		return Traffic{}, Validation("traffic_included_gb", "nothing to change: give the allowance or allow_overage")
	}
	if ch.IncludedGB != nil && (*ch.IncludedGB < 0 || *ch.IncludedGB > MaxIncludedGB) {
		return Traffic{}, Validation("traffic_included_gb", "must be from 0 (unlimited) to %d", MaxIncludedGB)
	}
	var out store.Instance
	err := s.store.WithTx(ctx, func(tx store.Tx) error {
		in, err := tx.InstanceByID(ctx, id)
		if err != nil {
			return notFoundOr(err, "instance", "read instance")
		}
		if !in.Active {
			return Conflict(CodeInstanceLocked, "instance %d is %s; its allowance cannot change", id, in.Status)
		}
		plan, _ := s.catalog.Plan(in.PlanID)
		before := trafficState(in, plan)
		if ch.IncludedGB != nil {
			v := *ch.IncludedGB
			in.TrafficIncludedGB = &v
		}
		if ch.AllowOverage != nil {
			v := *ch.AllowOverage
			in.TrafficAllowOverage = &v
		}
		if err := s.settleTraffic(ctx, tx, &in, false); err != nil { // billed at the next read
			return err
		}
		if err := tx.UpdateInstance(ctx, in); err != nil {
			return err
		}
		out = in
		return s.audit(ctx, tx, who, auditTarget{accountID: in.AccountID, instanceID: id}, before, trafficState(in, plan))
	})
	if err != nil {
		return Traffic{}, asServiceError(err, "set traffic allowance")
	}
	plan, _ := s.catalog.Plan(out.PlanID)
	return trafficOf(out, plan, s.now()), nil
}
