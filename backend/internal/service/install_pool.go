package service

import "sync"

// Bounds of the install stages that run at once. A stage may call into the instance's machine
// and wait there up to the install's bound (Config.InstallTimeout), so the install worker never
// waits for one: it starts each instance's stage in the background (see InstallAppsDue), one at
// a time per instance and at most maxInstallsPerAccount of one account, so a machine whose
// installer hangs delays its own installs only, an account whose every installer hangs holds
// maxInstallsPerAccount workers, and neither delays other accounts' installs nor the deploys
// that share the worker's loop.
const (
	installWorkers        = 16
	maxInstallsPerAccount = 4
)

// installPool is the instances whose install stage runs now, and their accounts' counts, and
// lets RunDue and the shutdown wait for them. As attemptPool, the waiting is a condition on the
// count, not a WaitGroup: stages start while others wait.
type installPool struct {
	mu         sync.Mutex
	idle       sync.Cond // broadcast, under mu, when running empties
	running    map[int64]bool
	perAccount map[int64]int
}

func newInstallPool() *installPool {
	p := &installPool{running: map[int64]bool{}, perAccount: map[int64]int{}}
	p.idle.L = &p.mu
	return p
}

// take reserves the instance's slot; false when a stage of it runs already or the pool is full.
func (p *installPool) take(instanceID int64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running[instanceID] || len(p.running) >= installWorkers {
		return false
	}
	p.running[instanceID] = true
	return true
}

// give returns the instance's slot once its stage has ended.
func (p *installPool) give(instanceID int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, instanceID)
	if len(p.running) == 0 {
		p.idle.Broadcast()
	}
}

// takeAccount reserves one of the account's slots for a stage that holds the instance's;
// false when the account has maxInstallsPerAccount stages running.
func (p *installPool) takeAccount(accountID int64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.perAccount[accountID] >= maxInstallsPerAccount {
		return false
	}
	p.perAccount[accountID]++
	return true
}

// giveAccount returns the account's slot.
func (p *installPool) giveAccount(accountID int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.perAccount[accountID]--; p.perAccount[accountID] <= 0 {
		delete(p.perAccount, accountID)
	}
}

// accountRunning is how many stages of the account run.
func (p *installPool) accountRunning(accountID int64) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.perAccount[accountID]
}

// wait returns once no stage runs.
func (p *installPool) wait() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.running) > 0 {
		p.idle.Wait()
	}
}
