package api

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	gojson "github.com/goccy/go-json"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
)

// successBody is the envelope of every 2xx answer.
type successBody struct {
	Success bool `json:"success"`
	Data    any  `json:"data"`
	Meta    any  `json:"meta,omitempty"`
}

// errorBody is the envelope of every error answer.
type errorBody struct {
	Success bool        `json:"success"`
	Error   errorDetail `json:"error"`
}

type errorDetail struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"request_id,omitempty"`
	Reference string `json:"reference,omitempty"`
}

// MetaView is the meta of a success envelope (schema Meta): page on a paginated list,
// idempotent_replay on a POST /instances that replays an earlier order. Each is left out
// when it does not apply, so an answer carries only its own.
type MetaView struct {
	Page             *PageView `json:"page,omitempty"`
	IdempotentReplay bool      `json:"idempotent_replay,omitempty"`
}

// PageView is meta.page of a paginated list (schema Page).
type PageView struct {
	Total  int `json:"total"`
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
}

// ok writes a success envelope. meta may be nil.
func (h *handler) ok(w http.ResponseWriter, r *http.Request, status int, data, meta any) {
	h.write(w, r, status, successBody{Success: true, Data: data, Meta: meta})
}

// statusOf is the HTTP status of each kind of service error: the one place an error's status
// is decided (spec: Errors). Conflicts share 409 whatever their code; validation_error is 400,
// and 413 when it is the body that is too large.
var statusOf = map[service.Kind]int{
	service.KindInvalid:              http.StatusBadRequest,
	service.KindUnauthorized:         http.StatusUnauthorized,
	service.KindInsufficientBalance:  http.StatusPaymentRequired,
	service.KindForbidden:            http.StatusForbidden,
	service.KindNotFound:             http.StatusNotFound,
	service.KindMethodNotAllowed:     http.StatusMethodNotAllowed,
	service.KindConflict:             http.StatusConflict,
	service.KindTooLarge:             http.StatusRequestEntityTooLarge,
	service.KindUnsupportedMediaType: http.StatusUnsupportedMediaType,
	service.KindKeyReused:            http.StatusUnprocessableEntity,
	service.KindRateLimited:          http.StatusTooManyRequests,
	service.KindInternal:             http.StatusInternalServerError,
	service.KindProvider:             http.StatusBadGateway,
	service.KindUnavailable:          http.StatusServiceUnavailable,
}

// errorStatus is the status of an error of kind k; a kind missing from statusOf is a fault of
// ours, answered 500.
func errorStatus(k service.Kind) int {
	if status, ok := statusOf[k]; ok {
		return status
	}
	return http.StatusInternalServerError
}

// fail writes the error envelope for err. A *service.Error is shown as it is, with its kind's
// status; anything else is a 500 whose detail goes to the log only. Every 5xx is logged with
// its request id.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	e := service.AsError(err)
	status := errorStatus(e.Kind)
	if status >= http.StatusInternalServerError {
		h.log.ErrorContext(r.Context(), "request failed",
			slog.String("request_id", requestID(r.Context())),
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", status), slog.Any("error", err))
	}
	h.write(w, r, status, errorBody{Error: errorDetail{
		Code: e.Code, Message: e.Message, RequestID: requestID(r.Context()), Reference: e.Reference,
	}})
}

func (h *handler) write(w http.ResponseWriter, r *http.Request, status int, body any) {
	buf := h.bufs.get()
	defer h.bufs.put(buf)
	if err := buf.encode(body); err != nil { // Encode ends the answer with '\n'
		h.log.ErrorContext(r.Context(), "encode response", slog.String("request_id", requestID(r.Context())), slog.Any("error", err))
		status = http.StatusInternalServerError
		buf.Reset()
		_ = buf.encode(errorBody{Error: errorDetail{Code: service.CodeServerError,
			Message: "internal error; quote the request id to support", RequestID: requestID(r.Context())}})
	}
	send(w, status, buf.Bytes())
}

// send writes a JSON answer already encoded.
func send(w http.ResponseWriter, status int, body []byte) {
	hdr := w.Header()
	hdr["Content-Type"] = jsonContentType
	hdr["X-Content-Type-Options"] = noSniff
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// jsonContentType and noSniff are the values of every JSON answer's Content-Type and
// X-Content-Type-Options, shared by all answers instead of a slice made for each (Header.Set).
// Nothing changes a header value in place (Set and Add make new slices; each is exactly one
// long, so an Add copies), and net/http only reads them.
var (
	jsonContentType = []string{"application/json; charset=utf-8"}
	noSniff         = []string{"nosniff"}
)

// encodeBuffer is a buffer an answer is encoded into, with the JSON encoder writing into it,
// pooled together so an answer allocates neither.
//
// The encoder is github.com/goccy/go-json's, not encoding/json's: it writes the same bytes
// (TestAnswersEncodeAsEncodingJSON holds every view and awkward strings to that) in about 40 %
// of the time, because it compiles each type's encoding once instead of walking it by
// reflection on every answer. encoding/json was 14 % of serve's CPU on the GET path
// (bench/README.md, seventh round). Decoding stays with encoding/json: its errors name the
// field, and requests are small.
type encodeBuffer struct {
	bytes.Buffer
	enc *gojson.Encoder
}

// encode appends v to the buffer as JSON and a newline, as encoding/json's Encoder does.
func (b *encodeBuffer) encode(v any) error { return b.enc.Encode(v) }

// bufferPool keeps the buffers answers are encoded into, so a busy read path does not allocate
// (and collect) a few kilobytes per answer.
type bufferPool struct{ pool sync.Pool }

// maxPooledBuffer is the largest buffer kept for reuse; a rare big answer's goes to the GC.
const maxPooledBuffer = 64 << 10

func (p *bufferPool) get() *encodeBuffer {
	if b, ok := p.pool.Get().(*encodeBuffer); ok {
		return b
	}
	b := new(encodeBuffer)
	b.enc = gojson.NewEncoder(&b.Buffer)
	return b
}

func (p *bufferPool) put(b *encodeBuffer) {
	if b.Cap() > maxPooledBuffer {
		return
	}
	b.Reset()
	p.pool.Put(b)
}

// listStream writes a success envelope whose data is an array, one element at a time, so a long
// list is never held in memory whole. The status line goes out with the first element (or at
// the end), so an error met before it still gets a proper error answer.
type listStream struct {
	w       http.ResponseWriter
	started bool
	items   int
}

func newListStream(w http.ResponseWriter) *listStream { return &listStream{w: w} }

// add encodes v as the next element.
func (l *listStream) add(v any) error {
	b, err := gojson.Marshal(v)
	if err != nil {
		return fmt.Errorf("api: encode list element: %w", err)
	}
	l.start()
	sep := []byte(",")
	if l.items == 0 {
		sep = nil
	}
	l.items++
	if _, err := l.w.Write(append(sep, b...)); err != nil {
		return fmt.Errorf("api: write list element: %w", err)
	}
	return nil
}

func (l *listStream) start() {
	if l.started {
		return
	}
	l.started = true
	l.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	l.w.Header().Set("X-Content-Type-Options", "nosniff")
	l.w.WriteHeader(http.StatusOK)
	_, _ = l.w.Write([]byte(`{"success":true,"data":[`))
}

// finish closes the list, or answers err. An error after the first element can no longer change
// the status: the connection is cut, so the client sees a broken body, never a short list.
func (h *handler) finish(w http.ResponseWriter, r *http.Request, l *listStream, err error) {
	switch {
	case err != nil && !l.started:
		h.fail(w, r, err)
	case err != nil:
		h.log.ErrorContext(r.Context(), "list cut short", slog.String("request_id", requestID(r.Context())), slog.Any("error", err))
		panic(http.ErrAbortHandler)
	default:
		l.start()
		_, _ = w.Write([]byte("]}\n"))
	}
}
