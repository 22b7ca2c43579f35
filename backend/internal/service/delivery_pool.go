package service

import (
	"sync"
)

// Bounds of the webhook attempts in flight. An attempt may wait 15 seconds for its receiver, so
// the delivery worker never waits for attempts: it starts them in the background, at most
// maxAttemptsInFlight at once and at most maxAttemptsPerAccount of one account, so one account
// whose receiver hangs holds maxAttemptsPerAccount connections and delays no other account.
const (
	maxAttemptsInFlight   = 32
	maxAttemptsPerAccount = 4
)

// attemptPool counts the attempts in flight, in total and per account, and lets RunDue and the
// shutdown wait for them. The waiting is a condition on the count, not a sync.WaitGroup: slots
// are taken while others wait (the delivery loop beside RunDue, or two RunDue at once), and a
// WaitGroup panics when an Add meets a Wait that is returning.
type attemptPool struct {
	mu         sync.Mutex
	idle       sync.Cond // broadcast, under mu, when total falls to 0
	total      int
	perAccount map[int64]int
}

func newAttemptPool() *attemptPool {
	p := &attemptPool{perAccount: map[int64]int{}}
	p.idle.L = &p.mu
	return p
}

// take reserves a slot for an attempt of account; it reports false when the pool or the
// account is full. A reserved slot is given back with give.
func (p *attemptPool) take(account int64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.total >= maxAttemptsInFlight || p.perAccount[account] >= maxAttemptsPerAccount {
		return false
	}
	p.total++
	p.perAccount[account]++
	return true
}

// give returns the slot of an attempt of account that has ended (or was never started).
func (p *attemptPool) give(account int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total--
	if p.perAccount[account]--; p.perAccount[account] <= 0 {
		delete(p.perAccount, account)
	}
	if p.total == 0 {
		p.idle.Broadcast()
	}
}

// busy lists the accounts with no slot left, whose due deliveries need not be read; full
// reports whether the pool has no slot at all.
func (p *attemptPool) busy() (accounts []int64, full bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, n := range p.perAccount {
		if n >= maxAttemptsPerAccount {
			accounts = append(accounts, id)
		}
	}
	return accounts, p.total >= maxAttemptsInFlight
}

// wait returns once no attempt is in flight: every attempt started so far has ended, and so
// have those started meanwhile.
func (p *attemptPool) wait() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.total > 0 {
		p.idle.Wait()
	}
}
