package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// Plan 101 (Standard 1, Tehran) with template 1 (Ubuntu 24.04): a Linux server, so a machine.
const (
	planID     = 101
	templateID = 1
)

// Pacing of the bench's reads. GET /orders allows 60 a minute per key (the spec's 60 to 120
// for read routes; resellerd gives order reads 60): each account polls its list a little less
// often than once a second. An SSH attempt that fails is retried after sshRetry.
const (
	pollEvery    = 1050 * time.Millisecond
	sshRetry     = 50 * time.Millisecond
	sshTimeout   = 2 * time.Second
	loginsWithin = 5 * time.Minute // a bound for the whole login phase, far beyond the goal
	// attemptTimeout bounds one SSH attempt once its TCP connection is up: the handshake, the
	// login, the session and `hostname`. x/crypto/ssh's ClientConfig.Timeout bounds the dial
	// alone, so without it an attempt whose server never answers waits forever. An attempt that
	// runs out is counted as hung, with the step it was at, and tried again.
	attemptTimeout = 10 * time.Second
)

// login is one server's way from its order to its first working SSH login.
type login struct {
	index       int
	key         string // its account's API key
	hostname    string
	orderID     int64
	instanceID  int64
	ipv4        string
	sshUser     string // credentials.username and credentials.password, never printed
	sshPassword string
	posted      time.Time // POST /instances sent (the bench's clock)
	finished    time.Time // the order's finished_at as the API reports it (whole seconds)
	stored      time.Time // the same instant as the store keeps it (nanoseconds); zero if unread
	seen        time.Time // the bench's poll first saw the order deployed with its credentials
	loggedIn    time.Time // `hostname` answered the ordered hostname over SSH
	attempts    int       // SSH attempts, the working one included
	refused     int       // attempts whose password was refused
	hung        []hang    // attempts that ran out of attemptTimeout after their connection was up
}

// hang is one SSH attempt that got its TCP connection and then nothing for attemptTimeout.
type hang struct {
	at    time.Time // when the attempt started
	step  string    // what it was waiting for: "handshake", "session", "hostname"
	local string    // the connection's local address (to find it in captures and serve's log)
	seen  string    // both ends of the connection in the kernel's tables (diagnose.go)
}

// deployed is the order's deployment time: the store's when read, else the API's.
func (l login) deployed() time.Time {
	if !l.stored.IsZero() {
		return l.stored
	}
	return l.finished
}

// orderAndLogIn orders o.n servers at once, perAccount on each account, and logs into each
// as soon as the API has handed out its address and password.
func orderAndLogIn(ctx context.Context, o options, s *serve) ([]login, error) {
	logins := make([]login, o.n)
	for i := range logins {
		logins[i] = login{index: i, key: s.keys[i/perAccount], hostname: "bench-" + strconv.Itoa(i)}
	}
	if err := orderAll(ctx, s, logins); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, loginsWithin)
	defer cancel()
	byOrder := map[int64]*login{}
	for i := range logins {
		byOrder[logins[i].orderID] = &logins[i]
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(s.keys)+o.n)
	for _, key := range s.keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := pollOrders(ctx, s, key, byOrder, func(l *login) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := logIn(ctx, l, s.pid()); err != nil {
						errs <- err
					}
				}()
			}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return nil, err
	}
	return logins, nil
}

