package store

import "time"

// OldestDue is, for each worker queue, when its oldest due item became due (zero: nothing
// waits), for the metric of how far each worker lags behind.
type OldestDue struct {
	Provisioning time.Time // creation of the oldest pending order
	Deliveries   time.Time // due time of the earliest pending webhook delivery
	Renewals     time.Time // earliest renewal of an active instance
	Installs     time.Time // due time of the earliest queued or installing app install step
	Snapshots    time.Time // earliest renewal of a billed snapshot
}
