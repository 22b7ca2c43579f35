package api

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// maxBodyBytes is the largest request body accepted (README: 1 MiB).
const maxBodyBytes = 1 << 20

// maxRequestIDLength bounds an incoming X-Request-ID we are willing to echo.
const maxRequestIDLength = 128

// requestID is the id withRequestID gave the request of ctx, which its access record carries
// (one context value for both); "" outside withRequestID.
func requestID(ctx context.Context) string {
	if rec, ok := ctx.Value(accessKey{}).(*accessRecord); ok {
		return rec.id
	}
	return ""
}

// requestIDHeader is X-Request-ID as net/http keys it (textproto's canonical form), used as a
// map key directly: Header.Get and Set would canonicalise "X-Request-ID" again on every request,
// allocating each time, since that spelling is not the canonical one.
const requestIDHeader = "X-Request-Id"

// withRequestID gives every request an id, echoed in X-Request-ID and in error bodies. A sane
// incoming id is kept so a client can follow one request across services. It also settles the
// request's client address (clientAddr) once, for every layer inside to share, and writes the
// access line once the answer is sent. The request's status writer and access record come from
// a pool (requestState) and go back to it once the access line has copied what it needs.
func (h *handler) withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var id string
		if in := r.Header[requestIDHeader]; len(in) > 0 {
			id = in[0]
		}
		if !saneRequestID(id) {
			id = newRequestID()
		}
		w.Header()[requestIDHeader] = []string{id}
		start := time.Now()
		st := h.requestState(w)
		defer h.releaseRequestState(st)
		rec := newAccessRecord(r.Context(), &st.rec)
		rec.id, rec.client = id, h.proxies.clientAddr(r)
		next.ServeHTTP(&st.sw, r.WithContext(withAccessRecord(r.Context(), rec)))
		end := time.Now() // one reading for the line's time and the duration
		h.logAccess(r, id, rec, &st.sw, end, end.Sub(start))
	})
}

// requestState is what withRequestID allocates for each request, kept in handler.states for
// the next one: the status writer every layer writes through and the access record, unless the
// request brought its own (Track). Neither outlives the request: net/http forbids using the
// writer after the handler returns, the record is only read and written by the layers of the
// request, and the access line copies what it says out of both (accessEntry) before they are
// reused (TestRequestStateNotShared).
type requestState struct {
	sw  statusWriter
	rec accessRecord
}

// requestState is a cleared state from the pool, its status writer writing to w.
func (h *handler) requestState(w http.ResponseWriter) *requestState {
	st, ok := h.states.Get().(*requestState)
	if !ok {
		st = new(requestState)
	}
	st.sw = statusWriter{ResponseWriter: w}
	st.rec = accessRecord{}
	return st
}

// releaseRequestState returns st to the pool, dropping what it points to so the pool keeps
// no connection alive.
func (h *handler) releaseRequestState(st *requestState) {
	*st = requestState{}
	h.states.Put(st)
}

// saneRequestID accepts 1 to 128 letters, digits and . _ - : so an echoed id cannot inject
// anything into headers or logs.
func saneRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLength {
		return false
	}
	for _, c := range id {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._-:", c)
		if !ok {
			return false
		}
	}
	return true
}

// newRequestID is 16 random bytes in hex, encoded on the stack so the string is the only
// allocation. The bytes come from math/rand/v2's generator (ChaCha8, seeded by the runtime from
// the system's entropy), not crypto/rand: an id only needs to be unique, nothing is authorised
// by knowing one, and the system call crypto/rand makes was 1.5 % of serve's CPU on a GET.
func newRequestID() string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	var s [32]byte
	hex.Encode(s[:], b[:])
	return string(s[:])
}

// statusWriter remembers whether and with which status the answer was started, and how many
// bytes of body were written.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// withRecovery turns a panic into 500 server_error; the stack goes only to the log. Inside
// withRequestID it shares that layer's status writer rather than wrapping it in another.
func (h *handler) withRecovery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw, ok := w.(*statusWriter)
		if !ok {
			sw = &statusWriter{ResponseWriter: w}
		}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler { //nolint:errorlint // sentinel compared as net/http does
				panic(v)
			}
			h.log.ErrorContext(r.Context(), "panic", slog.String("request_id", requestID(r.Context())),
				slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
			if sw.status == 0 {
				h.fail(sw, r, service.Internal(fmt.Errorf("api: panic: %v", v)))
			}
		}()
		next.ServeHTTP(sw, r)
	})
}

