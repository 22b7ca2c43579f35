package apitest

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"
)

// lowBalanceEvents returns the data of the account's balance.low events, oldest first.
func (e *env) lowBalanceEvents(t *testing.T, accountID int64) []map[string]float64 {
	t.Helper()
	var out []map[string]float64
	for _, ev := range e.events(t, accountID) {
		if ev.Name != "balance.low" {
			continue
		}
		var data map[string]float64
		if err := json.Unmarshal(ev.Data, &data); err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

// TestBalanceLow: as renewals draw the wallet down, balance.low is sent once at each of 24, 12,
// 6, 2 and 1 hours before it runs out; a top-up that lifts the estimate above a threshold again
// makes that threshold count anew.
func TestBalanceLow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 124_000) // after the 0.004 order, 0.12: 30 hours of 0.004
	e.deployed(t, a.APIKey, ubuntuOn101)
	if got := e.lowBalanceEvents(t, a.ID); len(got) != 0 {
		t.Fatalf("balance.low at 30 hours: %v", got)
	}
	var hours []float64
	for range 31 {
		e.clock.Advance(time.Hour)
		e.runDue(t)
	}
	for _, data := range e.lowBalanceEvents(t, a.ID) {
		hours = append(hours, data["hours_until_balance_zero"])
	}
	if !slices.Equal(hours, []float64{24, 12, 6, 2, 1}) {
		t.Fatalf("balance.low sent at %v hours, want once at each of 24, 12, 6, 2, 1", hours)
	}
	if first := e.lowBalanceEvents(t, a.ID)[0]; first["balance"] != 0.096 {
		t.Fatalf("first balance.low data = %v, want balance 0.096", first)
	}

	// A top-up to 30 hours again: the next crossing of 24 hours is announced again.
	if err := e.srv.TopUp(context.Background(), a.ID, 124_000, "card"); err != nil { // pays 0.004 of debt
		t.Fatal(err)
	}
	e.runDue(t)
	if b := e.balance(t, a.APIKey); *b.HoursUntilBalanceZero != 30 {
		t.Fatalf("after the top-up: %v hours, want 30", *b.HoursUntilBalanceZero)
	}
	for range 6 {
		e.clock.Advance(time.Hour)
		e.runDue(t)
	}
	got := e.lowBalanceEvents(t, a.ID)
	if len(got) != 6 || got[5]["hours_until_balance_zero"] != 24 {
		t.Fatalf("after the top-up and six hours: %v, want a sixth balance.low at 24 hours", got)
	}
}
