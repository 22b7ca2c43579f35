package httpserve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"testing"
	"time"
)

// TestBodyDeadline: a request whose body stops coming has its read cut at the body timeout (the
// server has no ReadTimeout, which would have bounded it), while a whole body and a request
// without one on the same connection are answered.
func TestBodyDeadline(t *testing.T) {
	t.Parallel()
	reads := make(chan error, 3)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		reads <- err
		fmt.Fprintf(w, "%s read %q", r.Method, body)
	})
	addr := serveForTest(t, h, Config{Listen: "127.0.0.1:0", BodyTimeout: 300 * time.Millisecond})

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	answers := bufio.NewReader(conn)
	fmt.Fprint(conn, "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nwhole")
	fmt.Fprint(conn, "GET /b HTTP/1.1\r\nHost: x\r\n\r\n")
	for _, want := range []string{`POST read "whole"`, `GET read ""`} {
		if err := waitRead(t, reads); err != nil {
			t.Fatalf("%s: %v", want, err)
		}
		if got := answerBody(t, conn, answers); got != want {
			t.Fatalf("answer %q, want %q", got, want)
		}
	}

	fmt.Fprint(conn, "POST /c HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc") // 7 bytes never come
	err = waitRead(t, reads)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the stalled body's read ended with %v, want the deadline", err)
	}
}

// serveForTest serves h with cfg until the test ends and returns the API's address (the
// command's own serveAddrs does the same for the whole command).
func serveForTest(t *testing.T, h http.Handler, cfg Config) string {
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan []net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, cfg, h, nil, slog.New(slog.DiscardHandler), func(a []net.Addr) { addrs <- a })
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	select {
	case a := <-addrs:
		return a[0].String()
	case err := <-done:
		t.Fatalf("serve: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not start within 10 s")
	}
	return ""
}

// waitRead is the next body read's outcome, waiting at most ten seconds for it: a read never
// cut fails the test instead of hanging it.
func waitRead(t *testing.T, reads <-chan error) error {
	t.Helper()
	select {
	case err := <-reads:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("no body read ended within 10 s")
		return nil
	}
}

// answerBody reads the next answer on conn from answers and returns its body.
func answerBody(t *testing.T, conn net.Conn, answers *bufio.Reader) string {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(answers, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}
