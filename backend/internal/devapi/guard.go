package devapi

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
)

// GuardConfig is what the guard of the test-control API accepts besides loopback.
type GuardConfig struct {
	// ListenHosts are the hosts of the addresses dev listens on (--listen, --alt-listen): a
	// request naming one in its Host reached the listener under its own name. An unspecified
	// address (0.0.0.0, ::) names no host and adds nothing.
	ListenHosts []string
	// AllowedHosts are more Host names to accept (--dev-allowed-hosts), such as the name a
	// container is published under.
	AllowedHosts []string
	// Logger receives the 5xx answers' detail (nil: nowhere).
	Logger *slog.Logger
}

// Guard refuses, on every path under Prefix, the requests a web page could make: dev listens
// on loopback, but the developer's browser runs there too, and a page it shows can send
// requests to 127.0.0.1 (a no-cors fetch) or make its own name resolve to it (DNS rebinding).
// Such a request gets 403 forbidden when its Host is not loopback, a listener's host or an
// allowed host, when its Origin is not the listener's own origin, or when the browser marks it
// Sec-Fetch-Site: cross-site; and 415 unsupported_media_type when it has a body not declared
// as JSON (a page can send text/plain or a form without asking first, never JSON). Other paths
// pass through untouched: the API has its own rules. Guard wraps the whole listener, so every
// route mounted under Prefix, whoever adds it, is behind it.
func Guard(cfg GuardConfig, next http.Handler) http.Handler {
	g := guard{hosts: map[string]bool{}, resp: api.NewResponder(cfg.Logger)}
	for _, h := range cfg.ListenHosts {
		if namesHost(h) {
			g.hosts[normalHost(h)] = true
		}
	}
	for _, h := range cfg.AllowedHosts {
		g.hosts[normalHost(h)] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !underPrefix(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		if err := g.check(r); err != nil {
			g.resp.Fail(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// namesHost reports whether a listener's host names one: an unspecified address (0.0.0.0,
// ::, or none at all) listens everywhere and is no name a client reaches it by.
func namesHost(h string) bool {
	if h == "" {
		return false
	}
	addr, err := netip.ParseAddr(strings.Trim(h, "[]"))
	return err != nil || !addr.IsUnspecified()
}

// underPrefix reports whether path is the test-control API's: Prefix or anything under it
// (path is r.URL.Path, already unescaped, so /%5Fdev/ is caught too).
func underPrefix(path string) bool {
	return strings.HasPrefix(path, Prefix) || path == strings.TrimSuffix(Prefix, "/")
}

type guard struct {
	hosts map[string]bool // listener hosts and allowed hosts, normalised
	resp  api.Responder
}

// check is the first rule r breaks, or nil.
func (g guard) check(r *http.Request) error {
	if !g.hostAllowed(r.Host) {
		return service.Forbidden(fmt.Sprintf("Host %q is not loopback, the host of --listen or one of --dev-allowed-hosts; "+
			"start resellerd dev with --dev-allowed-hosts NAME to accept another name", r.Host))
	}
	if strings.EqualFold(strings.TrimSpace(r.Header.Get("Sec-Fetch-Site")), "cross-site") {
		return service.Forbidden("a cross-site request (Sec-Fetch-Site: cross-site) may not use the test-control API")
	}
	if origin := r.Header.Get("Origin"); origin != "" && !sameOrigin(origin, r) {
		return service.Forbidden(fmt.Sprintf("Origin %q is not this listener's own origin (%s); "+
			"a web page of another origin may not use the test-control API", origin, ownOrigin(r)))
	}
	return api.CheckContentType(r)
}

// hostAllowed reports whether hostport (a request's Host) names this machine's loopback (the
// name localhost or any name under .localhost, RFC 6761, or a loopback address), a listener
// or an allowed host. The port is not compared: a published container's port differs from the
// one it listens on.
func (g guard) hostAllowed(hostport string) bool {
	host := normalHost(hostport)
	if host == "" {
		return false
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || g.hosts[host] {
		return true
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.Unmap().IsLoopback()
}

// normalHost is the host of a Host header or a flag's name: without its port and brackets,
// in lower case, without a final dot.
func normalHost(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	return host
}

// ownOrigin is the origin r was sent to: its scheme and its Host.
func ownOrigin(r *http.Request) string {
	return requestScheme(r) + "://" + strings.ToLower(r.Host)
}

func requestScheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// sameOrigin reports whether origin (an Origin header) is the origin r was sent to: the same
// scheme, host and port, a missing port being the scheme's default.
func sameOrigin(origin string, r *http.Request) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
		return false // "null", or not an origin at all
	}
	scheme := requestScheme(r)
	if !strings.EqualFold(u.Scheme, scheme) {
		return false
	}
	return withPort(u.Host, scheme) == withPort(r.Host, scheme)
}

// withPort is hostport in lower case with the scheme's default port when it has none.
func withPort(hostport, scheme string) string {
	hostport = strings.ToLower(hostport)
	if _, _, err := net.SplitHostPort(hostport); err == nil {
		return hostport
	}
	port := "80"
	if scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(strings.Trim(hostport, "[]"), port)
}
