// Package apicall sends one request to a resellerd over HTTP and reads the API's envelope back:
// the vocabulary the backend's HTTP tests share (the conformance suite in backend/apitest and
// the unit tests of backend/resellerd), so a request is built and an answer judged one way.
package apicall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
)

// openAPIPath is the one answer that is not in the envelope: the OpenAPI document.
const openAPIPath = "//openapi.json"

// Request describes one call.
type Request struct {
	Method string // GET when empty
	Path   string // after /api/v1, or from the site root when it starts with "//"
	Key    string // sent as X-API-Token, or as a Bearer token with Bearer
	Bearer bool
	Body   string // sent as application/json when not empty
	Header map[string]string
	// SkipContract marks an exchange that deliberately departs from the OpenAPI document, for
	// callers that hold exchanges to it.
	SkipContract bool
}

// Response is the answer, its envelope decoded.
type Response struct {
	Status  int
	Header  http.Header
	Raw     []byte
	Request *http.Request // as sent, for a contract check
	Body    struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
		Meta    *api.MetaView   `json:"meta"`
		Error   *struct {
			Code      string  `json:"code"`
			Message   string  `json:"message"`
			RequestID string  `json:"request_id"`
			Reference *string `json:"reference"`
		} `json:"error"`
	}
}

// Send performs r against the resellerd at baseURL with c. It touches no *testing.T, so
// goroutines may call it; an answer that is not the envelope (but the OpenAPI document) is an
// error.
func Send(c *http.Client, baseURL string, r Request) (Response, error) {
	if r.Method == "" {
		r.Method = http.MethodGet
	}
	url := baseURL + "/api/v1" + r.Path
	if len(r.Path) > 1 && r.Path[:2] == "//" {
		url = baseURL + r.Path[1:]
	}
	req, err := http.NewRequest(r.Method, url, bytes.NewBufferString(r.Body))
	if err != nil {
		return Response{}, err
	}
	if r.Body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.Key != "" {
		if r.Bearer {
			req.Header.Set("Authorization", "Bearer "+r.Key)
		} else {
			req.Header.Set("X-API-Token", r.Key)
		}
	}
	for k, v := range r.Header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		return Response{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return Response{}, err
	}
	out := Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw, Request: req}
	if err := json.Unmarshal(raw, &out.Body); err != nil && r.Path != openAPIPath {
		return Response{}, fmt.Errorf("body is not JSON: %w\n%s", err, raw)
	}
	return out, nil
}

// WantStatus fails the test unless the answer has status and, for an error, code; an error's
// request_id must be the X-Request-ID header (but on a 429, which the rate limiter answers
// before the request has one).
func (r Response) WantStatus(t testing.TB, status int, code string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body %s", r.Status, status, r.Raw)
	}
	if code == "" {
		if !r.Body.Success {
			t.Fatalf("success = false, want true; body %s", r.Raw)
		}
		return
	}
	if r.Body.Success || r.Body.Error == nil || r.Body.Error.Code != code {
		t.Fatalf("error = %s, want code %q", r.Raw, code)
	}
	if r.Body.Error.RequestID != r.Header.Get("X-Request-ID") && status != http.StatusTooManyRequests {
		t.Fatalf("error.request_id = %q, want the X-Request-ID header %q", r.Body.Error.RequestID, r.Header.Get("X-Request-ID"))
	}
}

// WantMessage fails the test unless the error's message mentions every word.
func (r Response) WantMessage(t testing.TB, words ...string) {
	t.Helper()
	for _, w := range words {
		if r.Body.Error == nil || !strings.Contains(r.Body.Error.Message, w) {
			t.Fatalf("error message of %s does not mention %q", r.Raw, w)
		}
	}
}

// Data decodes the envelope's data into v, failing the test when it does not fit.
func (r Response) Data(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body.Data, v); err != nil {
		t.Fatalf("data: %v\n%s", err, r.Raw)
	}
}

// LockedBuffer is a log destination safe for a backend's concurrent writers, read by the test
// while they write.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