// orderAll sends every POST /instances at once and records each order id.
func orderAll(ctx context.Context, s *serve, logins []login) error {
	var wg sync.WaitGroup
	errs := make([]error, len(logins))
	for i := range logins {
		l := &logins[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"server_id": %d, "template_id": %d, "term": "hourly", "hostname": %q}`, planID, templateID, l.hostname)
			l.posted = time.Now()
			status, b, err := s.send(ctx, l.key, "POST", "/instances", []byte(body))
			if err != nil || status != 201 {
				errs[i] = fmt.Errorf("POST /instances for %s: %d %s: %v", l.hostname, status, b, err)
				return
			}
			var created struct {
				Data struct {
					OrderID int64 `json:"order_id"`
				} `json:"data"`
			}
			if err := json.Unmarshal(b, &created); err != nil || created.Data.OrderID == 0 {
				errs[i] = fmt.Errorf("POST /instances for %s: no order_id in %s", l.hostname, b)
				return
			}
			l.orderID = created.Data.OrderID
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// orderItem is what the bench reads of an item of GET /orders.
type orderItem struct {
	OrderID    int64        `json:"order_id"`
	Status     string       `json:"status"`
	FinishedAt string       `json:"finished_at"`
	Server     *orderServer `json:"server"`
}

type orderServer struct {
	ID          int64        `json:"id"`
	Credentials *credentials `json:"credentials"`
}

type credentials struct {
	Username string `json:"username"`
	Password string `json:"password"`
	Port     int    `json:"port"`
	IPv4     string `json:"ipv4"`
	Pending  bool   `json:"pending"`
}

// pollOrders reads the account's order list every pollEvery until each of its orders is
// deployed with its credentials delivered, and hands each such order to ready once.
func pollOrders(ctx context.Context, s *serve, key string, byOrder map[int64]*login, ready func(*login)) error {
	waiting := 0
	for _, l := range byOrder {
		if l.key == key {
			waiting++
		}
	}
	handed := map[int64]bool{}
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for waiting > 0 {
		status, b, err := s.call(ctx, key, "GET", "/orders")
		if err != nil || status != 200 {
			return fmt.Errorf("GET /orders: %d %s: %v", status, b, err)
		}
		now := time.Now()
		var list struct {
			Data []orderItem `json:"data"`
		}
		if err := json.Unmarshal(b, &list); err != nil {
			return fmt.Errorf("GET /orders: %w", err)
		}
		for _, it := range list.Data {
			l, ok := byOrder[it.OrderID]
			if !ok || l.key != key || handed[it.OrderID] {
				continue
			}
			if it.Status == "timed_out" {
				return fmt.Errorf("order %d (%s) timed out", it.OrderID, l.hostname)
			}
			if err := l.take(it, now); err != nil {
				return err
			}
			if !l.seen.IsZero() {
				handed[it.OrderID] = true
				waiting--
				ready(l)
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for orders: %w", ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}

// take records a deployed order's time, server and credentials, marking it seen at now once
// the credentials are no longer pending.
func (l *login) take(it orderItem, now time.Time) error {
	if it.Status != "deployed" || it.Server == nil || it.Server.Credentials == nil {
		return nil
	}
	finished, err := time.Parse(time.RFC3339, it.FinishedAt)
	if err != nil {
		return fmt.Errorf("order %d: finished_at %q: %w", it.OrderID, it.FinishedAt, err)
	}
	c := it.Server.Credentials
	l.finished, l.instanceID = finished, it.Server.ID
	if c.Pending || c.IPv4 == "" || c.Password == "" {
		return nil
	}
	if c.Port != 22 {
		return fmt.Errorf("order %d: credentials.port %d, want 22 (is the server a machine?)", it.OrderID, c.Port)
	}
	l.ipv4, l.seen = c.IPv4, now
	l.sshUser, l.sshPassword = c.Username, c.Password
	return nil
}

// logIn tries SSH every sshRetry until `hostname` answers the ordered hostname; servePID is
// for looking at an attempt that hangs.
func logIn(ctx context.Context, l *login, servePID int) error {
	cfg := &ssh.ClientConfig{
		User: l.sshUser,
		Auth: []ssh.AuthMethod{ssh.Password(l.sshPassword)},
		// A machine's host key is made at its first boot and the API does not publish it.
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), //nolint:gosec // see above
		Timeout:         sshTimeout,
	}
	addr := net.JoinHostPort(l.ipv4, "22")
	var last error
	for {
		l.attempts++
		started := time.Now()
		seen, hung := "", false
		out, step, local, err := runHostname(ctx, addr, cfg, func(local string) { seen, hung = diagnoseHang(servePID, local), true })
		if hung {
			l.hung = append(l.hung, hang{at: started, step: step, local: local, seen: seen})
			fmt.Fprintf(os.Stderr, "bench: %s at %s from %s hung at the %s for %s: %s\n", l.hostname, l.ipv4, local, step, attemptTimeout, seen)
		}
		if err == nil && out == l.hostname {
			l.loggedIn = time.Now()
			return nil
		}
		if err == nil {
			return fmt.Errorf("%s at %s: hostname answered %q", l.hostname, l.ipv4, out)
		}
		if isRefused(err) {
			l.refused++
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s at %s: no SSH login after %d attempts (last: %v)", l.hostname, l.ipv4, l.attempts, last)
		case <-time.After(sshRetry):
		}
	}
}

// runHostname logs in and runs `hostname`, returning its output without the newline, within
// sshTimeout for the dial and attemptTimeout for the rest; on an error, step is what the
// attempt was waiting for and local its connection's local address. A connection that runs
// out of attemptTimeout is shown to hung before it is closed.
func runHostname(ctx context.Context, addr string, cfg *ssh.ClientConfig, hung func(local string)) (out, step, local string, err error) {
	step = "dial"
	conn, err := (&net.Dialer{Timeout: sshTimeout}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", step, "", err
	}
	local = conn.LocalAddr().String()
	defer conn.Close()
	deadline := time.Now().Add(attemptTimeout)
	defer func() {
		// x/crypto/ssh reports the deadline as a timeout in the handshake, and as the
		// connection's end (EOF) in a session: the clock tells.
		if err != nil && !time.Now().Before(deadline) {
			hung(local)
		}
	}()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	_ = conn.SetDeadline(deadline)
	step = "handshake"
	sc, chans, reqs, err := ssh.NewClientConn(conn, addr, cfg)
	if err != nil {
		return "", step, local, err
	}
	// Neither the client nor the session is closed on its own: closing conn, last, ends both,
	// and a hung attempt's connection is still open when it is looked at.
	client := ssh.NewClient(sc, chans, reqs)
	step = "session"
	session, err := client.NewSession()
	if err != nil {
		return "", step, local, err
	}
	step = "hostname"
	b, err := session.Output("hostname")
	return string(bytes.TrimSpace(b)), step, local, err
}

// isRefused says whether err is the server refusing the password (not a network error).
func isRefused(err error) bool {
	return err != nil && bytes.Contains([]byte(err.Error()), []byte("unable to authenticate"))
}
