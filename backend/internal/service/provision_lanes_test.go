package service

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// TestDealLanes deals due orders of many accounts, some with many orders, to lanes: every order
// lands in exactly one lane, in its original order, no account is in two lanes (so two lanes
// never wait for each other's account locks), there are never more lanes than asked or than
// accounts, and the lanes are about even.
func TestDealLanes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	var orders []store.Order
	for id := int64(1); id <= 2000; id++ {
		acct := int64(1 + r.IntN(50))
		if id%10 == 0 {
			acct = 7 // one busy account
		}
		orders = append(orders, store.Order{ID: id, AccountID: acct})
	}
	for _, n := range []int{1, 2, 4, 8} {
		lanes := dealLanes(orders, n)
		if len(lanes) != n {
			t.Fatalf("%d lanes asked for, %d dealt", n, len(lanes))
		}
		laneOf := map[int64]int{}
		var all []store.Order
		for i, lane := range lanes {
			if !slices.IsSortedFunc(lane, func(a, b store.Order) int { return int(a.ID - b.ID) }) {
				t.Fatalf("n=%d: lane %d is out of order", n, i)
			}
			for _, o := range lane {
				if l, ok := laneOf[o.AccountID]; ok && l != i {
					t.Fatalf("n=%d: account %d is in lanes %d and %d", n, o.AccountID, l, i)
				}
				laneOf[o.AccountID] = i
			}
			all = append(all, lane...)
			if lo, hi := len(orders)/n*8/10, len(orders)/n*12/10; n > 1 && (len(lane) < lo || len(lane) > hi) {
				t.Fatalf("n=%d: lane %d has %d orders, want %d to %d", n, i, len(lane), lo, hi)
			}
		}
		slices.SortFunc(all, func(a, b store.Order) int { return int(a.ID - b.ID) })
		if !slices.EqualFunc(all, orders, func(a, b store.Order) bool { return a.ID == b.ID && a.AccountID == b.AccountID }) {
			t.Fatalf("n=%d: the lanes hold %d orders, want each of the %d once", n, len(all), len(orders))
		}
	}
	if lanes := dealLanes(orders[:3], 8); len(lanes) > 3 {
		t.Fatalf("3 orders dealt to %d lanes", len(lanes))
	}
}

// TestRunLanesRaisesALanePanicWithItsStack panics in one of three lanes: runLanes waits for the
// other two, then panics in the caller's goroutine with the lane's value and the lane's own
// stack, which names the function that panicked.
func TestRunLanesRaisesALanePanicWithItsStack(t *testing.T) {
	t.Parallel()
	errBoom := errors.New("boom")
	lanes := [][]store.Order{{{ID: 1}}, {{ID: 2}}, {{ID: 3}}}
	var ran atomic.Int32
	defer func() {
		p, ok := recover().(*lanePanic)
		if !ok {
			t.Fatalf("runLanes raised %v, want a *lanePanic", p)
		}
		if !errors.Is(p, errBoom) || !strings.Contains(string(p.Stack), "panickingLane") {
			t.Fatalf("lane panic %v with stack:\n%s\nwant boom, raised in panickingLane", p.Value, p.Stack)
		}
		if ran.Load() != 3 {
			t.Fatalf("%d lanes ran before the panic was raised again, want 3", ran.Load())
		}
	}()
	_ = runLanes(lanes, func(lane []store.Order) error {
		ran.Add(1)
		if lane[0].ID == 2 {
			panickingLane(errBoom)
		}
		return nil
	})
	t.Fatal("runLanes returned after a lane panicked")
}

//go:noinline
func panickingLane(err error) { panic(err) }
