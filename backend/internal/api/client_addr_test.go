package api

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
)

// testProxies are the trusted ranges of the client address tests: a private IPv4 range, an IPv6
// range and loopback.
var testProxies = trustedProxies{
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("2001:db8:ffff::/48"),
	netip.MustParsePrefix("127.0.0.0/8"),
}

// TestClientAddress is the table of the forwarding rule: from a trusted peer, the right-most
// address of the chain that is not trusted; stop at an unusable hop (unknown, obfuscated,
// garbage) and take the last usable address before it; both headers must agree; from an
// untrusted peer (or with no trusted range) the headers are ignored; nothing panics.
func TestClientAddress(t *testing.T) {
	t.Parallel()
	const trustedPeer = "10.0.0.1:5000"
	for _, tt := range []struct {
		name    string
		proxies trustedProxies // nil: testProxies
		peer    string
		fwd     []string // Forwarded lines
		xff     []string // X-Forwarded-For lines
		want    string
	}{
		{name: "untrusted peer, X-Forwarded-For ignored", peer: "192.0.2.10:5000", xff: []string{"203.0.113.7"}, want: "192.0.2.10"},
		{name: "untrusted peer, Forwarded ignored", peer: "192.0.2.10:5000", fwd: []string{"for=203.0.113.7"}, want: "192.0.2.10"},
		{name: "no trusted range", proxies: trustedProxies{}, peer: trustedPeer, xff: []string{"203.0.113.7"}, want: "10.0.0.1"},
		{name: "trusted peer, no header", peer: trustedPeer, want: "10.0.0.1"},
		{name: "trusted peer, blank header", peer: trustedPeer, xff: []string{"  "}, want: "10.0.0.1"},

		{name: "xff one hop", peer: trustedPeer, xff: []string{"203.0.113.7"}, want: "203.0.113.7"},
		{name: "xff spoofed prefix, several trusted hops", peer: trustedPeer,
			xff: []string{"198.51.100.1, 203.0.113.7, 10.0.0.5,10.0.0.6"}, want: "203.0.113.7"},
		{name: "xff every hop trusted", peer: trustedPeer, xff: []string{"10.0.0.9, 10.0.0.5"}, want: "10.0.0.9"},
		{name: "xff lines joined in order", peer: trustedPeer, xff: []string{"198.51.100.1", "203.0.113.7"}, want: "203.0.113.7"},
		{name: "xff IPv4 with port", peer: trustedPeer, xff: []string{"203.0.113.7:4711"}, want: "203.0.113.7"},
		{name: "xff bare IPv6", peer: trustedPeer, xff: []string{"2001:db8::1"}, want: "2001:db8::1"},
		{name: "xff bracketed IPv6 with port", peer: trustedPeer, xff: []string{"[2001:db8::1]:4711"}, want: "2001:db8::1"},
		{name: "xff bracketed IPv6", peer: trustedPeer, xff: []string{"[2001:db8::1]"}, want: "2001:db8::1"},
		{name: "xff IPv4-mapped", peer: trustedPeer, xff: []string{"::ffff:203.0.113.7"}, want: "203.0.113.7"},
		{name: "xff zone dropped", peer: trustedPeer, xff: []string{"fe80::1%eth0"}, want: "fe80::1"},
		{name: "xff trusted IPv6 hop", peer: trustedPeer, xff: []string{"203.0.113.7, 2001:db8:ffff::5"}, want: "203.0.113.7"},
		{name: "xff garbage right-most", peer: trustedPeer, xff: []string{"203.0.113.7, garbage"}, want: "10.0.0.1"},
		{name: "xff unknown behind a trusted hop", peer: trustedPeer, xff: []string{"203.0.113.7, unknown, 10.0.0.5"}, want: "10.0.0.5"},
		{name: "xff garbage left of the client", peer: trustedPeer, xff: []string{"<script>, 203.0.113.7"}, want: "203.0.113.7"},
		{name: "xff empty entry", peer: trustedPeer, xff: []string{"203.0.113.7,"}, want: "10.0.0.1"},
		{name: "xff bad port", peer: trustedPeer, xff: []string{"203.0.113.7:99999x"}, want: "10.0.0.1"},
		{name: "xff too long", peer: trustedPeer, xff: []string{strings.Repeat("198.51.100.1,", 1000) + "203.0.113.7"}, want: "10.0.0.1"},

		{name: "forwarded one hop", peer: trustedPeer, fwd: []string{"for=203.0.113.7"}, want: "203.0.113.7"},
		{name: "forwarded quoted IPv6 with port", peer: trustedPeer, fwd: []string{`for="[2001:db8::1]:4711"`}, want: "2001:db8::1"},
		{name: "forwarded quoted IPv4 with port", peer: trustedPeer, fwd: []string{`for="203.0.113.7:4711"`}, want: "203.0.113.7"},
		{name: "forwarded unquoted port, read leniently", peer: trustedPeer, fwd: []string{`for=203.0.113.7:4711`}, want: "203.0.113.7"},
		{name: "forwarded obfuscated port", peer: trustedPeer, fwd: []string{`for="203.0.113.7:_p1"`}, want: "203.0.113.7"},
		{name: "forwarded chain with other parameters", peer: trustedPeer,
			fwd: []string{`for=198.51.100.1, For=203.0.113.7;proto=https;by="[2001:db8:ffff::1]" , for=10.0.0.5;host=api.example.com`}, want: "203.0.113.7"},
		{name: "forwarded lines joined in order", peer: trustedPeer, fwd: []string{"for=198.51.100.1", `for="[2001:db8::2]"`}, want: "2001:db8::2"},
		{name: "forwarded escaped quoted string", peer: trustedPeer, fwd: []string{`for="\[2001:db8::3\]";by="a\"b,c"`}, want: "2001:db8::3"},
		{name: "forwarded trusted IPv6 hop", peer: trustedPeer, fwd: []string{`for=203.0.113.7, for="[2001:db8:ffff::5]:80"`}, want: "203.0.113.7"},
		{name: "forwarded unknown right-most", peer: trustedPeer, fwd: []string{"for=203.0.113.7, for=unknown"}, want: "10.0.0.1"},
		{name: "forwarded obfuscated behind a trusted hop", peer: trustedPeer, fwd: []string{"for=203.0.113.7, for=_hidden, for=10.0.0.5"}, want: "10.0.0.5"},
		{name: "forwarded element without for", peer: trustedPeer, fwd: []string{"for=203.0.113.7, proto=https"}, want: "10.0.0.1"},
		{name: "forwarded two for in one element", peer: trustedPeer, fwd: []string{"for=203.0.113.7;for=198.51.100.1"}, want: "10.0.0.1"},
		{name: "forwarded unbracketed IPv6", peer: trustedPeer, fwd: []string{`for="2001:db8::1"`}, want: "10.0.0.1"},
		{name: "forwarded bracketed IPv4", peer: trustedPeer, fwd: []string{`for="[203.0.113.7]"`}, want: "10.0.0.1"},
		{name: "forwarded unterminated quote swallows the rest", peer: trustedPeer, fwd: []string{`for=198.51.100.1, for=", for=203.0.113.7`}, want: "10.0.0.1"},
		{name: "forwarded text after a quoted value", peer: trustedPeer, fwd: []string{`for="198.51.100.9, for="[2001:db8::1]"`}, want: "10.0.0.1"},
		{name: "forwarded pair without value", peer: trustedPeer, fwd: []string{"for=203.0.113.7, for="}, want: "10.0.0.1"},
		{name: "forwarded garbage left of the client", peer: trustedPeer, fwd: []string{`;;=="", for=203.0.113.7`}, want: "203.0.113.7"},

		{name: "both agree", peer: trustedPeer, fwd: []string{`for=203.0.113.7`}, xff: []string{"198.51.100.1, 203.0.113.7"}, want: "203.0.113.7"},
		{name: "both disagree: the peer", peer: trustedPeer, fwd: []string{`for=198.51.100.66`}, xff: []string{"203.0.113.7"}, want: "10.0.0.1"},
		{name: "blank Forwarded beside X-Forwarded-For", peer: trustedPeer, fwd: []string{""}, xff: []string{"203.0.113.7"}, want: "203.0.113.7"},

		{name: "IPv6 peer", peer: "[2001:db8:ffff::1]:443", xff: []string{"203.0.113.7"}, want: "203.0.113.7"},
		{name: "IPv4-mapped peer", peer: "[::ffff:10.0.0.1]:443", xff: []string{"203.0.113.7"}, want: "203.0.113.7"},
		{name: "IPv4-mapped untrusted peer", peer: "[::ffff:192.0.2.10]:443", xff: []string{"203.0.113.7"}, want: "192.0.2.10"},
		{name: "peer that is no address", peer: "pipe", xff: []string{"203.0.113.7"}, want: "pipe"},
	} {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/health", nil)
		r.RemoteAddr = tt.peer
		for _, v := range tt.fwd {
			r.Header.Add("Forwarded", v)
		}
		for _, v := range tt.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		proxies := tt.proxies
		if proxies == nil {
			proxies = testProxies
		}
		if got := proxies.clientAddr(r); got != tt.want {
			t.Errorf("%s: client %q, want %q", tt.name, got, tt.want)
		}
	}
}

