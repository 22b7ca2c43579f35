package service

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// MaxProvisionLanes bounds Config.ProvisionLanes. Each lane holds at most one connection at a
// time and its batch transaction holds the locks of its accounts while it runs, so lanes take
// connections and account locks from POST /instances; eight is well within the smallest
// PostgreSQL pool the server opens (16).
const MaxProvisionLanes = 8

// provisionLanes moves the due orders in batches, s.lanes batches at once: the orders are
// dealt to lanes by account (dealLanes), so two lanes never lock the same account and never
// wait for each other, and each lane runs its batches one after the other. On PostgreSQL a
// batch spends most of its time waiting for round trips, which lanes overlap; on SQLite, whose
// single writer runs one transaction at a time, one lane is as fast.
func (s *Service) provisionLanes(ctx context.Context, orders []store.Order) error {
	return runLanes(dealLanes(orders, s.lanes), func(lane []store.Order) error {
		return s.provisionLane(ctx, lane)
	})
}

// runLanes runs fn on every lane, each in a goroutine of its own but the only one, and waits
// for them all. A lane's panic is raised again in the caller's goroutine, the worker's, as with
// one lane, once every lane has ended; it carries the lane's stack (lanePanic), which the
// panic's own trace, printed from the caller, would not show.
func runLanes(lanes [][]store.Order, fn func([]store.Order) error) error {
	if len(lanes) == 1 {
		return fn(lanes[0])
	}
	errs := make([]error, len(lanes))
	panics := make([]*lanePanic, len(lanes))
	var wg sync.WaitGroup
	for i, lane := range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					panics[i] = &lanePanic{Value: v, Stack: debug.Stack()}
				}
			}()
			errs[i] = fn(lane)
		}()
	}
	wg.Wait()
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
	return errors.Join(errs...)
}

// lanePanic is a panic of a provisioning lane, with the stack of the goroutine that panicked.
type lanePanic struct {
	Value any
	Stack []byte
}

func (p *lanePanic) Error() string {
	return fmt.Sprintf("provisioning lane: %v\n\n%s", p.Value, p.Stack)
}

// Unwrap is the lane's own panic value when that was an error.
func (p *lanePanic) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// provisionLane moves the orders of one lane, provisionBatchSize at a time.
func (s *Service) provisionLane(ctx context.Context, orders []store.Order) error {
	for batch := range slices.Chunk(orders, provisionBatchSize) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.provisionBatch(ctx, batch); err != nil {
			return err
		}
	}
	return nil
}

// dealLanes splits orders into at most n lanes so that all the orders of an account are in one
// lane, keeping their order. Each account goes, in the order its first order appears, to the
// lane with the fewest orders so far, so the lanes are about even when no account dominates.
func dealLanes(orders []store.Order, n int) [][]store.Order {
	if n <= 1 || len(orders) == 0 {
		return [][]store.Order{orders}
	}
	count := map[int64]int{}
	var accounts []int64
	for _, o := range orders {
		if count[o.AccountID] == 0 {
			accounts = append(accounts, o.AccountID)
		}
		count[o.AccountID]++
	}
	n = min(n, len(accounts))
	load := make([]int, n)
	laneOf := map[int64]int{}
	for _, a := range accounts {
		lane := slices.Index(load, slices.Min(load))
		laneOf[a] = lane
		load[lane] += count[a]
	}
	lanes := make([][]store.Order, n)
	for _, o := range orders {
		lane := laneOf[o.AccountID]
		lanes[lane] = append(lanes[lane], o)
	}
	return lanes
}
