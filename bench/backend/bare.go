package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"
)

// The bare net/http handlers the GET /instances/{id} figure is measured beside: one in this
// process, the measure, and one in a process of its own. The first shares the clients'
// process, so a request and its answer never cross from one process to another; serve's always
// do. The second shows how much of the gap is that alone.

// readSlices is how many turns the GET figure and each bare handler's take (readRates).
const readSlices = 6

// readTurns is how many figures take turns in the read phase: GET and the two bare handlers, so
// the phase lasts readTurns times -read-for.
const readTurns = 3

// readRates measures GET url (resellerd) and the bare handlers serving body, the one in this
// process and the one in a process of its own, each for d in all, in readSlices rotating turns:
// the load of a shared machine changes from second to second, and the figures of a ratio must
// see the same.
func readRates(ctx context.Context, c *client, d time.Duration, url string, body []byte) (get, bare, own float64, err error) {
	l, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, 0, err
	}
	srv := &http.Server{Handler: bareHandler(body), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	ownAddr, stop, err := startOwnBare(ctx, body)
	if err != nil {
		return 0, 0, 0, err
	}
	defer stop()
	urls := [readTurns]string{url, "http://" + l.Addr().String() + "/", "http://" + ownAddr + "/"}
	var rates [readTurns]float64
	turn := d / readSlices
	for range readSlices {
		for i, u := range urls {
			r, err := c.rate(ctx, turn, u)
			if err != nil {
				return 0, 0, 0, err
			}
			rates[i] += r / readSlices
		}
	}
	return rates[0], rates[1], rates[2], nil
}

// bareHandler answers every request with body as JSON, as little as net/http allows.
func bareHandler(body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(body)
	})
}

// startOwnBare runs this program again as a bare handler of body (-bare-serve) and returns its
// address and the function that stops it.
func startOwnBare(ctx context.Context, body []byte) (string, func(), error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.CommandContext(ctx, self, "-bare-serve")
	cmd.Stdin = bytes.NewReader(body)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("bare handler: %w", err)
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("bare handler's address: %w", err)
	}
	return strings.TrimSpace(addr), stop, nil
}

// serveBare is the -bare-serve process: it reads the body from in, listens on a free loopback
// port, writes the address to out and serves until it is killed.
func serveBare(in io.Reader, out io.Writer) error {
	body, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(out, l.Addr()); err != nil {
		return err
	}
	srv := &http.Server{Handler: bareHandler(body), ReadHeaderTimeout: 5 * time.Second}
	return srv.Serve(l)
}
