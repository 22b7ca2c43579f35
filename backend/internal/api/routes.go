package api

import (
	"net/http"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Per-minute rate limits of the routes (spec: Limits; backend/docs/choices.md).
const (
	catalogueLimit = 120
	accountLimit   = 60 // every other read route
	orderLimit     = 10 // POST /instances
	actionLimit    = 30 // POST /instances/{id}/actions and POST /snapshots/{id}/restore
	writeLimit     = 30 // PATCH and DELETE of an instance or a snapshot, POST of an instance's apps and snapshots
	webhookLimit   = 10 // webhook changes (PUT and DELETE together), and test pings
)

// webhookChanges is the one rate-limit bucket PUT and DELETE /account/webhook share (spec:
// "webhook changes", 10 per minute per key).
const webhookChanges = "webhook changes"

// Route is one endpoint of the API and its rate limit.
type Route struct {
	Method, Path string // as the spec writes them: "GET", "/instances/{instance_id}"
	PerMinute    int    // requests a minute per key (per client address when Public)
	// Bucket names the budget routes share ("" counts the route alone).
	Bucket string
	Public bool // served without an API key

	// The route's handler, a method of handler: authed when the route needs a key (it receives
	// the caller's account), public when Public. The row names it, so a route is one edit.
	authed func(h *handler, w http.ResponseWriter, r *http.Request, acct store.Account)
	public func(h *handler, w http.ResponseWriter, r *http.Request)
}

// Pattern is the route as the mux and the access log name it, without the /api/v1 prefix.
func (r Route) Pattern() string { return r.Method + " " + r.Path }

// bucket is the rate-limit window the route counts in.
func (r Route) bucket() string {
	if r.Bucket != "" {
		return r.Bucket
	}
	return prefixed(r.Pattern())
}

// Routes is every endpoint of this version of the API with its rate limit: the one table of them.
// The handler serves exactly these, each with the method its row names (TestEveryRouteHasAHandler), and one test holds the
// OpenAPI document and the provider's client pacing to it (routes_table_test.go).
var Routes = []Route{
	{Method: "GET", Path: "/health", PerMinute: catalogueLimit, Public: true, public: (*handler).health},
	{Method: "GET", Path: "/api/dollar", PerMinute: catalogueLimit, authed: (*handler).dollar},

	{Method: "GET", Path: "/account", PerMinute: accountLimit, authed: (*handler).account},
	{Method: "GET", Path: "/account/balance", PerMinute: accountLimit, authed: (*handler).balance},
	{Method: "GET", Path: "/account/payments", PerMinute: accountLimit, authed: (*handler).payments},
	{Method: "GET", Path: "/account/webhook", PerMinute: accountLimit, authed: (*handler).webhook},
	{Method: "PUT", Path: "/account/webhook", PerMinute: webhookLimit, Bucket: webhookChanges, authed: (*handler).putWebhook},
	{Method: "DELETE", Path: "/account/webhook", PerMinute: webhookLimit, Bucket: webhookChanges, authed: (*handler).deleteWebhook},
	{Method: "POST", Path: "/account/webhook/test", PerMinute: webhookLimit, authed: (*handler).testWebhook},

	{Method: "GET", Path: "/catalog/servers", PerMinute: catalogueLimit, authed: (*handler).plans},
	{Method: "GET", Path: "/catalog/servers/{server_id}", PerMinute: catalogueLimit, authed: (*handler).plan},
	{Method: "GET", Path: "/datacenters", PerMinute: catalogueLimit, authed: (*handler).datacenters},
	{Method: "GET", Path: "/locations", PerMinute: catalogueLimit, authed: (*handler).locations},
	{Method: "GET", Path: "/catalog/apps", PerMinute: catalogueLimit, authed: (*handler).apps},
	{Method: "POST", Path: "/quote", PerMinute: catalogueLimit, authed: (*handler).quote},

	{Method: "GET", Path: "/orders", PerMinute: accountLimit, authed: (*handler).orders},
	{Method: "GET", Path: "/orders/{order_id}", PerMinute: accountLimit, authed: (*handler).order},

	{Method: "GET", Path: "/instances", PerMinute: accountLimit, authed: (*handler).instances},
	{Method: "POST", Path: "/instances", PerMinute: orderLimit, authed: (*handler).createInstance},
	{Method: "GET", Path: "/instances/{instance_id}", PerMinute: accountLimit, authed: (*handler).instance},
	{Method: "PATCH", Path: "/instances/{instance_id}", PerMinute: writeLimit, authed: (*handler).updateInstance},
	{Method: "DELETE", Path: "/instances/{instance_id}", PerMinute: writeLimit, authed: (*handler).cancelInstance},
	{Method: "POST", Path: "/instances/{instance_id}/actions", PerMinute: actionLimit, authed: (*handler).action},
	{Method: "GET", Path: "/instances/{instance_id}/resize-options", PerMinute: accountLimit, authed: (*handler).resizeOptions},
	{Method: "GET", Path: "/instances/{instance_id}/traffic", PerMinute: accountLimit, authed: (*handler).traffic},
	{Method: "GET", Path: "/instances/{instance_id}/apps", PerMinute: accountLimit, authed: (*handler).instanceApps},
	{Method: "POST", Path: "/instances/{instance_id}/apps", PerMinute: writeLimit, authed: (*handler).installApps},
	{Method: "GET", Path: "/instances/{instance_id}/snapshots", PerMinute: accountLimit, authed: (*handler).instanceSnapshots},
	{Method: "POST", Path: "/instances/{instance_id}/snapshots", PerMinute: writeLimit, authed: (*handler).createSnapshot},

	{Method: "GET", Path: "/snapshots", PerMinute: accountLimit, authed: (*handler).snapshots},
	{Method: "GET", Path: "/snapshots/{snapshot_id}", PerMinute: accountLimit, authed: (*handler).snapshot},
	{Method: "PATCH", Path: "/snapshots/{snapshot_id}", PerMinute: writeLimit, authed: (*handler).updateSnapshot},
	{Method: "DELETE", Path: "/snapshots/{snapshot_id}", PerMinute: writeLimit, authed: (*handler).deleteSnapshot},
	{Method: "POST", Path: "/snapshots/{snapshot_id}/restore", PerMinute: actionLimit, authed: (*handler).restoreSnapshot},
}
