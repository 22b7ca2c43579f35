package api

import (
	"encoding/json"
	"log/slog"
	"net/http"

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

// pageMeta is meta.page of a paginated list.
type pageMeta struct {
	Page pageInfo `json:"page"`
}

type pageInfo struct {
	Total  int `json:"total"`
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
}

// ok writes a success envelope. meta may be nil.
func (h *handler) ok(w http.ResponseWriter, r *http.Request, status int, data, meta any) {
	h.write(w, r, status, successBody{Success: true, Data: data, Meta: meta})
}

// fail writes the error envelope for err. A *service.Error is shown as it is; anything else is
// a 500 whose detail goes to the log only. Every 5xx is logged with its request id.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	e := service.AsError(err)
	if e.Status >= http.StatusInternalServerError {
		h.log.ErrorContext(r.Context(), "request failed",
			slog.String("request_id", requestID(r.Context())),
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", e.Status), slog.Any("error", err))
	}
	h.write(w, r, e.Status, errorBody{Error: errorDetail{
		Code: e.Code, Message: e.Message, RequestID: requestID(r.Context()), Reference: e.Reference,
	}})
}

func (h *handler) write(w http.ResponseWriter, r *http.Request, status int, body any) {
	b, err := json.Marshal(body)
	if err != nil {
		h.log.ErrorContext(r.Context(), "encode response", slog.String("request_id", requestID(r.Context())), slog.Any("error", err))
		status = http.StatusInternalServerError
		b, _ = json.Marshal(errorBody{Error: errorDetail{Code: service.CodeServerError,
			Message: "internal error; quote the request id to support", RequestID: requestID(r.Context())}})
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
