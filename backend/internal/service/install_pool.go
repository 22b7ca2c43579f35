package service

import "sync"

// installWorkers bounds the installs whose stage runs at once. A stage may call into the
// instance's machine and wait there up to the install's bound (Config.InstallTimeout), so the
// install worker never waits for one: it starts each instance's stage in the background (see
// InstallAppsDue), one at a time per instance, so a machine whose installer hangs delays its own
// installs only, and neither the other instances' nor the deploys that share the worker's loop.
const installWorkers = 16

// installPool is the instances whose install stage runs now, and lets RunDue and the shutdown
// wait for them. As attemptPool, the waiting is a condition on the count, not a WaitGroup:
// stages start while others wait.
type installPool struct {
	mu      sync.Mutex
	idle    sync.Cond // broadcast, under mu, when running empties
	running map[int64]bool
}

func newInstallPool() *installPool {
	p := &installPool{running: map[int64]bool{}}
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

// wait returns once no stage runs.
func (p *installPool) wait() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.running) > 0 {
		p.idle.Wait()
	}
}
