package acctest

import (
	"net/http"
	"strings"
	"sync"
)

// requestLog counts the requests the in-process backend answers, per route ("GET /instances/{id}":
// the method and the path after /api/v1, numeric segments as {id}) and per status, so tests can
// assert how many requests an operation costs.
type requestLog struct {
	mu       sync.Mutex
	routes   map[string]int
	statuses map[int]int
}

func newRequestLog() *requestLog {
	return &requestLog{routes: map[string]int{}, statuses: map[int]int{}}
}

// wrap counts every request next answers.
func (l *requestLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		l.mu.Lock()
		defer l.mu.Unlock()
		l.routes[r.Method+" "+routeOf(r.URL.Path)]++
		l.statuses[rec.status]++
	})
}

func (l *requestLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.routes)
	clear(l.statuses)
}

// routeOf drops the version prefix of path and names its numeric segments {id}.
func routeOf(path string) string {
	path = strings.TrimPrefix(path, "/api/v1")
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if p != "" && strings.Trim(p, "0123456789") == "" {
			parts[i] = "{id}"
		}
	}
	return strings.Join(parts, "/")
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

// Unwrap lets http.ResponseController (and a WebSocket's upgrade, a console's) reach the
// underlying writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Requests returns how many requests of route (e.g. "GET /instances/{id}") the backend has
// answered since it started or since the last ResetRequests.
func (b *Backend) Requests(route string) int {
	b.requests.mu.Lock()
	defer b.requests.mu.Unlock()
	return b.requests.routes[route]
}

// RequestRoutes returns the count of every route answered so far, for failure messages.
func (b *Backend) RequestRoutes() map[string]int {
	b.requests.mu.Lock()
	defer b.requests.mu.Unlock()
	out := make(map[string]int, len(b.requests.routes))
	for k, v := range b.requests.routes {
		out[k] = v
	}
	return out
}

// Answers returns how many answers had the given HTTP status (e.g. 429).
func (b *Backend) Answers(status int) int {
	b.requests.mu.Lock()
	defer b.requests.mu.Unlock()
	return b.requests.statuses[status]
}

// ResetRequests zeroes the counts, so a test step can count only its own requests.
func (b *Backend) ResetRequests() { b.requests.reset() }
