package devapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestFaultsRate: a rule with a rate fails the requests whose roll falls below it, and only
// those; its count goes down by the faults alone.
func TestFaultsRate(t *testing.T) {
	t.Parallel()
	f := NewFaults(FaultsConfig{AccountOf: func(context.Context, string) (int64, error) { return 0, nil }})
	rolls := []float64{0.2, 0.7, 0.49, 0.5, 0.1}
	f.roll = func() float64 { r := rolls[0]; rolls = rolls[1:]; return r }
	rate, count := 0.5, int64(10)
	route := "GET /account"
	rules, err := f.parseRules([]ruleJSON{{Route: &route, Status: ptr(http.StatusInternalServerError), Rate: &rate, Count: &count}})
	if err != nil {
		t.Fatal(err)
	}
	f.set(rules)
	h := f.Wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	var got []int
	for range 5 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/account", nil))
		got = append(got, rec.Code)
	}
	want := []int{500, 200, 500, 200, 500}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("answers %v, want %v", got, want)
		}
	}
	if left := *f.views().Rules[0].Remaining; left != 7 {
		t.Fatalf("remaining %d, want 7", left)
	}
}

func ptr[T any](v T) *T { return &v }

// TestFaultsSpareProbesAndMetrics: a rule on every route ("*"), and one naming the health
// route, fail the API but never /livez, /readyz, /metrics or /api/v1/health, which a container
// runtime, a load balancer and a scraper call.
func TestFaultsSpareProbesAndMetrics(t *testing.T) {
	t.Parallel()
	f := NewFaults(FaultsConfig{AccountOf: func(context.Context, string) (int64, error) { return 0, nil }})
	every, health := "*", "GET /health"
	rules, err := f.parseRules([]ruleJSON{{Route: &health, Status: ptr(http.StatusServiceUnavailable)},
		{Route: &every, Status: ptr(http.StatusServiceUnavailable)}, {Route: &every, Reset: ptr(true)}})
	if err != nil {
		t.Fatal(err)
	}
	f.set(rules)
	h := f.Wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	for _, path := range []string{"/livez", "/readyz", "/metrics", "/api/v1/health"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s answered %d, want 200: no fault applies to it", path, rec.Code)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/account", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("GET /api/v1/account answered %d, want the rule's 503", rec.Code)
	}
}
