package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/testbuf"
)

func TestLogFlags(t *testing.T) {
	t.Parallel()
	o, err := parseServe(nil, noEnv)
	if err != nil || o.Log != (logOptions{Format: "text", Level: "info"}) {
		t.Fatalf("defaults: %+v, %v", o.Log, err)
	}
	o, err = parseServe([]string{"--log-format", "json"}, mapEnv(map[string]string{"RESELLER_LOG_LEVEL": "debug", "RESELLER_LOG_FORMAT": "text"}))
	if err != nil || o.Log != (logOptions{Format: "json", Level: "debug"}) {
		t.Fatalf("flag and variable: %+v, %v", o.Log, err)
	}
	for _, args := range [][]string{{"--log-format", "xml"}, {"--log-level", "trace"}} {
		if _, err := parseServe(args, noEnv); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%v: got %v, want a usage error naming the flag", args, err)
		}
	}
}

// TestLogLevelFilters checks that --log-level drops the lines below it and --log-format json
// writes one JSON object a line.
func TestLogLevelFilters(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	logger, err := newLogger(&buf, logOptions{Format: "json", Level: "warn"})
	if err != nil {
		t.Fatal(err)
	}
	logger.Info("dropped")
	logger.Warn("kept", slog.Int("n", 1))
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil || line["msg"] != "kept" || line["n"] != 1.0 {
		t.Fatalf("log %q: %v", buf.String(), err)
	}
}

// TestAccessLogJSON serves with --log-format json and reads the access line of each request:
// request_id as sent back in X-Request-ID, method, route (the pattern, not the path), status,
// duration_ms, bytes (the body's length) and account_id when a key authenticated it.
func TestAccessLogJSON(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "log.db")
	code, out, errOut := cli(t, noEnv, "account", "create", "--db", db)
	if code != exitOK {
		t.Fatalf("account create: exit %d: %s", code, errOut)
	}
	var acct struct {
		AccountID int64  `json:"account_id"`
		APIKey    string `json:"api_key"`
	}
	if err := json.Unmarshal([]byte(out), &acct); err != nil {
		t.Fatal(err)
	}
	opts, err := parseServe([]string{"--listen", "127.0.0.1:0", "--db", db, "--rate-limit-scale", "0", "--log-format", "json"}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	var log testbuf.Buffer
	base := serveLogging(t, opts, &log)

	type sent struct {
		path, key, route string
		status           int
		account          int64
	}
	requests := []sent{
		{path: "/api/v1/account", key: acct.APIKey, route: "GET /account", status: 200, account: acct.AccountID},
		{path: "/api/v1/instances/424242", key: acct.APIKey, route: "GET /instances/{instance_id}", status: 404, account: acct.AccountID},
		{path: "/api/v1/account", route: "GET /account", status: 401},
		{path: "/api/v1/health", route: "GET /health", status: 200},
		{path: "/no/such/path", route: "unmatched", status: 404},
	}
	ids := map[string]sent{}
	sizes := map[string]int{}
	for _, s := range requests {
		resp := get(t, base+s.path, s.key)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		id := resp.Header.Get("X-Request-ID")
		if resp.StatusCode != s.status || id == "" {
			t.Fatalf("GET %s: %d, request id %q", s.path, resp.StatusCode, id)
		}
		ids[id], sizes[id] = s, len(body)
	}

	lines := accessLines(t, &log, len(requests))
	for _, l := range lines {
		id, _ := l["request_id"].(string)
		s, ok := ids[id]
		if !ok {
			t.Fatalf("access line with an unknown request_id: %v", l)
		}
		if l["level"] != "INFO" || l["method"] != "GET" || l["route"] != s.route || l["status"] != float64(s.status) ||
			l["bytes"] != float64(sizes[id]) {
			t.Errorf("GET %s: access line %v", s.path, l)
		}
		if d, ok := l["duration_ms"].(float64); !ok || d < 0 {
			t.Errorf("GET %s: duration_ms %v", s.path, l["duration_ms"])
		}
		got, has := l["account_id"]
		if s.account != 0 && got != float64(s.account) || s.account == 0 && has {
			t.Errorf("GET %s: account_id %v, want %d", s.path, got, s.account)
		}
		delete(ids, id)
	}
	if len(ids) != 0 {
		t.Fatalf("no access line for %v", ids)
	}
}

