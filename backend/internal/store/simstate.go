package store

import "time"

// SimMachine is what the simulated datacenter remembers of one machine beyond what its ticket
// says. It lives in the database so that every replica sharing it answers alike.
type SimMachine struct {
	Power    string // the last power status the datacenter reports; "" before any
	Password string // the root password changed out of band; "" while the stored one works
}

// IPPool is a datacenter's clean-address pool and address counter in the simulator, shared by
// every replica so that they draw from one pool.
type IPPool struct {
	Taken  int       // clean addresses taken and not yet back
	Since  time.Time // when the refill clock started; zero before the first take
	Issued int64     // addresses handed out so far; the next one is derived from it
}
