package apitest

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// scrape reads the backend's /metrics with Prometheus's own text parser.
func (e *env) scrape(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	e.srv.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return families
}

// value is the value of the sample of family name whose labels include want; -1 when there is
// no such sample.
func value(families map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	f := families[name]
	if f == nil {
		return -1
	}
next:
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if labels[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		case m.Untyped != nil:
			return m.Untyped.GetValue()
		}
	}
	return -1
}

// TestMetricsMove places an order with a webhook registered, lets it wait, deploys it and goes
// over a rate limit, scraping /metrics between the steps: the request counters and histogram
// count by route pattern, the provisioning queue's lag follows the pending order, the delivery
// of order.deployed is counted, and 429s are counted by route. The pool, Go and process
// collectors are there.
func TestMetricsMove(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.AllowHTTPWebhooks = true; c.RateLimitScale = 0.2 }) // POST /instances: 2 a minute
	hook := newReceiver(t, http.StatusOK)
	a := e.funded(t, 100_000_000)
	e.register(t, a.APIKey, hook.url())

	before := e.scrape(t)
	if v := value(before, "resellerd_work_oldest_due_seconds", map[string]string{"queue": "provisioning"}); v != 0 {
		t.Fatalf("provisioning lag with nothing pending = %v, want 0", v)
	}
	c := e.placed(t, a.APIKey, ubuntuOn101)
	e.clock.Advance(40 * time.Second)
	pending := e.scrape(t)
	created := map[string]string{"route": "POST /instances", "method": "POST", "code": "201"}
	if v := value(pending, "resellerd_http_requests_total", created); v != 1 {
		t.Fatalf("POST /instances 201 count = %v, want 1", v)
	}
	if v := value(pending, "resellerd_http_request_duration_seconds", map[string]string{"route": "POST /instances"}); v != 1 {
		t.Fatalf("POST /instances duration count = %v, want 1", v)
	}
	if v := value(pending, "resellerd_work_oldest_due_seconds", map[string]string{"queue": "provisioning"}); v < 40 {
		t.Fatalf("provisioning lag of an order pending 40 s = %v", v)
	}

	e.runDue(t)
	o := e.getOrder(t, a.APIKey, c.OrderID)
	if o.Status != "deployed" || o.Server == nil {
		t.Fatalf("order is %s, want deployed", o.Status)
	}
	e.getInstance(t, a.APIKey, o.Server.ID)
	e.placed(t, a.APIKey, ubuntuOn101)
	e.order(t, a.APIKey, "", ubuntuOn101).WantStatus(t, http.StatusTooManyRequests, "rate_limited")

	after := e.scrape(t)
	checks := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"resellerd_http_requests_total", created, 2},
		{"resellerd_http_requests_total", map[string]string{"route": "GET /instances/{instance_id}", "code": "200"}, 1},
		{"resellerd_http_requests_total", map[string]string{"route": "POST /instances", "code": "429"}, 1},
		{"resellerd_rate_limited_total", map[string]string{"route": "POST /instances"}, 1},
		{"resellerd_webhook_deliveries_total", map[string]string{"outcome": "delivered"}, 1},
		{"resellerd_work_oldest_due_seconds", map[string]string{"queue": "deliveries"}, 0},
	}
	for _, c := range checks {
		if v := value(after, c.name, c.labels); v != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, v, c.want)
		}
	}
	if len(hook.deliveries()) != 1 {
		t.Errorf("the receiver got %d deliveries, want 1", len(hook.deliveries()))
	}
	for _, name := range []string{"go_sql_open_connections", "go_goroutines", "process_resident_memory_bytes"} {
		if after[name] == nil {
			t.Errorf("%s is missing", name)
		}
	}
	if value(after, "go_sql_open_connections", map[string]string{"db_name": "main"}) < 0 {
		t.Error("no pool metrics for the main pool")
	}
	for _, q := range []string{"provisioning", "deliveries", "renewals", "installs", "snapshots"} {
		if value(after, "resellerd_work_oldest_due_seconds", map[string]string{"queue": q}) < 0 {
			t.Errorf("no lag for queue %s", q)
		}
	}
}