// accessLines waits until the log holds n access lines (each is written once the answer is
// sent, so it may trail the client by a moment) and returns them, each parsed as JSON.
func accessLines(t *testing.T, log *testbuf.Buffer, n int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(eventWait)
	for {
		var lines []map[string]any
		sc := bufio.NewScanner(strings.NewReader(log.String()))
		for sc.Scan() {
			var l map[string]any
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("log line is not JSON: %q: %v", sc.Text(), err)
			}
			if l["msg"] == "request" {
				lines = append(lines, l)
			}
		}
		if len(lines) >= n || time.Now().After(deadline) {
			if len(lines) != n {
				t.Fatalf("%d access lines, want %d:\n%s", len(lines), n, log.String())
			}
			return lines
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// serveLogging runs serve with opts, logging as opts.Log says into w, until the test ends and
// returns its base URL.
func serveLogging(t *testing.T, opts serveOptions, w io.Writer) string {
	t.Helper()
	return "http://" + serveAddrs(t, opts, w)[0].String()
}

// serveAddrs runs serve with opts, logging as opts.Log says into w, until the test ends and
// returns the addresses it bound (the API's, then the metrics listener's).
func serveAddrs(t *testing.T, opts serveOptions, w io.Writer) []net.Addr {
	t.Helper()
	logger, err := newLogger(w, opts.Log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan []net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, opts, logger, func(a []net.Addr) { addrs <- a }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	select {
	case a := <-addrs:
		return a
	case err := <-done:
		t.Fatalf("serve: %v", err)
	case <-time.After(eventWait):
		t.Fatal("serve did not start")
	}
	return nil
}

// TestServeWritesEveryAccessLineOnShutdown runs serve as the command does, with its batched
// access log in each format (text: the lines appended by hand), sends requests and stops it at
// once: every request has its access line when serve returns, none dropped.
func TestServeWritesEveryAccessLineOnShutdown(t *testing.T) {
	t.Parallel()
	for format, marks := range map[string][]string{
		"json": {`"msg":"request"`, `"route":"GET /health"`},
		"text": {` level=INFO msg=request request_id=`, ` route="GET /health" path=/api/v1/health status=200 `},
	} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			serveAndCountAccessLines(t, format, marks)
		})
	}
}

// serveAndCountAccessLines is TestServeWritesEveryAccessLineOnShutdown in one format, an
// access line being a line holding every one of marks.
func serveAndCountAccessLines(t *testing.T, format string, marks []string) {
	const requests = 300
	var log testbuf.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "l.db"),
			"--rate-limit-scale", "0", "--log-format", format}, io.Discard, &log, noEnv)
	}()
	base := "http://" + listeningAddr(t, &log)
	for range requests {
		if status := getStatus(t, base+"/api/v1/health", ""); status != http.StatusOK {
			t.Fatalf("GET /health: %d", status)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("serve: exit %d:\n%s", code, log.String())
		}
	case <-time.After(eventWait):
		t.Fatal("serve did not stop")
	}
	n := 0
	for _, line := range strings.Split(log.String(), "\n") {
		if containsAll(line, marks) {
			n++
		}
	}
	if n != requests {
		t.Fatalf("%d access lines after shutdown, want %d:\n%s", n, requests, log.String())
	}
}

// containsAll says whether s holds every one of subs.
func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// listeningAddr waits for serve's "listening" line in log (JSON or text) and returns its address.
func listeningAddr(t *testing.T, log *testbuf.Buffer) string {
	t.Helper()
	deadline := time.Now().Add(eventWait)
	for time.Now().Before(deadline) {
		for _, line := range strings.Split(log.String(), "\n") {
			var l struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "listening" {
				return l.Addr
			}
			if _, rest, ok := strings.Cut(line, " msg=listening addr="); ok { // the text format
				addr, _, _ := strings.Cut(rest, " ")
				return addr
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("serve never said it was listening:\n%s", log.String())
	return ""
}
