package apitest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
)

func TestHealthNeedsNoKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.do(t, request{Path: "/health"})
	r.WantStatus(t, http.StatusOK, "")
	var h api.HealthView
	r.Data(t, &h)
	if h.Status != "ok" || h.API != "1.1.0" {
		t.Fatalf("got %+v, want ok and 1.1.0", h)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type = %q, want application/json", ct)
	}
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name     string
		incoming string
		wantEcho bool
	}{
		{"sane id is echoed", "trace-42.abc:1_x", true},
		{"none is generated", "", false},
		{"unsafe characters are replaced", "bad id\twith spaces", false},
		{"too long is replaced", strings.Repeat("a", 129), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdr := map[string]string{}
			if tt.incoming != "" {
				hdr["X-Request-ID"] = tt.incoming
			}
			// An error answer, so the id also shows in the body.
			r := e.do(t, request{Path: "/account", Header: hdr})
			r.WantStatus(t, http.StatusUnauthorized, "unauthorized")
			got := r.Header.Get("X-Request-ID")
			if tt.wantEcho && got != tt.incoming {
				t.Fatalf("X-Request-ID = %q, want %q", got, tt.incoming)
			}
			if !tt.wantEcho && (got == tt.incoming || len(got) != 32) {
				t.Fatalf("X-Request-ID = %q, want a fresh 32-character id", got)
			}
		})
	}
	a := e.do(t, request{Path: "/health"}).Header.Get("X-Request-ID")
	b := e.do(t, request{Path: "/health"}).Header.Get("X-Request-ID")
	if a == b {
		t.Fatalf("two requests share id %q", a)
	}
}

func TestUnknownPathAndWrongMethod(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.account(t, 0).APIKey
	e.do(t, request{Path: "/nope", Key: key}).WantStatus(t, http.StatusNotFound, "not_found")
	e.do(t, request{Path: "//nope"}).WantStatus(t, http.StatusNotFound, "not_found")

	r := e.do(t, request{Method: http.MethodDelete, Path: "/catalog/servers", Key: key})
	r.WantStatus(t, http.StatusMethodNotAllowed, "method_not_allowed")
	if allow := r.Header.Get("Allow"); !strings.Contains(allow, "GET") {
		t.Fatalf("Allow = %q, want GET", allow)
	}
	r = e.do(t, request{Method: http.MethodGet, Path: "/quote", Key: key})
	r.WantStatus(t, http.StatusMethodNotAllowed, "method_not_allowed")
	if allow := r.Header.Get("Allow"); !strings.Contains(allow, "POST") {
		t.Fatalf("Allow = %q, want POST", allow)
	}
}

func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.do(t, request{Path: "//openapi.json"})
	if r.Status != http.StatusOK {
		t.Fatalf("status = %d, want 200", r.Status)
	}
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(r.Raw, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") || doc.Paths["/quote"] == nil {
		t.Fatalf("got openapi %q with %d paths, want a 3.x document describing /quote", doc.OpenAPI, len(doc.Paths))
	}
}

func TestDollar(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.account(t, 0).APIKey
	e.do(t, request{Path: "/api/dollar"}).WantStatus(t, http.StatusUnauthorized, "unauthorized")
	r := e.do(t, request{Path: "/api/dollar", Key: key})
	r.WantStatus(t, http.StatusOK, "")
	var d api.DollarView
	r.Data(t, &d)
	if d.Base != "USD" || d.Currency != "IRT" || d.Price <= 0 {
		t.Fatalf("got %+v", d)
	}
}
