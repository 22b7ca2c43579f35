package api

import (
	"net/http"
	"strings"
)

// RouteMatcher names the route of a request before the API serves it, as the access log names
// it ("GET /instances/{instance_id}"), from the API's own route table: `resellerd dev`'s fault
// rules match requests by it.
type RouteMatcher struct{ mux *http.ServeMux }

// NewRouteMatcher returns a matcher of every route NewHandler serves.
func NewRouteMatcher() *RouteMatcher { return &RouteMatcher{mux: patternsOnly(nil)} }

// patternsOnly is a mux of the patterns routes registers (the console's too when console is not
// nil), for asking which pattern a request matches; none of its handlers is ever run.
func patternsOnly(console http.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	(&handler{console: console}).routes(mux)
	return mux
}

// Route is the route label of r, or "unmatched" when no route takes it.
func (m *RouteMatcher) Route(r *http.Request) string {
	_, pattern := m.mux.Handler(r)
	return routeLabel(pattern)
}

// Has reports whether route ("METHOD /path", as Route names it) is one of the API's routes.
func (m *RouteMatcher) Has(route string) bool {
	method, path, ok := strings.Cut(route, " ")
	if !ok || !strings.HasPrefix(path, "/") {
		return false
	}
	sample := samplePath(path)
	for _, p := range []string{Prefix + sample, sample} {
		req, err := http.NewRequest(method, p, nil)
		if err == nil && m.Route(req) == route {
			return true
		}
	}
	return false
}

// samplePath is path with each wildcard segment ({name}) replaced by a value it matches.
func samplePath(path string) string {
	segments := strings.Split(path, "/")
	for i, s := range segments {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			segments[i] = "1"
		}
	}
	return strings.Join(segments, "/")
}
