package sshd

import (
	"net"
	"sync"
	"time"
)

// The bounds per source address (fail2ban's and OpenSSH's PerSourcePenalties' idea, in the
// server): a machine's password is all that guards it, and one client must not keep the
// server's connections for itself.
const (
	// maxConnsPerAddr bounds the connections one address has open at once (handshakes and
	// logins included); the next is closed as soon as it is accepted.
	maxConnsPerAddr = 64
	// maxFailedPasswords refused within failWindow refuse the address for refuseFor: its new
	// connections are closed before the handshake, and its open ones get every attempt refused.
	maxFailedPasswords = 10
	failWindow         = time.Minute
	refuseFor          = time.Minute
	// sweepAbove is the number of addresses tracked past which the expired ones are dropped,
	// so the table stays as small as the addresses active in the last minute.
	sweepAbove = 256
)

// addrLimits counts, per source address, the connections open and the passwords refused.
type addrLimits struct {
	now func() time.Time

	mu    sync.Mutex
	addrs map[string]*addrState
}

// addrState is one address's count: its open connections, the start and size of its current
// window of refused passwords, and until when it is refused.
type addrState struct {
	conns       int
	windowStart time.Time
	failures    int
	refusedTill time.Time
}

func newAddrLimits(now func() time.Time) *addrLimits {
	return &addrLimits{now: now, addrs: map[string]*addrState{}}
}

// sourceOf is the address a connection's limits count against: its IP without the port.
func sourceOf(a net.Addr) string {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// open counts a new connection from addr, or says why it must be closed at once: "" when it
// may go on, else the reason.
func (l *addrLimits) open(addr string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if len(l.addrs) > sweepAbove {
		l.sweep(now)
	}
	st := l.addrs[addr]
	if st == nil {
		st = &addrState{}
		l.addrs[addr] = st
	}
	switch {
	case now.Before(st.refusedTill):
		return "too many failed passwords"
	case st.conns >= maxConnsPerAddr:
		return "too many connections"
	}
	st.conns++
	return ""
}

// close counts a connection from addr gone.
func (l *addrLimits) close(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if st := l.addrs[addr]; st != nil && st.conns > 0 {
		st.conns--
	}
}

// refused says whether addr is refused now (every attempt of its open connections fails).
func (l *addrLimits) refused(addr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.addrs[addr]
	return st != nil && l.now().Before(st.refusedTill)
}

// failed counts a refused password from addr; it returns true when this one starts the
// address's refusal (so that it is logged once).
func (l *addrLimits) failed(addr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	st := l.addrs[addr]
	if st == nil {
		st = &addrState{}
		l.addrs[addr] = st
	}
	if now.Before(st.refusedTill) {
		return false
	}
	if now.Sub(st.windowStart) >= failWindow {
		st.windowStart, st.failures = now, 0
	}
	st.failures++
	if st.failures < maxFailedPasswords {
		return false
	}
	st.refusedTill, st.failures = now.Add(refuseFor), 0
	return true
}

// sweep drops the addresses with no connection, no refusal and no failure in the window.
func (l *addrLimits) sweep(now time.Time) {
	for addr, st := range l.addrs {
		if st.conns == 0 && !now.Before(st.refusedTill) && now.Sub(st.windowStart) >= failWindow {
			delete(l.addrs, addr)
		}
	}
}
