package api

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
// The handler serves exactly these (handlers; TestEveryRouteHasAHandler), and one test holds the
// OpenAPI document and the provider's client pacing to it (routes_table_test.go).
var Routes = []Route{
	{Method: "GET", Path: "/health", PerMinute: catalogueLimit, Public: true},
	{Method: "GET", Path: "/api/dollar", PerMinute: catalogueLimit},

	{Method: "GET", Path: "/account", PerMinute: accountLimit},
	{Method: "GET", Path: "/account/balance", PerMinute: accountLimit},
	{Method: "GET", Path: "/account/payments", PerMinute: accountLimit},
	{Method: "GET", Path: "/account/webhook", PerMinute: accountLimit},
	{Method: "PUT", Path: "/account/webhook", PerMinute: webhookLimit, Bucket: webhookChanges},
	{Method: "DELETE", Path: "/account/webhook", PerMinute: webhookLimit, Bucket: webhookChanges},
	{Method: "POST", Path: "/account/webhook/test", PerMinute: webhookLimit},

	{Method: "GET", Path: "/catalog/servers", PerMinute: catalogueLimit},
	{Method: "GET", Path: "/catalog/servers/{server_id}", PerMinute: catalogueLimit},
	{Method: "GET", Path: "/datacenters", PerMinute: catalogueLimit},
	{Method: "GET", Path: "/locations", PerMinute: catalogueLimit},
	{Method: "GET", Path: "/catalog/apps", PerMinute: catalogueLimit},
	{Method: "POST", Path: "/quote", PerMinute: catalogueLimit},

	{Method: "GET", Path: "/orders", PerMinute: accountLimit},
	{Method: "GET", Path: "/orders/{order_id}", PerMinute: accountLimit},

	{Method: "GET", Path: "/instances", PerMinute: accountLimit},
	{Method: "POST", Path: "/instances", PerMinute: orderLimit},
	{Method: "GET", Path: "/instances/{instance_id}", PerMinute: accountLimit},
	{Method: "PATCH", Path: "/instances/{instance_id}", PerMinute: writeLimit},
	{Method: "DELETE", Path: "/instances/{instance_id}", PerMinute: writeLimit},
	{Method: "POST", Path: "/instances/{instance_id}/actions", PerMinute: actionLimit},
	{Method: "GET", Path: "/instances/{instance_id}/resize-options", PerMinute: accountLimit},
	{Method: "GET", Path: "/instances/{instance_id}/traffic", PerMinute: accountLimit},
	{Method: "GET", Path: "/instances/{instance_id}/apps", PerMinute: accountLimit},
	{Method: "POST", Path: "/instances/{instance_id}/apps", PerMinute: writeLimit},
	{Method: "GET", Path: "/instances/{instance_id}/snapshots", PerMinute: accountLimit},
	{Method: "POST", Path: "/instances/{instance_id}/snapshots", PerMinute: writeLimit},

	{Method: "GET", Path: "/snapshots", PerMinute: accountLimit},
	{Method: "GET", Path: "/snapshots/{snapshot_id}", PerMinute: accountLimit},
	{Method: "PATCH", Path: "/snapshots/{snapshot_id}", PerMinute: writeLimit},
	{Method: "DELETE", Path: "/snapshots/{snapshot_id}", PerMinute: writeLimit},
	{Method: "POST", Path: "/snapshots/{snapshot_id}/restore", PerMinute: actionLimit},
}
