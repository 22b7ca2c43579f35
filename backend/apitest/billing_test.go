package apitest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

func (e *env) balance(t *testing.T, key string) api.BalanceView {
	t.Helper()
	var b api.BalanceView
	r := e.do(t, request{Path: "/account/balance", Key: key})
	r.WantStatus(t, http.StatusOK, "")
	r.Data(t, &b)
	return b
}

func TestHourlyBilling(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 1_000_000)
	id := e.deployed(t, a.APIKey, `{"server_id": 101, "template_id": 1, "term": "hourly", "active_features": ["2"]}`) // 0.005/h
	e.clock.Advance(59 * time.Minute)
	e.runDue(t)
	if in := e.getInstance(t, a.APIKey, id); dollars(*in.PaidAmount) != 0.005 {
		t.Fatalf("paid %v before the first renewal, want 0.005", dollars(*in.PaidAmount))
	}
	e.clock.Advance(time.Minute)
	e.runDue(t)
	in := e.getInstance(t, a.APIKey, id)
	if dollars(*in.PaidAmount) != 0.01 || *in.RenewalDue != "2025-06-01T12:00:00Z" {
		t.Fatalf("after the first renewal: paid %v due %s, want 0.01 and 12:00", dollars(*in.PaidAmount), *in.RenewalDue)
	}
	e.clock.Advance(3*time.Hour + 30*time.Minute) // a backend that was down catches up hour by hour
	e.runDue(t)
	in = e.getInstance(t, a.APIKey, id)
	if dollars(*in.PaidAmount) != 0.025 || *in.RenewalDue != "2025-06-01T15:00:00Z" {
		t.Fatalf("after catching up: paid %v due %s, want 0.025 and 15:00", dollars(*in.PaidAmount), *in.RenewalDue)
	}
	_, entries := e.ledger(t, a.ID)
	var renewals []string
	for _, en := range entries {
		if en.Kind == store.LedgerRenewal {
			renewals = append(renewals, en.Reference)
		}
	}
	want := []string{}
	for h := 11; h <= 14; h++ {
		want = append(want, fmt.Sprintf("instance:%d:renewal:2025-06-01T%d:00:00Z", id, h))
	}
	if !slices.Equal(renewals, want) {
		t.Fatalf("renewals = %v, want one per hour %v", renewals, want)
	}
	if b := e.balance(t, a.APIKey); dollars(b.Balance) != 0.975 {
		t.Fatalf("balance = %v, want 0.975", dollars(b.Balance))
	}
	e.wantReconciled(t, a.ID)
}

func TestDebtLocksAndTopUpUnlocks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	a := e.funded(t, 10_000) // 0.01: the 0.004 order, one renewal, then short
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	e.clock.Advance(time.Hour)
	e.runDue(t) // 0.006 → 0.002
	if in := e.getInstance(t, a.APIKey, id); in.Locked {
		t.Fatal("locked while the balance still covered the hour")
	}
	e.clock.Advance(time.Hour)
	e.runDue(t) // needs 0.004, has 0.002: 0.002 becomes debt
	in := e.getInstance(t, a.APIKey, id)
	if !in.Locked || *in.LockReason != "debt" || !in.Active {
		t.Fatalf("locked %v (%v) active %v, want locked for debt and still running", in.Locked, in.LockReason, in.Active)
	}
	e.action(t, a.APIKey, id, `{"action": "reboot"}`).WantStatus(t, http.StatusConflict, "instance_locked")
	e.clock.Advance(time.Hour)
	e.runDue(t) // a locked server keeps running and accrues debt
	b := e.balance(t, a.APIKey)
	if dollars(b.Balance) != 0 || dollars(b.Debt) != 0.006 || b.HoursUntilBalanceZero == nil || *b.HoursUntilBalanceZero != 0 {
		t.Fatalf("wallet = %+v, want balance 0, debt 0.006, 0 hours left", b)
	}
	if in := e.getInstance(t, a.APIKey, id); dollars(*in.PaidAmount) != 0.016 {
		t.Fatalf("paid_amount = %v, want every hour counted, debt included: 0.016", dollars(*in.PaidAmount))
	}

	if err := e.srv.TopUp(ctx, a.ID, 5_000, "card"); err != nil { // pays 0.005 of the 0.006
		t.Fatal(err)
	}
	if b := e.balance(t, a.APIKey); dollars(b.Balance) != 0 || dollars(b.Debt) != 0.001 {
		t.Fatalf("after a partial top-up: %+v, want balance 0 and debt 0.001", b)
	}
	if in := e.getInstance(t, a.APIKey, id); !in.Locked {
		t.Fatal("unlocked while debt remains")
	}
	if err := e.srv.TopUp(ctx, a.ID, 1_000_000, "card"); err != nil {
		t.Fatal(err)
	}
	if b := e.balance(t, a.APIKey); dollars(b.Balance) != 0.999 || dollars(b.Debt) != 0 {
		t.Fatalf("after paying off: %+v, want balance 0.999 and no debt", b)
	}
	if in := e.getInstance(t, a.APIKey, id); in.Locked || in.LockReason != nil {
		t.Fatalf("still locked (%v) after the debt was paid", in.LockReason)
	}
	e.act(t, a.APIKey, id, `{"action": "reboot"}`)
	e.wantReconciled(t, a.ID)
}

