package store

import (
	"context"
	"time"
)

// WorkDue is what the worker loops read to know how long they may sleep. Work that waits on the
// datacenter (a build, an image, an install stage) has no due time in the store and is polled
// while it lasts; scheduled work has one.
type WorkDue struct {
	Provisioning bool      // pending orders or queued or installing app installs: poll
	Accounts     bool      // open snapshots, changed wallets, machines or images to delete: poll
	Renewal      time.Time // the earliest renewal of an active instance or a billed snapshot; zero: none
	Delivery     time.Time // the earliest pending webhook delivery; zero: none
}

// OldestDue is, for each worker queue, when its oldest due item became due (zero: nothing
// waits), for the metric of how far each worker lags behind.
type OldestDue struct {
	Provisioning time.Time // creation of the oldest pending order
	Deliveries   time.Time // due time of the earliest pending webhook delivery
	Renewals     time.Time // earliest renewal of an active instance
	Installs     time.Time // due time of the earliest queued or installing app install step
	Snapshots    time.Time // earliest renewal of a billed snapshot
}

// WorkDueQueries tell the worker loops when they next have work.
type WorkDueQueries interface {
	// WorkDue tells the worker loops, in one read, what they will next have to do.
	WorkDue(ctx context.Context) (WorkDue, error)
}
