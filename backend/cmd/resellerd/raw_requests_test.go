package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawRequest writes raw to the server at base and reads the one answer.
func rawRequest(t *testing.T, base, raw string) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), eventWait)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(eventWait)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer to %q: %v", raw, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// TestRequestsOutsideRoutesGetTheEnvelope checks that requests that reach resellerd's handler
// without naming a route are answered in the envelope with X-Request-ID, among them "OPTIONS *",
// which net/http answers by itself unless told not to.
func TestRequestsOutsideRoutesGetTheEnvelope(t *testing.T) {
	t.Parallel()
	base := serveInBackground(t, t.TempDir()+"/raw.db")
	tests := []struct {
		name       string
		raw        string
		wantStatus int
		wantCode   string
	}{
		{"OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", http.StatusNotFound, "not_found"},
		{"unknown path", "GET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", http.StatusNotFound, "not_found"},
		{"wrong method", "PUT /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", http.StatusMethodNotAllowed, "method_not_allowed"},
		{"text body", "POST /api/v1/quote HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}",
			http.StatusUnsupportedMediaType, "unsupported_media_type"},
		{"malformed query", "GET /api/v1/health?a=%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", http.StatusBadRequest, "validation_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := rawRequest(t, base, tt.raw)
			var env struct {
				Success bool `json:"success"`
				Error   struct {
					Code      string `json:"code"`
					RequestID string `json:"request_id"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &env); err != nil {
				t.Fatalf("body is not the envelope: %v: %q", err, body)
			}
			id := resp.Header.Get("X-Request-ID")
			if resp.StatusCode != tt.wantStatus || env.Success || env.Error.Code != tt.wantCode || id == "" || env.Error.RequestID != id {
				t.Fatalf("got %d %s (X-Request-ID %q), want %d %s with the request id", resp.StatusCode, body, id, tt.wantStatus, tt.wantCode)
			}
		})
	}
}
