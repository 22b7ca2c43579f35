package service

import (
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// DeliveryAttempt is one webhook delivery attempt as it was made: what was sent where, and what
// came back. The signing secret is not part of it.
type DeliveryAttempt struct {
	AccountID  int64
	DeliveryID string
	Event      string
	URL        string
	Body       []byte        // the event as sent
	At         time.Time     // the service's time when it was sent
	Elapsed    time.Duration // how long the receiver took, in real time
	Status     int           // the receiver's answer; 0 when there was none
	Err        error         // why there was no answer (refused target, timeout, ...)
}

// DeliveryObserver is told about every webhook delivery attempt, test pings included, once the
// receiver has answered or failed to. `resellerd dev` journals them; it is called from the
// goroutine of the attempt, so it must be safe for concurrent use and quick.
type DeliveryObserver interface {
	DeliveryAttempted(a DeliveryAttempt)
}

// observeAttempt tells the observer, if any, about an attempt of d to w.
func (s *Service) observeAttempt(w store.Webhook, d store.Delivery, at time.Time, elapsed time.Duration, status int, err error) {
	if s.observer == nil {
		return
	}
	s.observer.DeliveryAttempted(DeliveryAttempt{AccountID: d.AccountID, DeliveryID: d.ID, Event: d.Event, URL: w.URL,
		Body: d.Body, At: at, Elapsed: elapsed, Status: status, Err: err})
}
