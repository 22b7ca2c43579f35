package main

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestMetricsListener serves with --metrics-listen: /metrics and the probes answer there, while
// the API listener answers 404 on /metrics and serves the probes too.
func TestMetricsListener(t *testing.T) {
	t.Parallel()
	opts, err := parseServe([]string{"--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
		"--db", filepath.Join(t.TempDir(), "m.db")}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	a := serveAddrs(t, opts, io.Discard)
	if len(a) != 2 {
		t.Fatalf("bound %v, want the API and the metrics listener", a)
	}
	api, metrics := "http://"+a[0].String(), "http://"+a[1].String()

	getStatus(t, api+"/api/v1/health", "") // counted on the metrics listener below
	resp := get(t, metrics+"/metrics", "")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK ||
		!strings.Contains(string(body), `resellerd_http_requests_total{code="200",method="GET",route="GET /health"} 1`) ||
		!strings.Contains(string(body), "go_sql_") ||
		!strings.Contains(string(body), "resellerd_access_log_dropped_total 0") {
		t.Fatalf("/metrics: %d\n%s", resp.StatusCode, body)
	}
	for url, want := range map[string]int{api + "/metrics": 404, api + "/livez": 200, api + "/readyz": 200,
		metrics + "/livez": 200, metrics + "/readyz": 200} {
		if got := getStatus(t, url, ""); got != want {
			t.Errorf("GET %s: %d, want %d", url, got, want)
		}
	}
}
