package devapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestBodyTooLargeNamesItsLimit: a 5 KB body to /_dev/clock, whose limit is 4 KiB, is answered
// 413 naming 4096 bytes, the limit that stopped it, not the API's 1 MiB.
func TestBodyTooLargeNamesItsLimit(t *testing.T) {
	t.Parallel()
	h := New(Config{Clock: &OffsetClock{}})
	body := `{"advance": "1h", "pad": "` + strings.Repeat("x", 5<<10) + `"}`
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/_dev/clock", strings.NewReader(body)))
	var env struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
		t.Fatalf("%d %s: %v", rec.Code, rec.Body, err)
	}
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(env.Error.Message, strconv.Itoa(maxBody)+" bytes") {
		t.Fatalf("answered %d %q, want 413 naming the %d-byte limit", rec.Code, env.Error.Message, maxBody)
	}
}
