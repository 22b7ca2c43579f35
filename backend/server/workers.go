package server

import (
	"net/http"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// workerLoop is one background loop: its steps, the signal that wakes it before its due time,
// and what of store.WorkDue it waits for (poll: work waits on the datacenter, so tick every
// interval; at: the next scheduled work, zero for none).
type workerLoop struct {
	steps []step
	wake  chan struct{}
	due   func(store.WorkDue) (poll bool, at time.Time)
	feeds []workerLoop // loops woken after each tick: the work this loop's steps make for them
}

func newWorkerLoop(steps []step, due func(store.WorkDue) (bool, time.Time), feeds ...workerLoop) workerLoop {
	return workerLoop{steps: steps, wake: make(chan struct{}, 1), due: due, feeds: feeds}
}

// signal has l run its steps at its next chance; a signal already pending covers this one.
func (l workerLoop) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// wakingAfterWrites calls wake after every request that may have written (any method but GET,
// HEAD and OPTIONS), once the handler has answered and so committed: an order is picked up at
// once, not at the workers' next due time.
func wakingAfterWrites(next http.Handler, wake func()) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			wake()
		}
	})
}
