package devapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestGuardHosts: which Host values reach the test-control API for a listener configuration;
// the container case of the README (listening on 0.0.0.0:8080, published as localhost:8080)
// is among them, and an unspecified listen address names no host of its own.
func TestGuardHosts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		listen  []string
		allowed []string
		host    string
		want    int
	}{
		{[]string{"0.0.0.0"}, nil, "localhost:8080", 200}, // docker run -p 8080:8080 ... dev
		{[]string{"0.0.0.0"}, nil, "127.0.0.1:8080", 200},
		{[]string{"0.0.0.0"}, nil, "[::1]:8080", 200},
		{[]string{"0.0.0.0"}, nil, "0.0.0.0:8080", 403},
		{[]string{"::"}, nil, "[::]:8080", 403},
		{[]string{""}, nil, "rebind.example:8080", 403},
		{[]string{"0.0.0.0"}, nil, "resellerd:8080", 403},
		{[]string{"0.0.0.0"}, []string{"resellerd"}, "resellerd:8080", 200}, // a compose service's name
		{[]string{"192.168.7.2"}, nil, "192.168.7.2:8080", 200},             // --listen 192.168.7.2:8080
		{[]string{"192.168.7.2"}, nil, "192.168.7.3:8080", 403},
		{[]string{"dev.internal"}, nil, "DEV.internal.:8080", 200},
		{[]string{"::1"}, nil, "[::ffff:127.0.0.1]:8080", 200},
		{[]string{"127.0.0.1"}, nil, "", 403},
		{[]string{"127.0.0.1"}, nil, "localhost.rebind.example", 403},
	} {
		h := Guard(GuardConfig{ListenHosts: tt.listen, AllowedHosts: tt.allowed}, okHandler())
		req := httptest.NewRequest("POST", "/_dev/reset", nil)
		req.Host = tt.host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tt.want {
			t.Errorf("listen %v, allowed %v, Host %q: %d, want %d", tt.listen, tt.allowed, tt.host, rec.Code, tt.want)
		}
	}
}

// TestGuardCoversEveryDevPath: every path under /_dev/ is guarded, written in any form the mux
// would still route there, and no other path is.
func TestGuardCoversEveryDevPath(t *testing.T) {
	t.Parallel()
	h := Guard(GuardConfig{}, okHandler())
	for _, tt := range []struct {
		target string
		want   int
	}{
		{"/_dev/reset", 403},
		{"/_dev/ui/", 403},
		{"/_dev", 403},
		{"/%5Fdev/reset", 403},
		{"/api/v1/health", 200},
		{"/_devices", 200},
	} {
		req := httptest.NewRequest("POST", tt.target, nil)
		req.Host = "127.0.0.1:8080" // a loopback Host: only the Origin is wrong
		req.Header.Set("Origin", "http://evil.example")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tt.want {
			t.Errorf("%s with a foreign Origin: %d, want %d", tt.target, rec.Code, tt.want)
		}
		if tt.want == 403 && !strings.Contains(rec.Body.String(), `"code":"forbidden"`) {
			t.Errorf("%s: %s is not the envelope of forbidden", tt.target, rec.Body)
		}
	}
}

// TestGuardOriginOverTLS: under --tls-cert the listener's origin is https://HOST; the http://
// form of the same host is another origin.
func TestGuardOriginOverTLS(t *testing.T) {
	t.Parallel()
	ts := httptest.NewTLSServer(Guard(GuardConfig{}, okHandler()))
	t.Cleanup(ts.Close)
	for origin, want := range map[string]int{
		ts.URL: 200,
		"http://" + strings.TrimPrefix(ts.URL, "https://"): 403,
	} {
		req, _ := http.NewRequest("POST", ts.URL+"/_dev/reset", nil)
		req.Header.Set("Origin", origin)
		res, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("Origin %s: %d, want %d", origin, res.StatusCode, want)
		}
	}
}

func okHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
}
