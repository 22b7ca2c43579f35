package service

import "github.com/reseller/terraform-provider-reseller/backend/internal/store"

// Outcomes of a recorded delivery attempt, as Config.OnDelivery is told them.
const (
	OutcomeDelivered = "delivered" // the receiver answered 2xx
	OutcomeRetry     = "retry"     // the attempt failed; another is scheduled
	OutcomeFailed    = "failed"    // the last attempt failed; the delivery is given up
	OutcomeSkipped   = "skipped"   // the account removed its webhook before the attempt
)

// deliveryOutcome names what a recorded attempt of d came to.
func deliveryOutcome(d store.Delivery) string {
	switch d.Status {
	case store.DeliveryDelivered:
		return OutcomeDelivered
	case store.DeliveryFailed:
		return OutcomeFailed
	case store.DeliverySkipped:
		return OutcomeSkipped
	default:
		return OutcomeRetry
	}
}
