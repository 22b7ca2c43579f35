package agent

import (
	"net"
	"sync"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/machineinit"
)

// activity counts what runs through the agent: its own boot (until SSH is ready), every open
// SSH and console connection, every script the host runs. While any does, the agent collects
// garbage with the host's settings (GOGC=50); when the count falls to zero it collects once,
// gives the memory back, and turns collecting off until the next (machineinit.Idle: an idle
// machine's agent is then woken by nothing of Go's but its monitor thread, once a minute).
// Allocations outside the count (a ping from the host, a log line) are few and small, and the
// idle memory limit collects them should they add up.
type activity struct {
	busy machineinit.GC // the collector's settings while something runs

	mu sync.Mutex
	n  int
}

// newActivity counts the agent's boot as one activity: end it once the agent is ready.
func newActivity() *activity {
	return &activity{busy: machineinit.CurrentGC(), n: 1}
}

// begin counts one more activity, turning collecting back on when it is the only one.
func (a *activity) begin() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n == 0 {
		machineinit.Busy(a.busy)
	}
	a.n++
}

// end counts one activity less; the last one's end makes the agent idle. The lock is held
// through Idle so that a begin meanwhile finds collecting off and turns it on again after.
func (a *activity) end() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n--; a.n == 0 {
		machineinit.Idle()
	}
}

// counted is a listener whose connections count as activities from their accept to their
// first Close (package sshd closes every connection it accepts).
func (a *activity) counted(ln net.Listener) net.Listener { return &countedListener{Listener: ln, a: a} }

type countedListener struct {
	net.Listener
	a *activity
}

func (l *countedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.a.begin()
	return &countedConn{Conn: c, end: sync.OnceFunc(l.a.end)}, nil
}

type countedConn struct {
	net.Conn
	end func() // once
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.end()
	return err
}