// withBodyLimit caps request bodies; decodeJSON reports the overflow as 413. A request without
// a body (net/http's NoBody: most GETs) has nothing to cap.
func withBodyLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
		}
		next.ServeHTTP(w, r)
	})
}

// bodyTooLarge is the answer to a body over limit bytes: the limit that applied (the API's
// maxBodyBytes, or a smaller one of a route such as /_dev/clock's), read from the reader that
// stopped it, so the message never names another.
func bodyTooLarge(limit int64) *service.Error {
	return &service.Error{Kind: service.KindTooLarge, Code: service.CodeValidation, Field: "body",
		Message: fmt.Sprintf("body: larger than %d bytes", limit)}
}

// authedFunc is a handler of a route that needs an API key; it receives the caller's account.
type authedFunc func(w http.ResponseWriter, r *http.Request, acct store.Account)

// authedIn registers a route that needs a key, rate-limited per key in bucket, which several
// routes may share.
func (h *handler) authedIn(mux *http.ServeMux, pattern, bucket string, perMinute int, fn authedFunc) {
	h.handle(mux, prefixed(pattern), func(w http.ResponseWriter, r *http.Request) {
		acct, ok := h.authenticate(w, r)
		if !ok {
			return
		}
		accessOf(r.Context()).accountID = acct.ID
		if h.limits.on() && !h.allow(w, r, "account:"+strconv.FormatInt(acct.ID, 10)+" "+bucket, perMinute) {
			return
		}
		if err := checkLang(r); err != nil {
			h.fail(w, r, err)
			return
		}
		fn(w, r, acct)
	})
}

// public registers a route without a key, rate-limited per client address and route.
func (h *handler) public(mux *http.ServeMux, pattern string, perMinute int, fn http.HandlerFunc) {
	full := prefixed(pattern)
	h.handle(mux, full, func(w http.ResponseWriter, r *http.Request) {
		if h.limits.on() && !h.allow(w, r, "ip:"+clientIP(r)+" "+full, perMinute) {
			return
		}
		fn(w, r)
	})
}

// prefixed turns "GET /account" into "GET /api/v1/account".
func prefixed(pattern string) string {
	method, path, _ := strings.Cut(pattern, " ")
	return method + " " + Prefix + path
}

// allow counts the request against its limit and answers 429 with Retry-After when it is over.
func (h *handler) allow(w http.ResponseWriter, r *http.Request, key string, perMinute int) bool {
	ok, wait := h.limits.allow(r.Context(), key, perMinute)
	if ok {
		return true
	}
	h.tooMany(w, r, wait, "too many requests")
	return false
}

// tooMany answers 429 rate_limited with Retry-After: wait seconds.
func (h *handler) tooMany(w http.ResponseWriter, r *http.Request, wait int, what string) {
	h.observer.RateLimited(accessOf(r.Context()).route)
	w.Header().Set("Retry-After", strconv.Itoa(wait))
	h.fail(w, r, &service.Error{Kind: service.KindRateLimited, Code: service.CodeRateLimited,
		Message: fmt.Sprintf("%s; retry in %d seconds", what, wait)})
}

// apiKeyHeader is X-API-Token as net/http keys it, used as a map key directly for the reason
// requestIDHeader is: Header.Get would canonicalise the spelling on every request.
const apiKeyHeader = "X-Api-Token"

// apiKey reads the key from X-API-Token or, failing that, Authorization: Bearer.
func apiKey(r *http.Request) string {
	if in := r.Header[apiKeyHeader]; len(in) > 0 {
		if k := strings.TrimSpace(in[0]); k != "" {
			return k
		}
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if ok && strings.EqualFold(scheme, "Bearer") {
		return strings.TrimSpace(token)
	}
	return ""
}

// unmatched answers a request no route takes: 405 with Allow when the path exists under
// another method, 404 otherwise, both in the envelope.
func (h *handler) unmatched(w http.ResponseWriter, r *http.Request, mux *http.ServeMux) {
	probe := &headerProbe{header: http.Header{}}
	mux.ServeHTTP(probe, r)
	if probe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.header.Get("Allow"))
		h.fail(w, r, &service.Error{Kind: service.KindMethodNotAllowed, Code: service.CodeMethodNotAllowed,
			Message: fmt.Sprintf("method %s not allowed; allowed: %s", r.Method, probe.header.Get("Allow"))})
		return
	}
	h.fail(w, r, service.NotFound("path "+r.URL.Path))
}

// headerProbe records what the mux would answer without sending it.
type headerProbe struct {
	header http.Header
	status int
}

func (p *headerProbe) Header() http.Header         { return p.header }
func (p *headerProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *headerProbe) WriteHeader(status int)      { p.status = status }
