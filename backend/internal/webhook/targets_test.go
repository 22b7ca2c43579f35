package webhook

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/webhook/webhooktest"
)

// TestTargetsRefuseInternalAddresses: every class of internal address is refused by the strict
// rule, a public one permitted; --allow-http-webhooks admits loopback only, and
// --webhook-allow-cidr the ranges it names.
func TestTargetsRefuseInternalAddresses(t *testing.T) {
	t.Parallel()
	loopback := Targets{AllowLoopback: true}
	admitted := Targets{Allow: []netip.Prefix{netip.MustParsePrefix("10.20.0.0/16")}}
	tests := []struct {
		addr                string
		strict, loop, admit bool // permitted by Targets{}, loopback, admitted
	}{
		{"93.184.216.34", true, true, true},
		{"2606:2800:220:1:248:1893:25c8:1946", true, true, true},
		{"127.0.0.1", false, true, false},
		{"127.1.2.3", false, true, false},
		{"::1", false, true, false},
		{"::ffff:127.0.0.1", false, true, false},
		{"10.0.0.1", false, false, false},
		{"10.20.3.4", false, false, true},
		{"172.16.0.1", false, false, false},
		{"172.31.255.255", false, false, false},
		{"192.168.1.1", false, false, false},
		{"fc00::1", false, false, false},
		{"fd12:3456::1", false, false, false},
		{"169.254.169.254", false, false, false},
		{"fe80::1", false, false, false},
		{"fe80::1%eth0", false, false, false},
		{"::1%lo", false, true, false},
		{"100.64.0.1", false, false, false},
		{"100.127.255.254", false, false, false},
		{"0.0.0.0", false, false, false},
		{"::", false, false, false},
		{"224.0.0.1", false, false, false},
		{"ff02::1", false, false, false},
		{"255.255.255.255", false, false, false},
		{"::ffff:10.0.0.1", false, false, false},
		{"64:ff9b::7f00:1", false, false, false},
	}
	for _, tt := range tests {
		a := netip.MustParseAddr(tt.addr)
		if got := (Targets{}).Permits(a); got != tt.strict {
			t.Errorf("strict Permits(%s) = %v, want %v", a, got, tt.strict)
		}
		if got := loopback.Permits(a); got != tt.loop {
			t.Errorf("AllowLoopback Permits(%s) = %v, want %v", a, got, tt.loop)
		}
		if got := admitted.Permits(a); got != tt.admit {
			t.Errorf("Allow 10.20/16 Permits(%s) = %v, want %v", a, got, tt.admit)
		}
	}
}

func TestTargetsCheckHost(t *testing.T) {
	t.Parallel()
	for _, host := range []string{"localhost", "LocalHost.", "api.localhost", "127.0.0.1", "[::1]", "::1",
		"169.254.169.254", "10.1.2.3", "0.0.0.0", "fe80::1%eth0"} {
		if err := (Targets{}).CheckHost(host); err == nil {
			t.Errorf("CheckHost(%q) = nil, want refused", host)
		}
	}
	for _, host := range []string{"hooks.example.com", "93.184.216.34", "localhost.example.com"} {
		if err := (Targets{}).CheckHost(host); err != nil {
			t.Errorf("CheckHost(%q) = %v, want permitted", host, err)
		}
	}
	if err := (Targets{AllowLoopback: true}).CheckHost("localhost"); err != nil {
		t.Errorf("CheckHost(localhost) with loopback allowed = %v", err)
	}
}

// TestSenderRefusesANameResolvingInside: a name that resolves to loopback (the test's own
// resolver answers 127.0.0.1) gets no connection under the strict rule: the listener sees none.
// The same name and resolver with loopback admitted do connect, so the refusal is the rule's.
func TestSenderRefusesANameResolvingInside(t *testing.T) {
	t.Parallel()
	srv, conns := webhooktest.CountingServer(t, false)
	resolver := webhooktest.Resolver(netip.MustParseAddr("127.0.0.1"))
	m := Message{URL: webhooktest.HostPort(srv.URL, "hooks.rebound.test") + "/hook", Secret: "whsec_0123456789abcdef",
		Event: "ping", DeliveryID: "dlv_1", Body: []byte(`{}`), At: time.Now()}

	status, err := NewHTTPSender(Targets{}, resolver).Send(context.Background(), m)
	if !errors.Is(err, ErrRefusedTarget) || status != 0 {
		t.Fatalf("Send to a name resolving to 127.0.0.1 = %d, %v; want ErrRefusedTarget", status, err)
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("the listener saw %d connections, want none", n)
	}

	status, err = NewHTTPSender(Targets{AllowLoopback: true}, resolver).Send(context.Background(), m)
	if err != nil || status != http.StatusNoContent || conns.Load() != 1 {
		t.Fatalf("with loopback admitted: %d, %v, %d connections; want 204 over one", status, err, conns.Load())
	}
}