func TestUnpaidDebtCancels(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 4_000) // the order only
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	e.clock.Advance(time.Hour)
	e.runDue(t) // 11:00: all debt, locked as of 11:00
	e.clock.Advance(71 * time.Hour)
	e.runDue(t)
	if in := e.getInstance(t, a.APIKey, id); !in.Active {
		t.Fatal("canceled before the grace of 72 hours")
	}
	e.clock.Advance(time.Hour) // 11:00 three days later
	e.runDue(t)
	in := e.getInstance(t, a.APIKey, id)
	if in.Active || *in.Status != "canceled" || *in.ExpiredAt != "2025-06-04T11:00:00Z" {
		t.Fatalf("after 72 hours of debt: active %v status %s expired %v", in.Active, *in.Status, in.ExpiredAt)
	}
	evs := e.events(t, a.ID)
	last := evs[len(evs)-1]
	if last.Name != "instance.canceled" || string(last.Data) != fmt.Sprintf(`{"instance_id":%d,"status":"canceled","reason":"system"}`, id) {
		t.Fatalf("last event %s %s", last.Name, last.Data)
	}
	if b := e.balance(t, a.APIKey); dollars(b.Debt) != 0.288 { // 72 hours of 0.004 stay owed
		t.Fatalf("debt = %v, want 0.288", dollars(b.Debt))
	}
	e.wantReconciled(t, a.ID)
}

func TestRenewOffExpires(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 1_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	e.clock.Advance(30 * time.Minute)
	e.do(t, request{Method: http.MethodPatch, Path: fmt.Sprintf("/instances/%d", id), Key: a.APIKey, Body: `{"renew": false}`}).
		WantStatus(t, http.StatusOK, "")
	e.clock.Advance(30 * time.Minute)
	e.runDue(t)
	in := e.getInstance(t, a.APIKey, id)
	if in.Active || *in.Status != "expired" || *in.ExpiredAt != "2025-06-01T11:00:00Z" || dollars(*in.PaidAmount) != 0.004 || !in.Locked {
		t.Fatalf("at renewal_due with renew off: %+v", in)
	}
	evs := e.events(t, a.ID)
	var data map[string]any
	if err := json.Unmarshal(evs[len(evs)-1].Data, &data); err != nil {
		t.Fatal(err)
	}
	if evs[len(evs)-1].Name != "instance.canceled" || data["status"] != "expired" || data["reason"] != "system" {
		t.Fatalf("last event %s %v, want instance.canceled expired/system", evs[len(evs)-1].Name, data)
	}
	if b := e.balance(t, a.APIKey); dollars(b.Balance) != 0.996 || b.ActiveInstances != 0 || b.HoursUntilBalanceZero != nil {
		t.Fatalf("wallet = %+v, want 0.996 with nothing renewing", b)
	}
	e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/instances/%d", id), Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
	if got := e.getInstance(t, a.APIKey, id); *got.Status != "expired" {
		t.Fatalf("DELETE of an expired instance changed its status to %s", *got.Status)
	}
}

func TestHoursUntilBalanceZero(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 1_000_000)
	if b := e.balance(t, a.APIKey); b.HoursUntilBalanceZero != nil || b.ActiveInstances != 0 {
		t.Fatalf("no instances: %+v, want hours null", b)
	}
	e.deployed(t, a.APIKey, ubuntuOn101)                                                     // 0.004/h
	big := e.deployed(t, a.APIKey, `{"server_id": 102, "template_id": 1, "term": "hourly"}`) // 0.008/h
	b := e.balance(t, a.APIKey)
	if dollars(b.Balance) != 0.988 || b.ActiveInstances != 2 || b.HoursUntilBalanceZero == nil || *b.HoursUntilBalanceZero != 82.33 {
		t.Fatalf("two instances: %+v, want 0.988 / 0.012 = 82.33 hours", b)
	}
	e.do(t, request{Method: http.MethodPatch, Path: fmt.Sprintf("/instances/%d", big), Key: a.APIKey, Body: `{"renew": false}`}).
		WantStatus(t, http.StatusOK, "")
	if b := e.balance(t, a.APIKey); *b.HoursUntilBalanceZero != 247 {
		t.Fatalf("one renewing: %v hours, want 0.988 / 0.004 = 247", *b.HoursUntilBalanceZero)
	}
	e.placed(t, a.APIKey, ubuntuOn101) // reserves 0.004 of what is available
	if b := e.balance(t, a.APIKey); *b.HoursUntilBalanceZero != 246 || b.PendingOrders != 1 {
		t.Fatalf("with a pending order: %+v, want 0.984 / 0.004 = 246", b)
	}
}

