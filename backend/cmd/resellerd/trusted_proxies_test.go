package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/testbuf"
)

// TestParseTrustedProxies: --trusted-proxies and RESELLER_TRUSTED_PROXIES parse on serve and on
// dev, the default is none, and a value that is not a CIDR list is a usage error naming the flag
// or the variable.
func TestParseTrustedProxies(t *testing.T) {
	t.Parallel()
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8:ffff::/48")}
	parsers := map[string]func([]string, lookupEnv) (serveOptions, error){
		"serve": parseServe,
		"dev": func(args []string, env lookupEnv) (serveOptions, error) {
			o, err := parseDev(args, env)
			return o.serveOptions, err
		},
	}
	for cmd, parse := range parsers {
		for _, tt := range []struct {
			name string
			args []string
			env  map[string]string
		}{
			{"flag", []string{"--trusted-proxies", "10.0.0.0/8, 2001:db8:ffff::/48"}, nil},
			{"environment", nil, map[string]string{"RESELLER_TRUSTED_PROXIES": "10.0.0.0/8,2001:db8:ffff::/48"}},
		} {
			o, err := parse(tt.args, mapEnv(tt.env))
			if err != nil {
				t.Fatalf("%s, %s: %v", cmd, tt.name, err)
			}
			if !slices.Equal(o.Config.TrustedProxies, want) {
				t.Fatalf("%s, %s: trusted %v, want %v", cmd, tt.name, o.Config.TrustedProxies, want)
			}
		}
		if o, err := parse(nil, noEnv); err != nil || len(o.Config.TrustedProxies) != 0 {
			t.Fatalf("%s default: %v, %v; want no trusted proxy", cmd, o.Config.TrustedProxies, err)
		}
		for _, tt := range []struct {
			args    []string
			env     map[string]string
			wantErr string
		}{
			{[]string{"--trusted-proxies", "10.0.0.1"}, nil, "trusted-proxies"},
			{[]string{"--trusted-proxies", "10.0.0.0/8,lb.internal"}, nil, "trusted-proxies"},
			{nil, map[string]string{"RESELLER_TRUSTED_PROXIES": "10.0.0.0/33"}, "RESELLER_TRUSTED_PROXIES"},
		} {
			if _, err := parse(tt.args, mapEnv(tt.env)); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("%s %v %v: got %v, want a usage error naming %s", cmd, tt.args, tt.env, err, tt.wantErr)
			}
		}
	}
}

// TestTrustedProxyKeepsClientsApart: serve with --trusted-proxies 127.0.0.0/8 (the test's
// requests come from 127.0.0.1, standing for the load balancer). Client A (X-Forwarded-For)
// sends 25 wrong keys: 20 answered 401, then 429. Client B behind the same proxy (Forwarded,
// a quoted IPv6 address with a port) still gets 200 with its right key, while A's right key
// waits. Each access line names its client. Before, B's key got 429 like A's: both were the
// proxy's address.
func TestTrustedProxyKeepsClientsApart(t *testing.T) {
	t.Parallel()
	base, key, log := serveWithProxies(t, "127.0.0.0/8")
	clientA := http.Header{"X-Forwarded-For": {"198.51.100.1, 203.0.113.7"}}
	clientB := http.Header{"Forwarded": {`for="[2001:db8::1]:4711";proto=http`}}

	for i := range 25 {
		want := http.StatusUnauthorized
		if i >= 20 {
			want = http.StatusTooManyRequests
		}
		if got := statusWith(t, base+"/api/v1/account", fmt.Sprintf("wrong-key-%d", i), clientA); got != want {
			t.Fatalf("client A, wrong key %d: %d, want %d", i+1, got, want)
		}
	}
	if got := statusWith(t, base+"/api/v1/account", key, clientB); got != http.StatusOK {
		t.Fatalf("client B's right key: %d, want 200 (A's failures are A's)", got)
	}
	if got := statusWith(t, base+"/api/v1/account", key, clientA); got != http.StatusTooManyRequests {
		t.Fatalf("client A's right key: %d, want 429 (A is still blocked)", got)
	}

	clients := map[string]int{}
	for _, l := range accessLines(t, log, 27) {
		c, _ := l["client"].(string)
		clients[c]++
	}
	if clients["203.0.113.7"] != 26 || clients["2001:db8::1"] != 1 {
		t.Fatalf("access lines per client %v, want 26 of 203.0.113.7 and 1 of 2001:db8::1", clients)
	}
}

// TestUntrustedPeerForwardingIgnored: serve trusting only 10.0.0.0/8, so the test's peer
// (127.0.0.1) is not a proxy. It sends 20 wrong keys, each with a new X-Forwarded-For or a new
// Forwarded; its right key with yet another X-Forwarded-For still gets 429: it cannot leave its
// own block. Every access line names the peer as the client.
func TestUntrustedPeerForwardingIgnored(t *testing.T) {
	t.Parallel()
	base, key, log := serveWithProxies(t, "10.0.0.0/8")
	forged := func(i int) http.Header {
		if i%2 == 1 {
			return http.Header{"Forwarded": {fmt.Sprintf("for=198.51.100.%d", i)}}
		}
		return http.Header{"X-Forwarded-For": {fmt.Sprintf("203.0.113.%d", i)}}
	}
	for i := range 20 {
		if got := statusWith(t, base+"/api/v1/account", fmt.Sprintf("wrong-key-%d", i), forged(i)); got != http.StatusUnauthorized {
			t.Fatalf("wrong key %d: %d, want 401", i+1, got)
		}
	}
	if got := statusWith(t, base+"/api/v1/account", key, forged(99)); got != http.StatusTooManyRequests {
		t.Fatalf("right key with a fresh X-Forwarded-For: %d, want 429 (headers of an untrusted peer are ignored)", got)
	}
	for _, l := range accessLines(t, log, 21) {
		if l["client"] != "127.0.0.1" {
			t.Fatalf("access line %v: client %v, want 127.0.0.1 (the peer)", l, l["client"])
		}
	}
}

// serveWithProxies creates an account and serves its database with --trusted-proxies trusted,
// the spec's rate limits and JSON logs; it returns the base URL, the account's key and the log.
func serveWithProxies(t *testing.T, trusted string) (string, string, *testbuf.Buffer) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "proxies.db")
	code, out, errOut := cli(t, noEnv, "account", "create", "--db", db)
	if code != exitOK {
		t.Fatalf("account create: exit %d: %s", code, errOut)
	}
	var acct struct {
		APIKey string `json:"api_key"`
	}
	if err := json.Unmarshal([]byte(out), &acct); err != nil {
		t.Fatal(err)
	}
	opts, err := parseServe([]string{"--listen", "127.0.0.1:0", "--db", db, "--log-format", "json",
		"--trusted-proxies", trusted}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	log := &testbuf.Buffer{}
	return serveLogging(t, opts, log), acct.APIKey, log
}

// statusWith sends GET url with key and the headers h and returns the status.
func statusWith(t *testing.T, url, key string, h http.Header) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, values := range h {
		req.Header[name] = values
	}
	req.Header.Set("X-API-Token", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}
