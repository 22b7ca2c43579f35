// Package console serves the machines' consoles in the browser under --machines sandbox: the
// `console` action issues a session (Consoles.Issue), whose URL, {public URL}/console/{token},
// is a page asking the session's password, then a terminal (xterm.js, vendored in assets/ with
// its licence and embedded) on a root shell on the machine's PTY, carried over a WebSocket
// (github.com/coder/websocket).
//
// A session lives TTL (--console-ttl): after it the URL answers 410 Gone and its open
// terminals are hung up. Five wrong passwords end it the same way. The password is compared in
// constant time (the SHA-256 of both, with crypto/subtle); sessions are found by the SHA-256
// of their token, so a lookup's timing says nothing of the token. The WebSocket accepts only
// the page's own origin, the public URL's: a page elsewhere cannot drive a console open in the
// same browser. The token is a secret in a path: the access log and dev's journal show it
// redacted (RedactPath), and the page is served with Referrer-Policy: no-referrer and
// Cache-Control: no-store.
//
// Sessions live in this process's memory: a console does not survive a restart of resellerd
// (its URL then answers 404), and is served by the replica that issued it. A customer asks the
// action again for a new one; nothing of a console is worth keeping in the database.
package console

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
)

// DefaultTTL is how long a console URL lives unless --console-ttl says otherwise.
const DefaultTTL = 10 * time.Minute

// MaxWrongPasswords is how many wrong passwords end a session.
const MaxWrongPasswords = 5

// endedKept is how long an ended session's token still answers 410 (not 404): long enough for
// the person who had it open to be told it expired, short enough that the sessions of a busy
// day are not all kept.
const endedKept = time.Hour

// Terminal is a shell on a machine's PTY (machines.Terminal).
type Terminal interface {
	io.ReadWriteCloser
	Resize(cols, rows int) error
}

// OpenFunc opens a root shell on machine ref's PTY, cols by rows.
type OpenFunc func(ctx context.Context, ref string, cols, rows int) (Terminal, error)

// Options shape Consoles.
type Options struct {
	// PublicURL is how customers reach resellerd (--public-url); "" until SetPublicURL.
	PublicURL string
	TTL       time.Duration // 0: DefaultTTL
	Open      OpenFunc
	Logger    *slog.Logger // nil: discard
	// Now tells the time of expiry; nil: time.Now. Sessions end on real timers.
	Now func() time.Time
}

// Consoles are the console sessions this process issued, and their pages.
type Consoles struct {
	open   OpenFunc
	ttl    time.Duration
	log    *slog.Logger
	now    func() time.Time
	public atomic.Pointer[url.URL]

	mu       sync.Mutex
	sessions map[[sha256.Size]byte]*session // by the SHA-256 of the token
}

// session is one console URL.
type session struct {
	ref      string
	password [sha256.Size]byte // the SHA-256 of the password
	expires  time.Time

	ctx  context.Context // ends when the session does: its terminals are hung up
	end  context.CancelFunc
	stop func() bool // stops the expiry timer

	mu       sync.Mutex
	failures int
	ended    bool
	endedAt  time.Time
	why      string // why it ended: expiredReason or wrongReason
}

// Why a session ended, as the page is told.
const (
	expiredReason = "expired"
	wrongReason   = "too many wrong passwords"
)

