package sshd

import (
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// Port forwarding from the client (`ssh -L`, and `ssh -J` through this machine to another):
// a "direct-tcpip" channel is a TCP connection the server dials on the client's behalf. It is
// dialled from the machine, so it reaches only what the machine itself reaches (its own
// listeners, the other machines; beyond them only with egress); the host's filters apply to it
// as to any of the machine's connections. Remote forwarding (`ssh -R`, "tcpip-forward") stays
// refused: it would open listeners on the machine that no session owns.

// forwardDialTimeout bounds the dial of one forwarded connection.
const forwardDialTimeout = 10 * time.Second

// maxForwards bounds the forwarded connections open at once on one SSH connection.
const maxForwards = 32

// directTCPIP is RFC 4254 7.2's "direct-tcpip" channel payload.
type directTCPIP struct {
	Host       string
	Port       uint32
	OriginHost string
	OriginPort uint32
}

// forward serves one direct-tcpip channel: dial, accept, copy both ways until either side ends,
// or the SSH connection does (gone closed): the target is then closed, so a target that never
// speaks nor closes holds neither the connection's goroutines nor its address's slot.
func (s *server) forward(nc ssh.NewChannel, gone <-chan struct{}) {
	var req directTCPIP
	if err := ssh.Unmarshal(nc.ExtraData(), &req); err != nil || req.Port == 0 || req.Port > 65535 {
		_ = nc.Reject(ssh.ConnectionFailed, "malformed direct-tcpip request")
		return
	}
	addr := net.JoinHostPort(req.Host, strconv.Itoa(int(req.Port)))
	target, err := net.DialTimeout("tcp", addr, forwardDialTimeout)
	if err != nil {
		_ = nc.Reject(ssh.ConnectionFailed, fmt.Sprintf("connect to %s: %v", addr, err))
		return
	}
	ch, reqs, err := nc.Accept()
	if err != nil {
		_ = target.Close()
		return
	}
	go ssh.DiscardRequests(reqs)
	s.log.Debug("ssh forward", "to", addr)
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-gone:
			_ = target.Close()
		case <-finished:
		}
	}()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // client to target; the client's EOF half-closes the target
		defer wg.Done()
		_, _ = copyStream(target, ch)
		if tc, ok := target.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
	}()
	go func() { // target to client
		defer wg.Done()
		_, _ = copyStream(ch, target)
		_ = ch.CloseWrite()
	}()
	wg.Wait()
	_ = ch.Close()
	_ = target.Close()
}