// FuzzClientAddress: whatever the headers hold, nothing panics, an untrusted peer is the client,
// and a trusted peer's client is an address.
func FuzzClientAddress(f *testing.F) {
	for _, seed := range [][2]string{
		{"for=203.0.113.7", "203.0.113.7"},
		{`for="[2001:db8::1]:4711";proto=https, for=_x`, "[2001:db8::1]:4711, unknown"},
		{`for="\`, `,,,`},
		{`for=";by=", for=`, "::ffff:10.0.0.1%x"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, fwd, xff string) {
		for _, peer := range []string{"10.0.0.1:1", "192.0.2.10:1"} {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = peer
			r.Header.Set("Forwarded", fwd)
			r.Header.Set("X-Forwarded-For", xff)
			got := testProxies.clientAddr(r)
			if peer == "192.0.2.10:1" && got != "192.0.2.10" {
				t.Fatalf("untrusted peer: client %q", got)
			}
			if _, err := netip.ParseAddr(got); err != nil {
				t.Fatalf("client %q is no address: %v", got, err)
			}
		}
	})
}

// TestClientAddressKeysLimitsAndLog: behind a trusted proxy (RemoteAddr 10.0.0.1) two clients
// have a /health limit each, and the access line names each by the key client; from an
// untrusted peer a fresh X-Forwarded-For per request changes nothing: its limit is its own and
// its lines name the peer.
func TestClientAddressKeysLimitsAndLog(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	h := newTestHandler(t, &logs, func(routeFunc) {}, func(c *Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	})
	health := func(peer, xff string) int {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/health", nil)
		r.RemoteAddr = peer
		r.Header.Set("X-Forwarded-For", xff)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec.Code
	}
	for i := range catalogueLimit {
		if code := health("10.0.0.1:5000", "203.0.113.7"); code != http.StatusOK {
			t.Fatalf("client A, request %d: %d, want 200", i+1, code)
		}
	}
	if code := health("10.0.0.1:5000", "203.0.113.7"); code != http.StatusTooManyRequests {
		t.Fatalf("client A over its limit: %d, want 429", code)
	}
	logs.Reset()
	if code := health("10.0.0.1:5000", "198.51.100.1, 203.0.113.8"); code != http.StatusOK {
		t.Fatalf("client B behind the same proxy: %d, want 200 (a limit of its own)", code)
	}
	if !strings.Contains(logs.String(), "client=203.0.113.8") {
		t.Fatalf("access line lacks client=203.0.113.8:\n%s", logs.String())
	}

	for i := range catalogueLimit {
		if code := health("192.0.2.10:5000", "198.51.100."+strconv.Itoa(i)); code != http.StatusOK {
			t.Fatalf("untrusted peer, request %d: %d, want 200", i+1, code)
		}
	}
	logs.Reset()
	if code := health("192.0.2.10:5000", "198.51.100.250"); code != http.StatusTooManyRequests {
		t.Fatalf("untrusted peer with a fresh X-Forwarded-For: %d, want 429 (headers ignored)", code)
	}
	if !strings.Contains(logs.String(), "client=192.0.2.10") {
		t.Fatalf("access line lacks client=192.0.2.10:\n%s", logs.String())
	}
}
