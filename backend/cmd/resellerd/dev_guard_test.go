package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// guarded sends method path to d with body (sent without Content-Type unless headers name one)
// and the extra headers; "Host" in headers sets the request's Host.
func (d *devAPI) guarded(t *testing.T, method, path, body string, headers map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest(method, d.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	a := answer{status: res.StatusCode}
	if err := json.NewDecoder(res.Body).Decode(&a); err != nil {
		t.Fatalf("%s %s: %d with a body that is no envelope: %v", method, path, res.StatusCode, err)
	}
	return a
}

// port is the port of d's listener.
func (d *devAPI) port() string { return d.base[strings.LastIndex(d.base, ":")+1:] }

var jsonType = map[string]string{"Content-Type": "application/json"}

// TestDevRefusesBodiesNotSentAsJSON: a /_dev/ request with a body must declare it as JSON (a
// page's `fetch(..., {mode: "no-cors"})` can only send text/plain or a form); before, /_dev/
// decoded a text/plain body and moved the clock.
func TestDevRefusesBodiesNotSentAsJSON(t *testing.T) {
	t.Parallel()
	d := startDevInProcess(t)
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"} {
		h := map[string]string{}
		if ct != "" {
			h["Content-Type"] = ct
		}
		d.guarded(t, "POST", "/_dev/clock", `{"advance": "1h"}`, h).want(t, 415, "unsupported_media_type")
		d.guarded(t, "PUT", "/_dev/fail-rate", `{"rate": 0}`, h).want(t, 415, "unsupported_media_type")
	}
	d.guarded(t, "POST", "/_dev/clock", `{"advance": "1h"}`, jsonType).want(t, 200, "")
	d.guarded(t, "POST", "/_dev/clock", `{"advance": "1h"}`, map[string]string{"Content-Type": "application/json; charset=utf-8"}).want(t, 200, "")
	d.guarded(t, "POST", "/_dev/reset", "", nil).want(t, 200, "") // no body, no type needed
}

// TestDevRefusesForeignOrigins: a request whose Origin is not the listener's own, or that a
// browser marks Sec-Fetch-Site: cross-site, is 403 on every /_dev/ route; the page's own origin
// passes. Before, any web page could POST to /_dev/reset.
func TestDevRefusesForeignOrigins(t *testing.T) {
	t.Parallel()
	d := startDevInProcess(t)
	foreign := []map[string]string{
		{"Origin": "http://evil.example"},
		{"Origin": "null"},                         // a sandboxed frame or a file:// page
		{"Origin": "http://localhost:" + d.port()}, // another origin than http://127.0.0.1:PORT
		{"Origin": "https://127.0.0.1:" + d.port()},
		{"Sec-Fetch-Site": "cross-site"},
		{"Sec-Fetch-Site": "cross-site", "Origin": d.base},
	}
	for _, h := range foreign {
		d.guarded(t, "POST", "/_dev/reset", "", h).want(t, 403, "forbidden")
		h["Content-Type"] = "application/json"
		d.guarded(t, "POST", "/_dev/clock", `{"advance": "1h"}`, h).want(t, 403, "forbidden")
		d.guarded(t, "GET", "/_dev/unknown", "", h).want(t, 403, "forbidden")
	}
	for _, h := range []map[string]string{
		{"Origin": d.base},
		{"Origin": strings.ToUpper(d.base)},
		{"Sec-Fetch-Site": "same-origin", "Origin": d.base},
		{"Sec-Fetch-Site": "none"}, // typed into the address bar
	} {
		d.guarded(t, "POST", "/_dev/reset", "", h).want(t, 200, "")
	}
	// The API itself is not the test-control API: its own rules apply, not these.
	d.guarded(t, "GET", "/api/v1/health", "", map[string]string{"Origin": "http://evil.example"}).want(t, 200, "")
}

// TestDevRefusesForeignHosts: DNS rebinding (a page's own name resolving to 127.0.0.1) reaches
// /_dev/ with the page's Host; only loopback names and addresses and --listen's host pass.
// Before, any Host was served.
func TestDevRefusesForeignHosts(t *testing.T) {
	t.Parallel()
	d := startDevInProcess(t)
	p := d.port()
	for _, host := range []string{"rebind.example:" + p, "rebind.example", "127.0.0.1.nip.io:" + p, "192.168.1.10:" + p, "0.0.0.0:" + p, "localhost.example:" + p} {
		a := d.guarded(t, "POST", "/_dev/reset", "", map[string]string{"Host": host}).want(t, 403, "forbidden")
		if !strings.Contains(a.Error.Message, "--dev-allowed-hosts") {
			t.Fatalf("Host %s: message %q does not name --dev-allowed-hosts", host, a.Error.Message)
		}
		d.guarded(t, "GET", "/_dev/unknown", "", map[string]string{"Host": host}).want(t, 403, "forbidden")
	}
	for _, host := range []string{"127.0.0.1:" + p, "localhost:" + p, "LOCALHOST", "app.localhost:" + p, "[::1]:" + p, "127.0.0.2:" + p, "localhost.:" + p} {
		d.guarded(t, "POST", "/_dev/reset", "", map[string]string{"Host": host}).want(t, 200, "")
	}
	d.guarded(t, "GET", "/api/v1/health", "", map[string]string{"Host": "rebind.example:" + p}).want(t, 200, "")
}

// TestDevAllowedHosts: --dev-allowed-hosts (or RESELLER_DEV_ALLOWED_HOSTS) admits more Host
// names, as a container published under a compose service's name needs; others stay refused.
func TestDevAllowedHosts(t *testing.T) {
	t.Parallel()
	d := startDevInProcess(t, "--dev-allowed-hosts", "resellerd, Other.Example")
	for _, host := range []string{"resellerd:8080", "other.example", "OTHER.example:" + d.port(), "localhost"} {
		d.guarded(t, "POST", "/_dev/reset", "", map[string]string{"Host": host}).want(t, 200, "")
	}
	d.guarded(t, "POST", "/_dev/reset", "", map[string]string{"Host": "rebind.example"}).want(t, 403, "forbidden")

	o, err := parseDev(nil, mapEnv(map[string]string{"RESELLER_DEV_ALLOWED_HOSTS": "a.example,b"}))
	if err != nil || strings.Join(o.DevAllowedHosts, ",") != "a.example,b" {
		t.Fatalf("RESELLER_DEV_ALLOWED_HOSTS: %q, %v", o.DevAllowedHosts, err)
	}
	for _, bad := range []string{"http://a.example", "a.example:8080", "a b", "a/b"} {
		_, err := parseDev([]string{"--dev-allowed-hosts", bad}, noEnv)
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "dev-allowed-hosts") {
			t.Fatalf("--dev-allowed-hosts %q: %v, want a usage error naming the flag", bad, err)
		}
	}
}

// TestDevClockAdvanceBounded: one POST /_dev/clock moves at most 31 days; before, 366 days
// (about six minutes of worker runs) were accepted.
func TestDevClockAdvanceBounded(t *testing.T) {
	t.Parallel()
	d := startDevInProcess(t)
	for _, adv := range []string{"745h", "8760h", "2000000h"} {
		a := d.call(t, "POST", "/_dev/clock", "", `{"advance": "`+adv+`"}`).want(t, 400, "validation_error")
		if !strings.Contains(a.Error.Message, "advance") || !strings.Contains(a.Error.Message, "31 days") {
			t.Fatalf("advance %s: message %q does not name the field and the bound", adv, a.Error.Message)
		}
	}
}
