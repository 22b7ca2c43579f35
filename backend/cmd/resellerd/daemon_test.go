package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// buildResellerd builds this command into a directory of t, so a test can run it as a real
// process and kill it.
func buildResellerd(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the resellerd binary")
	}
	bin := filepath.Join(t.TempDir(), "resellerd")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// daemon is one `resellerd serve` process.
type daemon struct {
	cmd    *exec.Cmd
	base   string      // http://HOST:PORT
	exited chan error  // receives the result of Wait once
	bound  chan string // the API's address, then --alt-listen's
	// metrics receives the --metrics-listen address once serve has bound it.
	metrics chan string
}

// listeningLine and metricsLine are the log lines serve writes for each bound address of the
// API and for the metrics listener's.
var (
	listeningLine = regexp.MustCompile(`msg=listening addr=(\S+)`)
	metricsLine   = regexp.MustCompile(`msg="metrics listening" addr=(\S+)`)
)

// startDaemon runs `bin serve` on db with extra flags and a free port, and returns once it
// listens. The process is killed when the test ends if it still runs.
func startDaemon(t *testing.T, bin, db string, extra ...string) *daemon {
	t.Helper()
	return startDaemonIn(t, nil, bin, db, extra...)
}

// startDaemonIn is startDaemon with the process's environment env (nil: this process's).
func startDaemonIn(t *testing.T, env []string, bin, db string, extra ...string) *daemon {
	t.Helper()
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--db", db}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start resellerd: %v", err)
	}
	d := &daemon{cmd: cmd, exited: make(chan error, 1), bound: make(chan string, 2), metrics: make(chan string, 1)}
	go scanLog(stderr, d.bound, d.metrics)
	go func() { d.exited <- cmd.Wait() }()
	t.Cleanup(func() { d.kill(t) })
	select {
	case a := <-d.bound:
		d.base = "http://" + a
	case err := <-d.exited:
		d.exited <- err
		t.Fatalf("resellerd exited before listening: %v", err)
	case <-time.After(eventWait):
		t.Fatal("resellerd did not start listening")
	}
	return d
}

// scanLog reads the daemon's log to its end, sending the API's listening addresses on api and
// the metrics listener's on metrics, each as long as its channel has room.
func scanLog(r io.Reader, api, metrics chan<- string) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if m := listeningLine.FindStringSubmatch(sc.Text()); m != nil {
			offer(api, m[1])
		}
		if m := metricsLine.FindStringSubmatch(sc.Text()); m != nil {
			offer(metrics, m[1])
		}
	}
}

// offer sends s on c unless c is full.
func offer(c chan<- string, s string) {
	select {
	case c <- s:
	default:
	}
}

// kill ends the process with SIGKILL, as a crash would, and waits for it.
func (d *daemon) kill(t *testing.T) {
	t.Helper()
	d.sigkill()
	_ = d.wait(t, eventWait)
}

// sigkill sends SIGKILL without waiting; the process may already have ended.
func (d *daemon) sigkill() {
	_ = d.cmd.Process.Signal(syscall.SIGKILL)
}

// terminate sends SIGTERM and returns how the process ended.
func (d *daemon) terminate(t *testing.T, within time.Duration) error {
	t.Helper()
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("sigterm: %w", err)
	}
	return d.wait(t, within)
}

// wait waits at most within for the process to end and returns its exit error; it may be
// called again after the process ended.
func (d *daemon) wait(t *testing.T, within time.Duration) error {
	t.Helper()
	select {
	case err := <-d.exited:
		d.exited <- err
		return err
	case <-time.After(within):
		t.Fatalf("resellerd did not end within %s", within)
		return nil
	}
}