// New returns an empty set of consoles.
func New(o Options) (*Consoles, error) {
	if o.Open == nil {
		return nil, errors.New("console: Options.Open is required")
	}
	if o.TTL < 0 {
		return nil, errors.New("console: the TTL must not be negative")
	}
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	c := &Consoles{open: o.Open, ttl: o.TTL, log: o.Logger, now: o.Now, sessions: map[[sha256.Size]byte]*session{}}
	if o.PublicURL != "" {
		if err := c.SetPublicURL(o.PublicURL); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// SetPublicURL sets how customers reach resellerd: the consoles' URLs start with it. It is set
// after the listener opens when --public-url is not given (the listener's own URL).
func (c *Consoles) SetPublicURL(raw string) error {
	u, err := ParsePublicURL(raw)
	if err != nil {
		return err
	}
	c.public.Store(u)
	return nil
}

// ParsePublicURL checks a --public-url: an absolute http or https URL with a host, without
// query, fragment or credentials; a trailing slash is dropped.
func ParsePublicURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, fmt.Errorf("--public-url: %w", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("--public-url must be an http:// or https:// URL, not %q", raw)
	case u.Host == "":
		return nil, fmt.Errorf("--public-url must name a host: %q", raw)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("--public-url must have no credentials, query or fragment: %q", raw)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// Issue opens a session on machine ref: its URL, a fresh password, and when it expires.
func (c *Consoles) Issue(ref string) (datacenter.Console, error) {
	public := c.public.Load()
	if public == nil {
		return datacenter.Console{}, errors.New("console: no public URL yet")
	}
	token, password := randomText(32), newPassword()
	ctx, end := context.WithCancel(context.Background())
	s := &session{ref: ref, password: sha256.Sum256([]byte(password)), expires: c.now().Add(c.ttl), ctx: ctx, end: end}
	timer := time.AfterFunc(c.ttl, func() { c.endSession(s, expiredReason) })
	s.stop = timer.Stop
	c.mu.Lock()
	c.forgetOld()
	c.sessions[sha256.Sum256([]byte(token))] = s
	c.mu.Unlock()
	return datacenter.Console{URL: public.String() + Prefix + token, Password: password, ExpiresAt: s.expires}, nil
}

// Prefix is the path every console URL starts with.
const Prefix = "/console/"

// lookup is the session of token, nil when there is none (never issued, or forgotten).
func (c *Consoles) lookup(token string) *session {
	key := sha256.Sum256([]byte(token))
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessions[key]
}

// forgetOld drops the sessions ended more than endedKept ago; c.mu is held.
func (c *Consoles) forgetOld() {
	now := c.now()
	for k, s := range c.sessions {
		s.mu.Lock()
		old := s.ended && now.Sub(s.endedAt) > endedKept
		s.mu.Unlock()
		if old {
			delete(c.sessions, k)
		}
	}
}

// endSession ends s for why: its URL answers 410 from now on and its terminals are hung up.
func (c *Consoles) endSession(s *session, why string) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended, s.endedAt, s.why = true, c.now(), why
	s.mu.Unlock()
	s.stop()
	s.end()
	c.log.Info("console ended", slog.String("machine", s.ref), slog.String("reason", why))
}

// alive says whether s still takes logins.
func (s *session) alive() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.ended
}

// login checks password in constant time; a wrong one counts, and the fifth ends the session.
// It says whether the password was right, and whether the session has ended.
func (c *Consoles) login(s *session, password string) (ok, ended bool) {
	sum := sha256.Sum256([]byte(password))
	ok = subtle.ConstantTimeCompare(sum[:], s.password[:]) == 1
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return false, true
	}
	if ok {
		s.mu.Unlock()
		return true, false
	}
	s.failures++
	failures := s.failures
	s.mu.Unlock()
	c.log.Info("console password refused", slog.String("machine", s.ref), slog.Int("failures", failures))
	if failures >= MaxWrongPasswords {
		c.endSession(s, wrongReason)
		return false, true
	}
	return false, false
}

// Close ends every session; their terminals are hung up.
func (c *Consoles) Close() {
	c.mu.Lock()
	list := make([]*session, 0, len(c.sessions))
	for _, s := range c.sessions {
		list = append(list, s)
	}
	c.mu.Unlock()
	for _, s := range list {
		c.endSession(s, expiredReason)
	}
}

// randomText is n random bytes in unpadded base64url: a token for a URL.
func randomText(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}

// passwordAlphabet leaves out the characters read alike (0/O, 1/l/I): a console password may be
// read off one screen and typed on another.
const passwordAlphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// newPassword is a fresh console password: 20 characters of passwordAlphabet (about 116 bits).
func newPassword() string {
	b := make([]byte, 20)
	for i := range b {
		b[i] = passwordAlphabet[randIndex(len(passwordAlphabet))]
	}
	return string(b)
}

// randIndex is a uniform random index below n (rejection sampling: no modulo bias).
func randIndex(n int) int {
	limit := 256 - 256%n
	var b [1]byte
	for {
		_, _ = rand.Read(b[:])
		if int(b[0]) < limit {
			return int(b[0]) % n
		}
	}
}
