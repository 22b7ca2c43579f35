package apitest

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/apicall"
	"github.com/reseller/terraform-provider-reseller/backend/internal/delivery/webhooktest"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// TestWebhookRegistrationRefusesInternalTargets: a webhook whose host is a literal internal
// address or localhost is refused with a validation_error naming url, for each class of
// address (the IANA special-purpose ranges, and 6to4 and NAT64 forms of an internal IPv4
// address); a public name, a public address and the 6to4 form of one are accepted; --webhook-allow-cidr admits the
// ranges it names and no others.
func TestWebhookRegistrationRefusesInternalTargets(t *testing.T) {
	t.Parallel()
	strict := newEnv(t)
	admitting := newEnv(t, func(c *resellerd.Config) { c.WebhookAllowCIDRs = []netip.Prefix{netip.MustParsePrefix("10.20.0.0/16")} })
	refused := []string{
		"https://127.0.0.1/x", "https://127.9.9.9:8443/x", "https://[::1]/x", "https://localhost/x",
		"https://LOCALHOST.:8443/x", "https://api.localhost/x", "https://10.0.0.1/x", "https://172.16.5.4/x",
		"https://192.168.0.10/x", "https://[fd00::1]/x", "https://169.254.169.254/latest/meta-data",
		"https://[fe80::1]/x", "https://[fe80::1%25eth0]/x", "https://100.64.1.1/x", "https://0.0.0.0/x", "https://[::]/x",
		"https://224.0.0.251/x", "https://[ff02::1]/x", "https://255.255.255.255/x", "https://[::ffff:10.0.0.1]/x",
		// IANA special-purpose ranges and IPv4 addresses inside IPv6 ones (issue 27).
		"https://[64:ff9b:1::a9fe:a9fe]/", "https://[2002:a9fe:a9fe::]/", "https://[64:ff9b::a9fe:a9fe]/",
		"https://[2001::1]/x", "https://198.18.0.1/x", "https://192.0.0.170/x", "https://[fec0::1]/x",
	}
	for _, u := range refused {
		for _, e := range []*env{strict, admitting} {
			r := e.do(t, request{Method: http.MethodPut, Path: "/account/webhook", Key: e.account(t, 0).APIKey,
				Body: fmt.Sprintf(`{"url": %q, "secret": %q}`, u, hookSecret)})
			r.WantStatus(t, http.StatusBadRequest, "validation_error")
			r.WantMessage(t, "url")
		}
	}
	for _, u := range []string{"https://hooks.example.com/x", "https://93.184.216.34/x", "https://[2002:5db8:d822::1]/x"} {
		strict.register(t, strict.account(t, 0).APIKey, u)
	}
	admitting.register(t, admitting.account(t, 0).APIKey, "https://10.20.30.40/x")
	r := strict.do(t, request{Method: http.MethodPut, Path: "/account/webhook", Key: strict.account(t, 0).APIKey,
		Body: fmt.Sprintf(`{"url": "https://10.20.30.40/x", "secret": %q}`, hookSecret)})
	r.WantStatus(t, http.StatusBadRequest, "validation_error")
}

// TestPingToANameResolvingInside: a public-looking name that the backend's resolver answers
// with 127.0.0.1 is accepted at registration, but the ping makes no connection (the listener
// sees none) and answers delivered false with status null, exactly as for an endpoint that is
// down; the refusal is logged for the operator with the host.
func TestPingToANameResolvingInside(t *testing.T) {
	t.Parallel()
	var logs apicall.LockedBuffer
	e := newEnv(t, func(c *resellerd.Config) {
		c.WebhookResolver = webhooktest.Resolver(netip.MustParseAddr("127.0.0.1"))
		c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	listener, conns := webhooktest.CountingServer(t, true)

	a := e.account(t, 0)
	e.register(t, a.APIKey, webhooktest.HostPort(listener.URL, "hooks.rebound.test")+"/x/private-path?token=tenant-secret")
	if v := e.ping(t, a.APIKey); v.Delivered || v.Status != nil {
		t.Fatalf("ping to a name resolving to loopback: %+v, want delivered false, status null", v)
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("the listener saw %d connections, want none", n)
	}
	if !strings.Contains(logs.String(), "webhook target refused") || !strings.Contains(logs.String(), "hooks.rebound.test") {
		t.Fatalf("no refusal logged for the operator:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "private-path") || strings.Contains(logs.String(), "tenant-secret") {
		t.Fatalf("the refusal logged the URL's path or query, not only its host:\n%s", logs.String())
	}
}