// TestLongRunReconciles drives one account through 400 simulated hours of orders, renewals,
// top-ups, resizes, IP changes, renew switches, cancellations, snapshots taken, restored and
// deleted, then checks that the ledger sums to the balance and the debt, and that every charge
// on an instance and on a snapshot is in the ledger.
func TestLongRunReconciles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	a := e.funded(t, 2_000_000)
	plans := []string{ubuntuOn101, `{"server_id": 201, "template_id": 1, "term": "hourly", "active_features": ["4"]}`,
		`{"server_id": 102, "template_id": 5, "term": "hourly"}`}
	statuses := map[int]int{}
	for h := 1; h <= 400; h++ {
		e.clock.Advance(time.Hour)
		if h%5 == 0 {
			e.clock.Advance(17 * time.Minute) // keep actions off the hour boundary
		}
		e.runDue(t)
		active := e.activeIDs(t, a.APIKey)
		switch {
		case h%60 == 0:
			if err := e.srv.TopUp(ctx, a.ID, 1_500_000, "card"); err != nil {
				t.Fatal(err)
			}
		case h%25 == 1:
			statuses[e.order(t, a.APIKey, "", plans[(h/25)%len(plans)]).Status]++
		case h%45 == 5 && len(active) > 0:
			statuses[e.action(t, a.APIKey, active[0], `{"action": "resize", "server_id": 103}`).Status]++
		case h%15 == 7 && len(active) > 0:
			statuses[e.action(t, a.APIKey, active[len(active)-1], `{"action": "change_ip", "accept_cost": 0.5}`).Status]++
		case h%70 == 3 && len(active) > 1:
			statuses[e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/instances/%d", active[len(active)-1]), Key: a.APIKey}).Status]++
		case h%90 == 10 && len(active) > 0:
			statuses[e.do(t, request{Method: http.MethodPatch, Path: fmt.Sprintf("/instances/%d", active[0]), Key: a.APIKey, Body: `{"renew": false}`}).Status]++
		case h%20 == 11 && len(active) > 0:
			statuses[e.snap(t, a.APIKey, active[h%len(active)], "").Status]++
		case h%40 == 13:
			if snaps := e.listSnapshots(t, a.APIKey, ""); len(snaps) > 0 {
				statuses[e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/snapshots/%d", snaps[len(snaps)-1].ID), Key: a.APIKey}).Status]++
			}
		case h%50 == 17:
			if snaps := e.listSnapshots(t, a.APIKey, ""); len(snaps) > 0 {
				statuses[e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/snapshots/%d/restore", snaps[0].ID), Key: a.APIKey}).Status]++
			}
		}
		e.runDue(t) // as the background loop would, moments later
		e.wantReconciled(t, a.ID)
	}
	t.Logf("answers over the run: %v", statuses)
	if statuses[http.StatusCreated] < 5 || statuses[http.StatusOK] < 5 {
		t.Fatalf("answers %v: the run exercised too little", statuses)
	}

	acct, entries := e.ledger(t, a.ID)
	var charged, snapshotCharged, payments money.Micros
	kinds := map[string]int{}
	for _, en := range entries {
		kinds[en.Kind]++
		switch en.Kind {
		case store.LedgerPayment:
			payments += en.Amount
		case store.LedgerOrder, store.LedgerRenewal, store.LedgerResize, store.LedgerIPChange:
			charged += -en.Amount + en.Debt
		case store.LedgerSnapshot:
			snapshotCharged += -en.Amount + en.Debt
		}
	}
	snaps, err := e.database(t).Snapshots(ctx, a.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	var snapshotPaid money.Micros
	for _, s := range snaps {
		snapshotPaid += s.Paid
	}
	if snapshotCharged != snapshotPaid || len(snaps) < 5 {
		t.Fatalf("the ledger charged %v for snapshots, the %d snapshots were charged %v", snapshotCharged, len(snaps), snapshotPaid)
	}
	var paid money.Micros
	all, _, err := e.database(t).Instances(ctx, a.ID, false, store.All)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range all {
		paid += in.Paid
	}
	if charged != paid {
		t.Fatalf("the ledger charged %v, the instances were charged %v", charged, paid)
	}
	if payments-charged-snapshotCharged != acct.Balance-acct.Debt {
		t.Fatalf("payments %v - charges %v - snapshot charges %v, want balance - debt = %v", payments, charged, snapshotCharged,
			acct.Balance-acct.Debt)
	}
	for _, kind := range []string{store.LedgerOrder, store.LedgerRenewal, store.LedgerPayment, store.LedgerSnapshot} {
		if kinds[kind] == 0 {
			t.Fatalf("no %s entries in %v", kind, kinds)
		}
	}
	t.Logf("ledger entries by kind: %v; balance %v, debt %v", kinds, acct.Balance, acct.Debt)
}

// activeIDs lists the ids of the account's active instances, oldest first.
func (e *env) activeIDs(t *testing.T, key string) []int64 {
	t.Helper()
	var list []api.InstanceDetailView
	e.do(t, request{Path: "/instances", Key: key}).Data(t, &list)
	var ids []int64
	for _, in := range list {
		ids = append(ids, in.ID)
	}
	slices.Reverse(ids)
	return ids
}
