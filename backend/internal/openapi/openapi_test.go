package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

func mustDoc(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := Document()
	if err != nil {
		t.Fatalf("Document: %v", err)
	}
	return doc
}

func TestDocumentLoadsAndValidates(t *testing.T) {
	doc := mustDoc(t)
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if doc.OpenAPI != "3.0.3" {
		t.Errorf("openapi = %q, want 3.0.3", doc.OpenAPI)
	}
	if doc.Info.Version != "1.1.0" {
		t.Errorf("info.version = %q, want 1.1.0", doc.Info.Version)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "/api/v1" {
		t.Errorf("servers = %v, want one server /api/v1", doc.Servers)
	}
	schemes := doc.Components.SecuritySchemes
	if s := schemes["ApiKeyHeader"]; s == nil || s.Value.Type != "apiKey" || s.Value.In != "header" || s.Value.Name != "X-API-Token" {
		t.Errorf("ApiKeyHeader scheme is not the X-API-Token header: %+v", s)
	}
	if s := schemes["BearerAuth"]; s == nil || s.Value.Type != "http" || s.Value.Scheme != "bearer" {
		t.Errorf("BearerAuth scheme is not http bearer: %+v", s)
	}
	health := doc.Paths.Value("/health").Get
	if health.Security == nil || len(*health.Security) != 0 {
		t.Errorf("GET /health must declare security: []")
	}
}

// The routes the document must hold, and what each operation must say, are checked against the
// API's one table of routes (backend/internal/api: TestRoutesTable_openAPI).

// The ErrorCode enum is held to the API's one list of codes (backend/internal/api:
// TestErrorCodes_openAPI).

func TestWebhookEvents(t *testing.T) {
	doc := mustDoc(t)
	events := []string{
		"ping", "order.deployed", "order.timed_out", "instance.canceled", "instance.password_reset",
		"instance.ip_changed", "instance.resized", "snapshot.created", "snapshot.restored",
		"snapshot.deleted", "balance.low",
	}
	var names []string
	for _, v := range doc.Components.Schemas["EventName"].Value.Enum {
		names = append(names, v.(string))
	}
	if !slices.Equal(names, events) {
		t.Errorf("EventName enum = %v, want %v", names, events)
	}
	ext, ok := doc.Extensions["x-webhook-events"].(map[string]any)
	if !ok {
		t.Fatalf("x-webhook-events extension missing or not an object: %T", doc.Extensions["x-webhook-events"])
	}
	listed, _ := ext["events"].(map[string]any)
	for _, e := range events {
		entry, _ := listed[e].(map[string]any)
		ref, _ := entry["data"].(string)
		name, found := strings.CutPrefix(ref, "#/components/schemas/")
		if !found || doc.Components.Schemas[name] == nil {
			t.Errorf("x-webhook-events: %s has no data schema (%q)", e, ref)
		}
	}
}

func TestJSONRoundTrips(t *testing.T) {
	b, err := JSON()
	if err != nil {
		t.Fatalf("JSON: %v", err)
	}
	if !json.Valid(b) {
		t.Fatal("JSON() is not valid JSON")
	}
	var generic map[string]any
	if err := json.Unmarshal(b, &generic); err != nil {
		t.Fatal(err)
	}
	if generic["openapi"] != "3.0.3" {
		t.Errorf("openapi = %v", generic["openapi"])
	}
	if _, ok := generic["x-webhook-events"]; !ok {
		t.Error("x-webhook-events is lost in JSON")
	}

	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(b)
	if err != nil {
		t.Fatalf("reload JSON: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("reloaded JSON does not validate: %v", err)
	}
	again, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(again, '\n'), b) {
		t.Error("JSON does not round-trip: re-encoding the reloaded document differs")
	}
	if doc.Paths.Len() != mustDoc(t).Paths.Len() {
		t.Errorf("reloaded document has %d paths, want %d", doc.Paths.Len(), mustDoc(t).Paths.Len())
	}

	// JSON returns a copy: changing it does not change the next answer.
	b[0] = 'X'
	c, _ := JSON()
	if c[0] == 'X' {
		t.Error("JSON() returns shared memory")
	}
}

// --- validator -------------------------------------------------------------------------------

type exchange struct {
	method, target string
	reqBody        string
	reqHeader      map[string]string
	status         int
	respBody       string
	respHeader     map[string]string // added to X-Request-ID and Content-Type
	dropHeaders    []string          // removed from the defaults
}

func (e exchange) run(t *testing.T, v *Validator) error {
	t.Helper()
	var body []byte
	if e.reqBody != "" {
		body = []byte(e.reqBody)
	}
	req := httptest.NewRequest(e.method, e.target, bytes.NewReader(body))
	req.Header.Set("X-API-Token", "test-key")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, val := range e.reqHeader {
		req.Header.Set(k, val)
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Request-ID", "req-0001")
	for k, val := range e.respHeader {
		h.Set(k, val)
	}
	for _, k := range e.dropHeaders {
		h.Del(k)
	}
	return v.Validate(context.Background(), req, body, e.status, h, []byte(e.respBody))
}

func newValidator(t *testing.T) *Validator {
	t.Helper()
	v, err := NewValidator()
	if err != nil {
		t.Fatalf("NewValidator: %v", err)
	}
	return v
}

const (
	planJSON = `{
		"id": 12, "name": "Cloud S", "type": "cloud", "cpu": 2, "memory": 4, "disk": 60,
		"term_filter": "hourly",
		"prices": [{"term": "hourly", "price": 0.012, "currency": "USD"}],
		"creation_fee": 0,
		"templates": [{"id": 3, "name": "Ubuntu 24.04", "os_type": "linux"}],
		"features": [{"id": 7, "name": "IPv4", "price": 0.002, "required_for_os_types": ["windows"]}],
		"actions": ["power_on", "power_off", "reboot", "rebuild", "reset_password", "change_ip", "console", "resize"],
		"datacenter": {"id": 1, "name": "Tehran 1", "description": null, "status": "available", "enabled": true,
			"terms": [{"term": "hourly", "enabled": true}], "require_kyc": false},
		"location": {"id": 4, "datacenter_id": 1, "name": "Tehran", "country": "Iran", "country_code": "IR",
			"flag": null, "active": true, "status": null},
		"traffic": {"included": 1000, "allow_overage": true, "overage_price": 0.01}
	}`
	instanceDetailJSON = `{
		"id": 55, "name": "web-1", "status": "online", "active": true, "hostname": "web-1.example.com",
		"server_product_id": 12, "ipv4": "203.0.113.9", "ipv6": null, "term": "hourly",
		"renewal_due": "2025-01-01T13:00:00Z", "renew": true, "locked": false, "lock_reason": null,
		"created_at": "2025-01-01T12:00:00+03:30", "expired_at": null,
		"datacenter_id": 1, "location_id": 4, "template_id": 3, "costs": 0.002, "paid_amount": 0.014,
		"actions": ["reboot"], "snapshots": true,
		"server_product": {"id": 12, "name": "Cloud S", "type": "cloud", "cpu": 2, "memory": 4, "disk": 60},
		"location": null, "datacenter": null,
		"template": {"id": 3, "name": "Ubuntu 24.04", "os_type": "linux"},
		"traffic": {"enabled": true, "included": 1000, "used": 3, "overage": 0, "allow_overage": true, "cycle_start_date": "2025-01-01T12:00:00Z"},
		"credentials": {"username": "root", "password": null, "port": 22, "ipv4": "203.0.113.9", "ipv6": null, "pending": true},
		"apps": [{"app_id": "docker", "name": "Docker", "status": "queued"}],
		"ip_change_cost": 0
	}`
	snapshotJSON = `{
		"id": 9, "name": "before-upgrade", "status": "available", "note": null, "locked": false, "lock_reason": null,
		"size_gb": 12.5, "price": 0.000417, "price_monthly": 0.3, "term": "hourly", "accrued": 0.0002,
		"renewal_due": "2025-01-01T14:00:00Z", "created_at": "2025-01-01T12:00:00Z",
		"available_at": "2025-01-01T12:05:00Z", "expired_at": null, "instance_id": null,
		"datacenter_id": 1, "location_id": 4, "template_id": 3, "server_product_id": 12, "os_type": "linux",
		"source_name": "web-1", "features": ["IPv4"], "local": false, "restore": true, "paid_amount": 0.01
	}`
)

func TestValidatorAcceptsValidExchanges(t *testing.T) {
	v := newValidator(t)
	cases := map[string]exchange{
		"health": {method: "GET", target: "/api/v1/health", status: 200,
			respBody: `{"success": true, "data": {"status": "ok", "api": "1.1.0"}}`},
		"health absolute URL, meta null": {method: "GET", target: "http://127.0.0.1:43123/api/v1/health", status: 200,
			respBody: `{"success": true, "data": {"status": "ok", "api": "1.1.0"}, "meta": null}`},
		"health rate limited": {method: "GET", target: "/api/v1/health", status: 429,
			respBody:   `{"success": false, "error": {"code": "rate_limited", "message": "slow down"}}`,
			respHeader: map[string]string{"Retry-After": "3"}},
		"dollar": {method: "GET", target: "/api/v1/api/dollar", status: 200,
			respBody: `{"success": true, "data": {"base": "USD", "currency": "IRT", "price": 91500, "updated_at": "2025-01-01T00:00:00Z"}}`},
		"plans": {method: "GET", target: "/api/v1/catalog/servers?lang=en&limit=1&offset=0&term=hourly&datacenter_id=1&country_code=IR", status: 200,
			respBody: `{"success": true, "data": [` + planJSON + `], "meta": {"page": {"total": 3, "limit": 1, "offset": 0}}}`},
		"plan without optional objects": {method: "GET", target: "/api/v1/catalog/servers/12", status: 200,
			reqHeader: map[string]string{"Accept-Language": "en-US,en;q=0.9"},
			respBody: `{"success": true, "data": {"id": 12, "name": "S", "type": "cloud", "cpu": 1, "memory": 1, "disk": 10,
				"term_filter": "hourly", "prices": [], "creation_fee": 0.5, "templates": [], "features": [], "actions": [],
				"datacenter": null, "location": null, "traffic": null}}`},
		"plan not found": {method: "GET", target: "/api/v1/catalog/servers/999", status: 404,
			respBody: `{"success": false, "error": {"code": "not_found", "message": "plan 999 not found", "request_id": "req-0001"}}`},
		"account": {method: "GET", target: "/api/v1/account", status: 200,
			respBody: `{"success": true, "data": {"id": 1, "api_key_hint": "rk_12", "api_key_created_at": null,
				"webhook_configured": false, "server_limit": 10, "api_order_limit": 5, "language": "fa"}}`},
		"unauthorized": {method: "GET", target: "/api/v1/account", status: 401,
			respBody: `{"success": false, "error": {"code": "unauthorized", "message": "missing key", "request_id": "req-0001", "reference": null}}`},
		"balance": {method: "GET", target: "/api/v1/account/balance", status: 200,
			respBody: `{"success": true, "data": {"balance": 100, "debt": 0, "reserved": 0.012, "available": 99.988,
				"hours_until_balance_zero": null, "active_instances": 0, "pending_orders": 1}}`},
		"payments": {method: "GET", target: "/api/v1/account/payments", status: 200,
			respBody: `{"success": true, "data": [{"id": 1, "amount": 50, "payment_type": "card", "paid_at": "2025-01-01T00:00:00Z"},
				{"id": 2, "amount": 5, "payment_type": null, "paid_at": null}], "meta": null}`},
		"put webhook": {method: "PUT", target: "/api/v1/account/webhook", status: 200,
			reqBody:  `{"url": "https://hooks.example.com/x", "secret": "0123456789abcdef"}`,
			respBody: `{"success": true, "data": {"url": "https://hooks.example.com/x", "configured": true, "events": ["ping", "order.deployed"]}}`},
		"webhook test": {method: "POST", target: "/api/v1/account/webhook/test", status: 200,
			respBody: `{"success": true, "data": {"delivered": false, "status": null}}`},
		"webhook test unavailable": {method: "POST", target: "/api/v1/account/webhook/test", status: 503,
			respBody: `{"success": false, "error": {"code": "service_unavailable", "message": "relay down", "request_id": "r"}}`},
		"apps": {method: "GET", target: "/api/v1/catalog/apps?server_id=12&template_id=3", status: 200,
			respBody: `{"success": true, "data": [{"id": "wordpress", "name": "WordPress", "category": "cms", "description": null,
				"requires": ["docker"], "conflicts": [], "ports": ["80", "443"], "min_memory_mb": 1024, "min_disk_gb": 10,
				"os_families": ["debian"], "inputs": [{"key": "ADMIN_EMAIL", "label": "Admin e-mail", "kind": "email",
				"required": false, "default": null, "help": null}]}]}`},
		"quote": {method: "POST", target: "/api/v1/quote", status: 200,
			reqBody: `{"server_id": 12, "template_id": null, "active_features": ["7"]}`,
			respBody: `{"success": true, "data": {"server_id": 12, "term": "hourly", "active_features": ["7"], "cost": 0.014,
				"creation_fee": 0, "recurring": 0.014, "balance": 100, "reserved": 0, "sufficient_balance": true, "difference": 0}}`},
		"orders": {method: "GET", target: "/api/v1/orders", status: 200,
			respBody: `{"success": true, "data": [
				{"order_id": 2, "status": "pending", "success": false, "created_at": "2025-01-01T12:00:00Z", "finished_at": null, "server": null, "reference": null},
				{"order_id": 1, "status": "deployed", "success": true, "created_at": "2025-01-01T11:00:00Z", "finished_at": "2025-01-01T11:03:00Z",
				 "server": ` + instanceDetailJSON + `, "reference": null}]}`},
		"timed out order": {method: "GET", target: "/api/v1/orders/3", status: 200,
			respBody: `{"success": true, "data": {"order_id": 3, "status": "timed_out", "success": false, "reference": "K7Q2M9"}}`},
		"create instance": {method: "POST", target: "/api/v1/instances", status: 201,
			reqHeader: map[string]string{"Idempotency-Key": "abc-123"},
			reqBody: `{"server_id": 12, "template_id": 3, "term": "hourly", "snapshot_id": null, "active_features": ["7"],
				"hostname": "web-1.example.com", "apps": ["wordpress"], "app_inputs": {"wordpress": {"ADMIN_EMAIL": "a@b.c"}}}`,
			respBody: `{"success": true, "data": {"order_id": 9, "price": 0.014, "apps": ["docker", "wordpress"]}, "meta": {"idempotent_replay": true}}`},
		"create instance provider error": {method: "POST", target: "/api/v1/instances", status: 502,
			reqBody:  `{"server_id": 12, "template_id": 3, "term": "hourly"}`,
			respBody: `{"success": false, "error": {"code": "deploy_rejected", "message": "rejected", "request_id": "r", "reference": "AB12CD"}}`},
		"create instance key reused": {method: "POST", target: "/api/v1/instances", status: 422,
			reqBody:  `{"server_id": 12, "template_id": 3, "term": "hourly"}`,
			respBody: `{"success": false, "error": {"code": "idempotency_key_reused", "message": "reused", "request_id": "r"}}`},
		"instances": {method: "GET", target: "/api/v1/instances?only_active=false", status: 200,
			respBody: `{"success": true, "data": [{"id": 55, "name": "web-1", "status": null, "active": false, "hostname": null, "server_product_id": 12}]}`},
		"instance detail": {method: "GET", target: "/api/v1/instances/55?refresh=true", status: 200,
			respBody: `{"success": true, "data": ` + instanceDetailJSON + `}`},
		"patch instance": {method: "PATCH", target: "/api/v1/instances/55", status: 200,
			reqBody:  `{"name": "web-2", "note": null, "renew": false}`,
			respBody: `{"success": true, "data": ` + instanceDetailJSON + `}`},
		"patch locked": {method: "PATCH", target: "/api/v1/instances/55", status: 409,
			reqBody:  `{"renew": true}`,
			respBody: `{"success": false, "error": {"code": "instance_locked", "message": "locked", "request_id": "r"}}`},
		"cancel instance": {method: "DELETE", target: "/api/v1/instances/55", status: 200,
			respBody: `{"success": true, "data": {"id": 55, "status": "canceled", "active": false}}`},
		"action": {method: "POST", target: "/api/v1/instances/55/actions", status: 200,
			reqBody:  `{"action": "change_ip", "accept_cost": 1.5}`,
			respBody: `{"success": true, "data": {"action": "change_ip", "success": true, "ipv4": "203.0.113.10", "clean": true, "debt": null, "charged": 1.5}}`},
		"resize options": {method: "GET", target: "/api/v1/instances/55/resize-options", status: 200,
			respBody: `{"success": true, "data": {"instance_id": 55, "current_server_product_id": 12, "term": "hourly", "options": [
				{"id": 13, "name": "Cloud M", "type": "cloud", "cpu": 4, "memory": 8, "disk": 120, "price": 0.024, "term": "hourly", "charge_now": 0.006, "new_cost": 0.026}]}}`},
		"traffic": {method: "GET", target: "/api/v1/instances/55/traffic", status: 200,
			respBody: `{"success": true, "data": {"enabled": false, "included": 0, "used": 0, "overage": 0, "allow_overage": false, "cycle_start_date": null}}`},
		"instance apps": {method: "GET", target: "/api/v1/instances/55/apps", status: 200,
			respBody: `{"success": true, "data": {"server_id": 55, "supported": true, "installs": [{"app_id": "docker", "name": "Docker",
				"status": "failed", "stage": "auth_failed", "attempts": 1, "result": {}, "error": "root password rejected",
				"log_tail": "...", "started_at": "2025-01-01T12:00:00Z", "finished_at": null}]}}`},
		"install apps": {method: "POST", target: "/api/v1/instances/55/apps", status: 202,
			reqBody:  `{"apps": ["wordpress"]}`,
			respBody: `{"success": true, "data": {"server_id": 55, "queued": ["docker", "wordpress"]}}`},
		"snapshots": {method: "GET", target: "/api/v1/snapshots?include_inactive=true", status: 200,
			respBody: `{"success": true, "data": [` + snapshotJSON + `, {"id": 8, "name": "old", "status": "deleted"}]}`},
		"instance snapshots": {method: "GET", target: "/api/v1/instances/55/snapshots", status: 200,
			respBody: `{"success": true, "data": [` + snapshotJSON + `], "meta": {"settings": {"price_per_gb_month": 0.024,
				"term": "hourly", "term_hours": 1, "max_per_instance": 3, "cross_location": false, "restore": true}}}`},
		"create snapshot without body": {method: "POST", target: "/api/v1/instances/55/snapshots", status: 202,
			respBody: `{"success": true, "data": {"id": 10, "name": "web-1 2025-01-01 12:00", "status": "creating"}}`},
		"patch snapshot": {method: "PATCH", target: "/api/v1/snapshots/9", status: 200,
			reqBody:  `{"note": ""}`,
			respBody: `{"success": true, "data": ` + snapshotJSON + `}`},
		"restore snapshot": {method: "POST", target: "/api/v1/snapshots/9/restore", status: 200,
			respBody: `{"success": true, "data": ` + snapshotJSON + `}`},
		"order limit reached": {method: "POST", target: "/api/v1/instances", status: 409,
			reqHeader: map[string]string{"Idempotency-Key": "3f1c2a9e-0b7d-4d1e-9a51-0c2b7e8f9a10"},
			reqBody:   `{"server_id": 12, "template_id": 3, "term": "hourly"}`,
			respBody:  `{"success": false, "error": {"code": "order_limit_reached", "message": "limit", "request_id": "r"}}`},
		"order from a snapshot without template": {method: "POST", target: "/api/v1/instances", status: 404,
			reqBody:  `{"server_id": 12, "term": "hourly", "snapshot_id": 4}`,
			respBody: `{"success": false, "error": {"code": "not_found", "message": "snapshot not found", "request_id": "r"}}`},
		"free ip change too soon": {method: "POST", target: "/api/v1/instances/55/actions", status: 409,
			reqBody:  `{"action": "change_ip"}`,
			respBody: `{"success": false, "error": {"code": "ip_change_too_soon", "message": "wait", "request_id": "r"}}`},
		"app conflict": {method: "POST", target: "/api/v1/instances/55/apps", status: 409,
			reqBody:  `{"apps": ["wireguard"]}`,
			respBody: `{"success": false, "error": {"code": "app_conflict", "message": "openvpn", "request_id": "r"}}`},
		"instance detail with the backend's extra fields": {method: "GET", target: "/api/v1/instances/55", status: 200,
			respBody: `{"success": true, "data": ` + strings.Replace(instanceDetailJSON, `"ip_change_cost": 0`,
				`"ip_change_cost": 0.5, "note": "primary", "active_features": ["1"], "order_id": 9, "recurring": 0.0054`, 1) + `}`},
		"unknown path": {method: "GET", target: "/api/v1/nope", status: 404,
			respBody: `{"success": false, "error": {"code": "not_found", "message": "no such route", "request_id": "r"}}`},
		"outside the base path": {method: "GET", target: "/v2/health", status: 404,
			respBody: `{"success": false, "error": {"code": "not_found", "message": "no such route", "request_id": "r"}}`},
		"wrong method": {method: "DELETE", target: "/api/v1/instances/55/traffic", status: 405,
			respHeader: map[string]string{"Allow": "GET"},
			respBody:   `{"success": false, "error": {"code": "method_not_allowed", "message": "use GET", "request_id": "r"}}`},
		// Negative requests answered with a documented 4xx agree with the document.
		"unknown body field answered 400": {method: "POST", target: "/api/v1/quote", status: 400,
			reqBody:  `{"server_id": 12, "foo": 1}`,
			respBody: `{"success": false, "error": {"code": "validation_error", "message": "unknown field \"foo\"", "request_id": "r"}}`},
		"bad limit answered 400": {method: "GET", target: "/api/v1/instances?limit=0", status: 400,
			respBody: `{"success": false, "error": {"code": "validation_error", "message": "limit", "request_id": "r"}}`},
		"short secret answered 400": {method: "PUT", target: "/api/v1/account/webhook", status: 400,
			reqBody:  `{"url": "https://x", "secret": "short"}`,
			respBody: `{"success": false, "error": {"code": "validation_error", "message": "secret", "request_id": "r"}}`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if err := c.run(t, v); err != nil {
				t.Errorf("valid exchange rejected: %v", err)
			}
		})
	}
}

func TestValidatorRejectsInvalidExchanges(t *testing.T) {
	v := newValidator(t)
	cases := map[string]exchange{
		"health missing required field": {method: "GET", target: "/api/v1/health", status: 200,
			respBody: `{"success": true, "data": {"status": "ok"}}`},
		"health wrong type": {method: "GET", target: "/api/v1/health", status: 200,
			respBody: `{"success": true, "data": {"status": "ok", "api": 1.1}}`},
		"health undocumented status": {method: "GET", target: "/api/v1/health", status: 418,
			respBody: `{"success": false, "error": {"code": "server_error", "message": "teapot", "request_id": "r"}}`},
		"health success false": {method: "GET", target: "/api/v1/health", status: 200,
			respBody: `{"success": false, "data": {"status": "ok", "api": "1.1.0"}}`},
		"health not JSON": {method: "GET", target: "/api/v1/health", status: 200, respBody: `ok`},
		"missing X-Request-ID": {method: "GET", target: "/api/v1/health", status: 200,
			respBody: `{"success": true, "data": {"status": "ok", "api": "1.1.0"}}`, dropHeaders: []string{"X-Request-ID"}},
		"wrong content type": {method: "GET", target: "/api/v1/health", status: 200,
			respBody: `{"success": true, "data": {"status": "ok", "api": "1.1.0"}}`, respHeader: map[string]string{"Content-Type": "text/plain"}},
		"429 without Retry-After": {method: "GET", target: "/api/v1/health", status: 429,
			respBody: `{"success": false, "error": {"code": "rate_limited", "message": "slow down"}}`},
		"plans memory as string": {method: "GET", target: "/api/v1/catalog/servers", status: 200,
			respBody: `{"success": true, "data": [` + strings.Replace(planJSON, `"memory": 4`, `"memory": "4"`, 1) + `]}`},
		"plans missing prices": {method: "GET", target: "/api/v1/catalog/servers", status: 200,
			respBody: `{"success": true, "data": [` + strings.Replace(planJSON, `"prices": [{"term": "hourly", "price": 0.012, "currency": "USD"}],`, ``, 1) + `]}`},
		"plans actions null": {method: "GET", target: "/api/v1/catalog/servers", status: 200,
			respBody: `{"success": true, "data": [` + strings.Replace(planJSON, `"actions": ["power_on", "power_off", "reboot", "rebuild", "reset_password", "change_ip", "console", "resize"]`, `"actions": null`, 1) + `]}`},
		"plans data not an array": {method: "GET", target: "/api/v1/catalog/servers", status: 200,
			respBody: `{"success": true, "data": ` + planJSON + `}`},
		"plans page missing total": {method: "GET", target: "/api/v1/catalog/servers?limit=1", status: 200,
			respBody: `{"success": true, "data": [], "meta": {"page": {"limit": 1, "offset": 0}}}`},
		"plans undocumented 404": {method: "GET", target: "/api/v1/catalog/servers", status: 404,
			respBody: `{"success": false, "error": {"code": "not_found", "message": "x", "request_id": "r"}}`},
		"datacenter missing name": {method: "GET", target: "/api/v1/datacenters", status: 200,
			respBody: `{"success": true, "data": [{"id": 1}]}`},
		"bad timestamp": {method: "GET", target: "/api/v1/account/payments", status: 200,
			respBody: `{"success": true, "data": [{"id": 1, "amount": 5, "payment_type": null, "paid_at": "yesterday"}]}`},
		"unknown payment type": {method: "GET", target: "/api/v1/account/payments", status: 200,
			respBody: `{"success": true, "data": [{"id": 1, "amount": 5, "payment_type": "cash", "paid_at": null}]}`},
		"required nullable field absent": {method: "GET", target: "/api/v1/account", status: 200,
			respBody: `{"success": true, "data": {"id": 1, "api_key_created_at": null, "webhook_configured": false,
				"server_limit": 10, "api_order_limit": 5, "language": "fa"}}`},
		"error code of another status": {method: "GET", target: "/api/v1/account", status: 401,
			respBody: `{"success": false, "error": {"code": "not_found", "message": "x", "request_id": "r"}}`},
		"error without request_id": {method: "GET", target: "/api/v1/account", status: 401,
			respBody: `{"success": false, "error": {"code": "unauthorized", "message": "x"}}`},
		"unknown error code": {method: "PATCH", target: "/api/v1/instances/55", status: 409,
			reqBody:  `{"renew": true}`,
			respBody: `{"success": false, "error": {"code": "conflict", "message": "x", "request_id": "r"}}`},
		"provider error without reference": {method: "POST", target: "/api/v1/instances", status: 502,
			reqBody:  `{"server_id": 12, "template_id": 3, "term": "hourly"}`,
			respBody: `{"success": false, "error": {"code": "provider_error", "message": "x", "request_id": "r"}}`},
		"order unknown status": {method: "GET", target: "/api/v1/orders/1", status: 200,
			respBody: `{"success": true, "data": {"order_id": 1, "status": "building", "success": false}}`},
		"instance detail credentials missing pending": {method: "GET", target: "/api/v1/instances/55", status: 200,
			respBody: `{"success": true, "data": ` + strings.Replace(instanceDetailJSON, `, "pending": true`, ``, 1) + `}`},
		"instance detail server_product wrong type": {method: "GET", target: "/api/v1/instances/55", status: 200,
			respBody: `{"success": true, "data": ` + strings.Replace(instanceDetailJSON, `"cpu": 2, "memory": 4, "disk": 60}`, `"cpu": "2", "memory": 4, "disk": 60}`, 1) + `}`},
		"instance summary hostname absent": {method: "GET", target: "/api/v1/instances", status: 200,
			respBody: `{"success": true, "data": [{"id": 55, "name": "web-1", "status": null, "active": false, "server_product_id": 12}]}`},
		"snapshot settings missing": {method: "GET", target: "/api/v1/instances/55/snapshots", status: 200,
			respBody: `{"success": true, "data": []}`},
		"install record missing log_tail": {method: "GET", target: "/api/v1/instances/55/apps", status: 200,
			respBody: `{"success": true, "data": {"server_id": 55, "supported": true, "installs": [{"app_id": "docker", "name": "Docker",
				"status": "queued", "stage": "waiting", "attempts": 0, "result": {}, "error": "", "started_at": null, "finished_at": null}]}}`},
		"create instance wrong status": {method: "POST", target: "/api/v1/instances", status: 200,
			reqBody:  `{"server_id": 12, "template_id": 3, "term": "hourly"}`,
			respBody: `{"success": true, "data": {"order_id": 9, "price": 0.014, "apps": []}}`},
		"invalid request accepted": {method: "POST", target: "/api/v1/quote", status: 200,
			reqBody: `{"server_id": 12, "foo": 1}`,
			respBody: `{"success": true, "data": {"server_id": 12, "term": "hourly", "active_features": [], "cost": 0.014,
				"creation_fee": 0, "recurring": 0.014, "balance": 100, "reserved": 0, "sufficient_balance": true, "difference": 0}}`},
		"invalid term accepted": {method: "GET", target: "/api/v1/catalog/servers?term=monthly", status: 200,
			respBody: `{"success": true, "data": []}`},
		"unknown path answered 200": {method: "GET", target: "/api/v1/nope", status: 200,
			respBody: `{"success": true, "data": {}}`},
		"wrong method answered 404": {method: "DELETE", target: "/api/v1/instances/55/traffic", status: 404,
			respBody: `{"success": false, "error": {"code": "not_found", "message": "x", "request_id": "r"}}`},
		"unknown 409 code": {method: "POST", target: "/api/v1/instances/55/actions", status: 409,
			reqBody:  `{"action": "reboot"}`,
			respBody: `{"success": false, "error": {"code": "too_soon", "message": "x", "request_id": "r"}}`},
		"extra field of the wrong type": {method: "GET", target: "/api/v1/instances/55", status: 200,
			respBody: `{"success": true, "data": ` + strings.Replace(instanceDetailJSON, `"ip_change_cost": 0`,
				`"ip_change_cost": 0, "active_features": [1]`, 1) + `}`},
		"405 without Allow": {method: "DELETE", target: "/api/v1/instances/55/traffic", status: 405,
			respBody: `{"success": false, "error": {"code": "method_not_allowed", "message": "x", "request_id": "r"}}`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := c.run(t, v)
			if err == nil {
				t.Errorf("invalid exchange accepted")
				return
			}
			t.Logf("rejected as expected: %v", err)
		})
	}
}

