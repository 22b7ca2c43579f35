package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// serve is the `resellerd serve --machines sandbox` process under test.
type serve struct {
	cmd         *exec.Cmd
	exited      chan struct{} // closed once cmd.Wait returned
	binary      string        // the resellerd binary (its agents, the machines' PID 1, run it too)
	db          string
	machinesDir string
	logPath     string
	image       string // --machines-image, when set
	pprof       string // --pprof, when set
	cidr        netipPrefix
	bridge      string   // the link holding the range's host address, the machines' veths' master
	base        string   // http://ADDR/api/v1
	keys        []string // one API key per account, perAccount servers each
	http        *http.Client
	tooMany     atomic.Int64 // 429 answers the bench waited out
}

// netipPrefix is the range's text and its host address (the bridge's, the range's first).
type netipPrefix struct {
	text string
	host string
}

// startServe builds resellerd (unless -resellerd names one), makes the accounts on a fresh
// SQLite file and starts serve on it with machines, at the real limits and build times.
func startServe(ctx context.Context, o options, dir string) (*serve, error) {
	s := &serve{binary: o.resellerd, db: filepath.Join(dir, "reseller.db"), machinesDir: filepath.Join(dir, "machines"),
		logPath: filepath.Join(dir, "serve.log"), image: o.image, pprof: o.pprof, cidr: netipPrefix{text: o.cidr.String(), host: o.cidr.Addr().Next().String()},
		http: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	if s.binary == "" {
		s.binary = filepath.Join(dir, "resellerd")
		build := exec.CommandContext(ctx, "go", "build", "-o", s.binary, "./backend/cmd/resellerd")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return nil, fmt.Errorf("build resellerd: %w", err)
		}
	}
	for len(s.keys)*perAccount < o.n {
		key, err := createAccount(ctx, s.binary, s.db)
		if err != nil {
			return nil, err
		}
		s.keys = append(s.keys, key)
	}
	if err := s.start(); err != nil {
		return nil, err
	}
	if err := s.waitUp(ctx); err != nil {
		s.kill()
		return nil, fmt.Errorf("%w; serve's log:\n%s", err, s.logTail())
	}
	bridge, err := s.findBridge(ctx)
	if err != nil {
		s.kill()
		return nil, err
	}
	s.bridge = bridge
	return s, nil
}

// createAccount makes an account through the CLI (which also migrates the new database), with
// room for perAccount servers and orders.
func createAccount(ctx context.Context, resellerd, db string) (string, error) {
	limit := strconv.Itoa(perAccount)
	out, err := exec.CommandContext(ctx, resellerd, "account", "create", "--db", db, "--balance", "1000",
		"--server-limit", limit, "--order-limit", limit).Output()
	if err != nil {
		return "", fmt.Errorf("account create: %w", err)
	}
	var created struct {
		APIKey string `json:"api_key"`
	}
	if err := json.Unmarshal(out, &created); err != nil || created.APIKey == "" {
		return "", fmt.Errorf("account create: no api_key in its output: %w", err)
	}
	return created.APIKey, nil
}

// start runs serve at --rate-limit-scale 1 with its default build and credentials delays.
func (s *serve) start() error {
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	logFile, err := os.Create(s.logPath)
	if err != nil {
		return fmt.Errorf("serve's log: %w", err)
	}
	defer logFile.Close() // the child has its own descriptor
	s.cmd = exec.Command(s.binary, "serve", "--db", s.db, "--listen", addr, "--rate-limit-scale", "1",
		"--machines", "sandbox", "--machines-dir", s.machinesDir, "--machines-cidr", s.cidr.text)
	if s.image != "" {
		s.cmd.Args = append(s.cmd.Args, "--machines-image", s.image)
	}
	if s.pprof != "" {
		s.cmd.Args = append(s.cmd.Args, "--pprof", s.pprof)
	}
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("start resellerd serve: %w", err)
	}
	s.exited = make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	s.base = "http://" + addr + "/api/v1"
	return nil
}

func (s *serve) pid() int { return s.cmd.Process.Pid }

// waitUp waits for /health, or for serve to exit (a refusal names what the host lacks).
func (s *serve) waitUp(ctx context.Context) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return fmt.Errorf("resellerd serve exited at start: %s", s.cmd.ProcessState)
		default:
		}
		if status, _, err := s.call(ctx, "", http.MethodGet, "/health"); err == nil && status == http.StatusOK {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("resellerd serve did not answer /health within 60 s")
}

// stop sends SIGTERM and waits for the exit, within limit; it returns how long the exit took
// and the exit code.
func (s *serve) stop(limit time.Duration) (time.Duration, int, error) {
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return 0, 0, fmt.Errorf("SIGTERM to serve: %w", err)
	}
	select {
	case <-s.exited:
		return time.Since(start), s.cmd.ProcessState.ExitCode(), nil
	case <-time.After(limit):
		return 0, 0, fmt.Errorf("serve still running %s after SIGTERM", limit)
	}
}

// kill ends serve if it still runs (after an error): SIGTERM first, so it stops its machines
// and removes its bridge and filter rules, then SIGKILL if it has not exited within 30 s.
func (s *serve) kill() {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// logTail is the end of serve's log, for an error.
func (s *serve) logTail() string {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		return err.Error()
	}
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// call sends a request as the account of key ("" for none) and returns the status and the
// body.
func (s *serve) call(ctx context.Context, key, method, path string) (int, []byte, error) {
	return s.send(ctx, key, method, path, nil)
}

// send is call with a JSON body. A 429 is waited out (its Retry-After) and counted: the bench
// paces itself within the limits, so the summary should show none.
func (s *serve) send(ctx context.Context, key, method, path string, body []byte) (int, []byte, error) {
	for {
		status, b, wait, err := s.once(ctx, key, method, path, body)
		if err != nil || status != http.StatusTooManyRequests {
			return status, b, err
		}
		s.tooMany.Add(1)
		select {
		case <-ctx.Done():
			return status, b, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// once sends one request; wait is a 429's Retry-After (one second when it has none).
func (s *serve) once(ctx context.Context, key, method, path string, body []byte) (status int, b []byte, wait time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, 0, err
	}
	if key != "" {
		req.Header.Set("X-API-Token", key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return 0, nil, 0, err
	}
	defer resp.Body.Close()
	b, err = io.ReadAll(resp.Body)
	wait = time.Second
	if n, convErr := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); convErr == nil && n > 0 {
		wait = time.Duration(n) * time.Second
	}
	return resp.StatusCode, b, wait, err
}

func freeAddr() (string, error) {
	l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
