package api

import (
	"context"
	"net/http"

	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
)

// ReadyFunc tells whether the backend can serve: nil when it can, else the reason it cannot.
// It is called for every probe, which needs no key and has no rate limit, so it must be cheap:
// the server's answers from a database check at most a second old, shared by all its probes.
type ReadyFunc func(context.Context) error

// probes registers GET /livez and GET /readyz at the site root, outside /api/v1: no key, no rate
// limit (a load balancer's probes all come from one address) and nothing written.
func (h *handler) probes(mux *http.ServeMux) {
	h.handle(mux, "GET /livez", h.livez)
	h.handle(mux, "GET /readyz", h.readyz)
}

// livez answers 200 while the process serves requests at all.
func (h *handler) livez(w http.ResponseWriter, r *http.Request) {
	h.ok(w, r, http.StatusOK, probeJSON{Status: "ok"}, nil)
}

// readyz answers 200 when the backend can do its work (see Config.Ready), else 503 with the
// reason. The 503 is not logged as a failed request: a probe repeats it every few seconds for
// as long as the database is away, and the workers already log that once.
func (h *handler) readyz(w http.ResponseWriter, r *http.Request) {
	if h.ready != nil {
		if err := h.ready(r.Context()); err != nil {
			h.write(w, r, http.StatusServiceUnavailable, errorBody{Error: errorDetail{
				Code: service.CodeServiceUnavailable, Message: "not ready: " + err.Error(), RequestID: requestID(r.Context()),
			}})
			return
		}
	}
	h.ok(w, r, http.StatusOK, probeJSON{Status: "ok"}, nil)
}

type probeJSON struct {
	Status string `json:"status"`
}