func TestValidatorClientSideRequest(t *testing.T) {
	v := newValidator(t)
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:8080/api/v1/catalog/servers/12?lang=en", nil)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"abc"}}
	body := []byte(`{"success": true, "data": ` + planJSON + `}`)
	if err := v.Validate(context.Background(), req, nil, 200, h, body); err != nil {
		t.Fatalf("client-side request rejected: %v", err)
	}
	// The request is not consumed or changed.
	if req.Body != nil {
		t.Error("request body changed")
	}
}

func TestValidatorConcurrentUse(t *testing.T) {
	v := newValidator(t)
	ok := exchange{method: "GET", target: "/api/v1/instances/55", status: 200,
		respBody: `{"success": true, "data": ` + instanceDetailJSON + `}`}
	bad := exchange{method: "GET", target: "/api/v1/instances/55", status: 200,
		respBody: `{"success": true, "data": {"id": "55"}}`}
	done := make(chan error, 16)
	for i := range 16 {
		go func() {
			e := ok
			if i%2 == 1 {
				e = bad
			}
			err := e.run(t, v)
			switch {
			case i%2 == 0 && err != nil:
				done <- fmt.Errorf("valid exchange rejected: %w", err)
			case i%2 == 1 && err == nil:
				done <- errors.New("invalid exchange accepted")
			default:
				done <- nil
			}
		}()
	}
	for range 16 {
		if err := <-done; err != nil {
			t.Errorf("concurrent validation gave a wrong answer: %v", err)
		}
	}
}
