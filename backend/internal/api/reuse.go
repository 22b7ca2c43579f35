package api

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
)

// What handlers outside the API reuse (resellerd dev's test-control routes, package devapi), so
// their keys, bodies, answers and errors follow the API's own rules rather than a copy of them.

// Key is the key a request carries, read as every authenticated route reads it (X-API-Token,
// else Authorization: Bearer).
func Key(r *http.Request) string { return apiKey(r) }

// Responder answers in the spec's envelope as every API route does: a *service.Error as it is,
// anything else a 500 whose detail goes to the log only.
type Responder struct{ h *handler }

// NewResponder returns a Responder logging its 5xx answers to log (nil: nowhere).
func NewResponder(log *slog.Logger) Responder {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return Responder{h: &handler{log: log}}
}

// OK answers 200 with data.
func (p Responder) OK(w http.ResponseWriter, r *http.Request, data any) {
	p.h.ok(w, r, http.StatusOK, data, nil)
}

// Fail answers err.
func (p Responder) Fail(w http.ResponseWriter, r *http.Request, err error) { p.h.fail(w, r, err) }

// DecodeBody reads r's body, at most limit bytes, into dst with the API's rules (one JSON
// object, no unknown field); an empty body is an empty object.
func DecodeBody(r *http.Request, dst any, limit int64) error {
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	if err != nil {
		return decodeError(err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	return decodeBytes(b, dst)
}
