package apitest

import (
	"net/http"
	"testing"
)

// TestRequestBodiesMustBeJSON checks that a body sent as anything but application/json answers
// 415 unsupported_media_type in the envelope, and that a JSON body that is not an object is 400
// naming body; nothing is created either way.
func TestRequestBodiesMustBeJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.account(t, 10_000_000)
	quote := `{"server_id": 102}`
	tests := []struct {
		name        string
		method      string
		path        string
		contentType string
		body        string
		wantStatus  int
		wantCode    string
	}{
		{"JSON as text/plain", http.MethodPost, "/quote", "text/plain", quote, http.StatusUnsupportedMediaType, "unsupported_media_type"},
		{"a form", http.MethodPost, "/quote", "application/x-www-form-urlencoded", "server_id=102", http.StatusUnsupportedMediaType, "unsupported_media_type"},
		{"XML", http.MethodPut, "/account/webhook", "application/xml", "<webhook/>", http.StatusUnsupportedMediaType, "unsupported_media_type"},
		{"no Content-Type", http.MethodPost, "/instances", "", `{"server_id": 101, "template_id": 1}`, http.StatusUnsupportedMediaType, "unsupported_media_type"},
		{"another charset", http.MethodPost, "/quote", "application/json; charset=iso-8859-1", quote, http.StatusUnsupportedMediaType, "unsupported_media_type"},
		{"JSON with charset", http.MethodPost, "/quote", "application/json; charset=UTF-8", quote, http.StatusOK, ""},
		{"JSON", http.MethodPost, "/quote", "application/json", quote, http.StatusOK, ""},
		{"null PATCH body", http.MethodPatch, "/instances/1", "application/json", "null", http.StatusBadRequest, "validation_error"},
		{"array body", http.MethodPost, "/quote", "application/json", "[]", http.StatusBadRequest, "validation_error"},
		{"null snapshot body", http.MethodPost, "/instances/1/snapshots", "application/json", " null", http.StatusBadRequest, "validation_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, request{Method: tt.method, Path: tt.path, Key: a.APIKey, Body: tt.body,
				Header: map[string]string{"Content-Type": tt.contentType}})
			r.WantStatus(t, tt.wantStatus, tt.wantCode)
			if tt.wantCode == "validation_error" {
				r.WantMessage(t, "body")
			}
		})
	}
	orders := e.do(t, request{Path: "/orders", Key: a.APIKey})
	if string(orders.Body.Data) != "[]" {
		t.Fatalf("orders after refused requests = %s, want none", orders.Body.Data)
	}
	// A request without a body needs no Content-Type.
	e.do(t, request{Path: "/account", Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
}

// TestMalformedQueryString checks that a query string that does not parse is 400 naming query
// instead of its parameters silently vanishing.
func TestMalformedQueryString(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.account(t, 0)
	for _, query := range []string{"?limit=%zz", "?limit=1;offset=0"} {
		r := e.do(t, request{Path: "/instances" + query, Key: a.APIKey})
		r.WantStatus(t, http.StatusBadRequest, "validation_error")
		r.WantMessage(t, "query")
	}
	e.do(t, request{Path: "/instances?limit=1&offset=0", Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
}

// TestAcceptCostLimit checks that accept_cost above the largest accepted amount is 400 naming
// it, whether it fits int64 micro-USD or not.
func TestAcceptCostLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.account(t, 0)
	for _, cost := range []string{"1000000000.000001", "9300000000000", "1e30"} {
		r := e.do(t, request{Method: http.MethodPost, Path: "/instances/1/actions", Key: a.APIKey,
			Body: `{"action": "change_ip", "accept_cost": ` + cost + `}`})
		r.WantStatus(t, http.StatusBadRequest, "validation_error")
		r.WantMessage(t, "accept_cost", "1000000000")
	}
}
