package acctest

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// Fault is what a FaultProxy does with one request.
type Fault int

// The faults a FaultProxy injects. The first three are answered by the proxy before the backend
// sees the request, as a gateway or a rate limiter in front of the API would; FaultReset lets the
// backend process the request and then resets the connection, so the answer is lost.
const (
	// FaultNone passes the request through untouched.
	FaultNone Fault = iota
	// FaultRateLimited answers 429 with Retry-After: 1.
	FaultRateLimited
	// FaultBadGateway answers 502 with a gateway's plain-text page.
	FaultBadGateway
	// FaultUnavailable answers 503 with a gateway's plain-text page.
	FaultUnavailable
	// FaultReset forwards the request, waits for the backend's whole answer, then resets the
	// client's connection without sending any of it.
	FaultReset
)

var faultNames = [...]string{"none", "429", "502", "503", "reset"}

func (f Fault) String() string { return faultNames[f] }

// FaultRule chooses the fault for a request; it is called once per request, one at a time.
type FaultRule func(r *http.Request) Fault

// RandomFaults injects a fault into a random share (rate, 0 to 1) of requests, the four kinds in
// turn: every four faults in a row are one of each kind, so a test that sees a handful of faults
// has met every kind (with a random kind, one of the four was missing from about 20 faults in
// about one run in 80).
func RandomFaults(rate float64) FaultRule {
	next := FaultRateLimited
	return func(*http.Request) Fault {
		if rand.Float64() >= rate {
			return FaultNone
		}
		f := next
		next = FaultRateLimited + (next-FaultRateLimited+1)%4
		return f
	}
}

// FirstMatching injects f into the first n requests whose method is method and whose path (the
// part after /api/v1) matches path, and passes everything else through.
func FirstMatching(method string, path *regexp.Regexp, n int, f Fault) FaultRule {
	return func(r *http.Request) Fault {
		if n > 0 && r.Method == method && path.MatchString(strings.TrimPrefix(r.URL.Path, "/api/v1")) {
			n--
			return f
		}
		return FaultNone
	}
}

// FaultProxy is an HTTP proxy between the provider and a backend that injects the faults its
// rule chooses, so tests can show the provider converging through an unreliable network.
type FaultProxy struct {
	// URL is the API base URL through the proxy, ending in /api/v1 like Backend.URL.
	URL string

	target    *url.URL
	transport http.RoundTripper

	mu       sync.Mutex
	rule     FaultRule
	injected map[Fault]int
}

// StartFaultProxy serves a proxy to b on a loopback port until the test ends.
func StartFaultProxy(t *testing.T, b *Backend, rule FaultRule) *FaultProxy {
	t.Helper()
	target, err := url.Parse(b.URL)
	if err != nil {
		t.Fatalf("parsing the backend URL %q: %v", b.URL, err)
	}
	p := &FaultProxy{
		target:    target,
		transport: &http.Transport{DisableKeepAlives: true},
		rule:      rule,
		injected:  map[Fault]int{},
	}
	ts := httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(ts.Close)
	p.URL = ts.URL + target.Path
	return p
}

// SetRule replaces the rule, for a test that changes the weather between steps.
func (p *FaultProxy) SetRule(rule FaultRule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rule = rule
}

// Injected returns how many requests got each fault so far.
func (p *FaultProxy) Injected() map[Fault]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[Fault]int, len(p.injected))
	for f, n := range p.injected {
		out[f] = n
	}
	return out
}

// Via returns a copy of b whose URL is the proxy's, so its ProviderConfig sends Terraform
// through the proxy while b itself keeps talking to the backend directly.
func (p *FaultProxy) Via(b *Backend) *Backend {
	via := *b
	via.URL = p.URL
	return &via
}

func (p *FaultProxy) choose(r *http.Request) Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := p.rule(r)
	if f != FaultNone {
		p.injected[f]++
	}
	return f
}

func (p *FaultProxy) serve(w http.ResponseWriter, r *http.Request) {
	switch fault := p.choose(r); fault {
	case FaultRateLimited:
		w.Header().Set("Retry-After", "1")
		http.Error(w, "429 Too Many Requests (fault proxy)", http.StatusTooManyRequests)
	case FaultBadGateway, FaultUnavailable:
		status := map[Fault]int{FaultBadGateway: http.StatusBadGateway, FaultUnavailable: http.StatusServiceUnavailable}[fault]
		http.Error(w, fmt.Sprintf("%d %s (fault proxy)", status, http.StatusText(status)), status)
	case FaultReset:
		if resp, err := p.forward(r); err == nil {
			_ = resp.Body.Close()
		}
		resetConnection(w)
	default:
		p.passThrough(w, r)
	}
}

// passThrough forwards r and copies the backend's answer back; a backend that cannot be reached
// (stopped, restarting) is answered 502, as a gateway would.
func (p *FaultProxy) passThrough(w http.ResponseWriter, r *http.Request) {
	resp, err := p.forward(r)
	if err != nil {
		http.Error(w, "502 Bad Gateway (fault proxy): "+err.Error(), http.StatusBadGateway)
		return
	}
	defer func() { _ = resp.Body.Close() }()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// forward sends r to the backend and returns its answer with the whole body read, so the
// backend has finished the request when forward returns.
func (p *FaultProxy) forward(r *http.Request) (*http.Response, error) {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Scheme, out.URL.Host = p.target.Scheme, p.target.Host
	out.Host = p.target.Host
	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// resetConnection closes the client's connection with a TCP reset and no answer.
func resetConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // closes the connection without an answer
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}
