package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServeCollectorTarget runs the serve binary and reads its collector's target on /metrics:
// serveGCPercent when the environment has no GOGC, and GOGC's value when it has one.
func TestServeCollectorTarget(t *testing.T) {
	t.Parallel()
	bin := buildResellerd(t)
	withoutGOGC := environWithout("GOGC")
	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"GOGC unset", withoutGOGC, "400"},
		{"GOGC set", append(withoutGOGC, "GOGC=150"), "150"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startDaemonIn(t, tc.env, bin, filepath.Join(t.TempDir(), "gc.db"), "--metrics-listen", "127.0.0.1:0")
			if got := gcPercentOn(t, d); got != tc.want {
				t.Fatalf("go_gc_gogc_percent %s, want %s", got, tc.want)
			}
		})
	}
}

// environWithout is this process's environment without the variable name.
func environWithout(name string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, name+"=") {
			env = append(env, kv)
		}
	}
	return env
}

var gogcPercentLine = regexp.MustCompile(`(?m)^go_gc_gogc_percent (\S+)$`)

// gcPercentOn reads go_gc_gogc_percent from d's metrics listener.
func gcPercentOn(t *testing.T, d *daemon) string {
	t.Helper()
	var addr string
	select {
	case addr = <-d.metrics:
	case <-time.After(eventWait):
		t.Fatal("serve logged no metrics listener")
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := gogcPercentLine.FindSubmatch(body)
	if m == nil {
		t.Fatalf("/metrics has no go_gc_gogc_percent:\n%s", body)
	}
	return string(m[1])
}
