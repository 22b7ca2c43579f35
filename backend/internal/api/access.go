package api

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Observer is told about every answered request and every request a rate limit refused; the
// server counts them for its metrics. Config.Observer nil observes nothing.
type Observer interface {
	// Request is one answered request: its route (see routeLabel), method, status and how long
	// the handler took.
	Request(route, method string, status int, elapsed time.Duration)
	// RateLimited is one request refused with 429 on route.
	RateLimited(route string)
}

// noObserver is the Observer of a handler configured without one.
type noObserver struct{}

func (noObserver) Request(string, string, int, time.Duration) {}
func (noObserver) RateLimited(string)                         {}

// unmatchedRoute is the route of a request no pattern matches, so a scan of random paths adds
// one label value, not one per path.
const unmatchedRoute = "unmatched"

// accessRecord is what the layers inside withRequestID learn about a request for its access
// line and its metrics: the route the mux matched, the account the key authenticated and the
// client address (clientAddr) the limits count. The layers share it by pointer, because each one
// passes on a copy of the request.
type accessRecord struct {
	id        string // the request id (requestID)
	route     string
	accountID int64  // 0: not authenticated
	client    string // "": not settled (outside withRequestID)
}

type accessKey struct{}

func withAccessRecord(ctx context.Context, rec *accessRecord) context.Context {
	return context.WithValue(ctx, accessKey{}, rec)
}

// accessOf is the record of the request of ctx; a throwaway one outside withRequestID (tests
// calling a handler directly).
func accessOf(ctx context.Context) *accessRecord {
	if rec, ok := ctx.Value(accessKey{}).(*accessRecord); ok {
		return rec
	}
	return &accessRecord{}
}

// routeLabel is a mux pattern without the version prefix, as the routes are written:
// "GET /api/v1/instances/{instance_id}" is "GET /instances/{instance_id}". It names the route
// in access lines and metrics without the ids of the path.
func routeLabel(pattern string) string {
	if pattern == "" {
		return unmatchedRoute
	}
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		return pattern
	}
	if rest, found := strings.CutPrefix(path, Prefix+"/"); found {
		path = "/" + rest
	}
	return method + " " + path
}

// logAccess tells the observer about the request and writes its access line at info: through
// the access log's queue when the handler has one (Config.AccessLog), else at once through the
// handler's logger. status 0 means the handler wrote nothing, which net/http answers with 200.
// at is when the answer was done, elapsed how long it took. It copies what the line says out of
// rec and sw, which the caller may then reuse.
func (h *handler) logAccess(r *http.Request, id string, rec *accessRecord, sw *statusWriter, at time.Time, elapsed time.Duration) {
	status := sw.status
	if status == 0 {
		status = http.StatusOK
	}
	h.observer.Request(rec.route, methodLabel(r.Method), status, elapsed)
	if h.access != nil && !h.access.enabled(r.Context()) || h.access == nil && !h.log.Enabled(r.Context(), slog.LevelInfo) {
		return
	}
	e := accessEntry{id: id, at: at, method: r.Method, route: rec.route, path: r.URL.Path, client: rec.client,
		status: status, elapsed: elapsed, bytes: sw.bytes, accountID: rec.accountID}
	if h.access != nil {
		h.access.record(e)
		return
	}
	writeAccess(h.log, e)
}

// methodLabel is r.Method as a metric label: net/http accepts any token as a method, and a
// label of each would give a client a new series per request.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}
