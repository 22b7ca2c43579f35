package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSIGTERMFinishesInFlightRequests checks graceful shutdown of the real binary: a request in
// flight when SIGTERM arrives (a webhook test ping held by its receiver) is answered in full
// after the listener has closed, and the process then exits 0.
func TestSIGTERMFinishesInFlightRequests(t *testing.T) {
	t.Parallel()
	bin := buildResellerd(t)
	db := filepath.Join(t.TempDir(), "term.db")
	key := createCrashAccount(t, db)
	pinged, release := make(chan struct{}), make(chan struct{})
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(pinged)
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
	}))
	defer receiver.Close()
	d := startDaemon(t, bin, db, "--allow-http-webhooks", "--rate-limit-scale", "0")
	c := &crashClient{base: d.base, key: key, db: db}
	status, body, err := c.send(context.Background(), http.MethodPut, "/account/webhook",
		`{"url": "`+receiver.URL+`/hook", "secret": "0123456789abcdef"}`, "")
	if err != nil || status != http.StatusOK {
		t.Fatalf("PUT /account/webhook: %d %s %v", status, body, err)
	}

	type answer struct {
		status int
		body   []byte
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		status, body, err := c.send(context.Background(), http.MethodPost, "/account/webhook/test", "", "")
		answered <- answer{status, body, err}
	}()
	waitClosed(t, pinged)
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitListenerClosed(t, d.base)
	close(release)

	a := <-answered
	var ping struct {
		Data struct {
			Delivered bool `json:"delivered"`
		} `json:"data"`
	}
	if a.err != nil || a.status != http.StatusOK || json.Unmarshal(a.body, &ping) != nil || !ping.Data.Delivered {
		t.Fatalf("the in-flight test ping: %d %s %v; want 200 delivered", a.status, a.body, a.err)
	}
	if err := d.wait(t, eventWait); err != nil {
		t.Fatalf("resellerd after SIGTERM: %v, want exit 0", err)
	}
}

// waitListenerClosed waits until the daemon refuses new connections: it has begun shutting down.
func waitListenerClosed(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(eventWait)
	for time.Now().Before(deadline) {
		conn, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), time.Second)
		if err != nil {
			return
		}
		conn.Close()
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the listener is still open %s after SIGTERM", eventWait)
}

// waitClosed waits at most eventWait for c to be closed.
func waitClosed(t *testing.T, c <-chan struct{}) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(eventWait):
		t.Fatal("timed out waiting")
	}
}
