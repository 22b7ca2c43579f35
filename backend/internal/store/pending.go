package store

import "time"

// Pending is a status change that happens by itself at a due time: an instance that is
// rebooting becomes online, a snapshot that is restoring becomes available. Nothing runs at
// that time; the change is applied lazily, when a reader asks for the status (StatusAt) and
// when a writer or a worker next saves the row (Settle), so the row says what is true.
type Pending struct {
	Status string    // what the status becomes at At; "" when nothing is pending
	At     time.Time // when; zero when nothing is pending
}

// PendingTo is a change to status due at at.
func PendingTo(status string, at time.Time) Pending { return Pending{Status: status, At: at} }

// Due reports whether a change is pending and its time has come at now.
func (p Pending) Due(now time.Time) bool { return p.Status != "" && !now.Before(p.At) }

// StatusAt is what current is at now: the pending status once it is due.
func (p Pending) StatusAt(current string, now time.Time) string {
	if p.Due(now) {
		return p.Status
	}
	return current
}

// Settle writes a change that is due at now into *status and clears it.
func (p *Pending) Settle(status *string, now time.Time) {
	if p.Due(now) {
		*status, *p = p.Status, Pending{}
	}
}
