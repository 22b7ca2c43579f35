package sshd

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

const (
	testUser     = "root"
	testPassword = "correct horse battery staple"
	testPath     = "PATH=/usr/local/bin:/usr/bin:/bin:/sbin:/usr/sbin"
)

// eventWait bounds a test's wait for something to happen. It only keeps a broken test from
// hanging: a loaded CI host is many times slower than an idle one, and the tests assert no
// speed (hangupGrace, which the server must keep, is another matter).
const eventWait = time.Minute

// testServer is a Serve running on 127.0.0.1 for one test.
type testServer struct {
	addr    string
	hostKey ssh.PublicKey
	cancel  context.CancelFunc
	done    chan error
}

// startServer serves on a free port with /bin/sh until the test ends; edit adjusts the Config.
func startServer(t *testing.T, edit func(*Config)) *testServer {
	t.Helper()
	key, _, err := NewHostKey()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		HostKey:       key,
		CheckPassword: func(user, password string) bool { return user == testUser && password == testPassword },
		Shell:         "/bin/sh",
		Env:           []string{testPath},
	}
	if edit != nil {
		edit(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ts := &testServer{addr: ln.Addr().String(), hostKey: key.PublicKey(), cancel: cancel, done: make(chan error, 1)}
	go func() { ts.done <- Serve(ctx, ln, cfg) }()
	t.Cleanup(func() {
		if err := ts.stop(); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ts
}

// stop cancels Serve and waits for it to return (once; later calls return nil).
func (ts *testServer) stop() error {
	ts.cancel()
	select {
	case err, ok := <-ts.done:
		if ok {
			close(ts.done)
		}
		return err
	case <-time.After(eventWait):
		return fmt.Errorf("Serve did not return within %s of its context ending", eventWait)
	}
}

func (ts *testServer) dial(t *testing.T, password string) (*ssh.Client, error) {
	t.Helper()
	return ts.dialOffering(password, nil)
}

// dialOffering logs in with password, the client offering ciphers (nil: x/crypto's default).
func (ts *testServer) dialOffering(password string, ciphers []string) (*ssh.Client, error) {
	return ssh.Dial("tcp", ts.addr, &ssh.ClientConfig{
		Config:          ssh.Config{Ciphers: ciphers},
		User:            testUser,
		Auth:            []ssh.AuthMethod{ssh.Password(password)},
		HostKeyCallback: ssh.FixedHostKey(ts.hostKey),
		Timeout:         5 * time.Second,
	})
}

// client logs in with the right password and closes the client when the test ends.
func (ts *testServer) client(t *testing.T) *ssh.Client {
	t.Helper()
	c, err := ts.dial(t, testPassword)
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func openSession(t *testing.T, c *ssh.Client) *ssh.Session {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// run runs command in a new session and returns its stdout, stderr and exit status.
func run(t *testing.T, c *ssh.Client, command string, stdin io.Reader) (string, string, int) {
	t.Helper()
	s := openSession(t, c)
	var stdout, stderr bytes.Buffer
	s.Stdout, s.Stderr, s.Stdin = &stdout, &stderr, stdin
	err := s.Run(command)
	status := 0
	var exitErr *ssh.ExitError
	switch {
	case errors.As(err, &exitErr):
		status = exitErr.ExitStatus()
	case err != nil:
		t.Fatalf("run %q: %v", command, err)
	}
	return stdout.String(), stderr.String(), status
}

func TestConfigRequiredFields(t *testing.T) {
	t.Parallel()
	key, _, err := NewHostKey()
	if err != nil {
		t.Fatal(err)
	}
	full := Config{HostKey: key, CheckPassword: func(string, string) bool { return false }, Shell: "/bin/sh"}
	for _, tc := range []struct {
		field string
		edit  func(*Config)
	}{
		{"HostKey", func(c *Config) { c.HostKey = nil }},
		{"CheckPassword", func(c *Config) { c.CheckPassword = nil }},
		{"Shell", func(c *Config) { c.Shell = "" }},
	} {
		t.Run(tc.field, func(t *testing.T) {
			cfg := full
			tc.edit(&cfg)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			err = Serve(context.Background(), ln, cfg)
			if err == nil || !strings.Contains(err.Error(), "Config."+tc.field) {
				t.Fatalf("got %v, want an error naming Config.%s", err, tc.field)
			}
		})
	}
}

func TestNewHostKeyPEMParsesBackToTheSameKey(t *testing.T) {
	t.Parallel()
	signer, pemBytes, err := NewHostKey()
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := ssh.ParsePrivateKey(pemBytes)
	if err != nil {
		t.Fatalf("parse PEM: %v", err)
	}
	if got, want := parsed.PublicKey().Marshal(), signer.PublicKey().Marshal(); !bytes.Equal(got, want) {
		t.Fatal("the PEM's key differs from the signer's")
	}
	if got := signer.PublicKey().Type(); got != ssh.KeyAlgoED25519 {
		t.Fatalf("got key type %s, want %s", got, ssh.KeyAlgoED25519)
	}
	_, again, err := NewHostKey()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(again, pemBytes) {
		t.Fatal("two calls made the same key")
	}
}

func TestPasswordLogin(t *testing.T) {
	t.Parallel()
	ts := startServer(t, nil)
	for _, tc := range []struct {
		name, password string
		ok             bool
	}{
		{"right password", testPassword, true},
		{"wrong password", "wrong", false},
		{"empty password", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			c, err := ts.dial(t, tc.password)
			if c != nil {
				_ = c.Close()
			}
			if (err == nil) != tc.ok {
				t.Fatalf("got err %v, want success %v", err, tc.ok)
			}
			if !tc.ok && time.Since(start) < failedAuthDelay {
				t.Fatalf("refused after %s, want at least %s", time.Since(start), failedAuthDelay)
			}
		})
	}
}

func TestOtherAuthMethodsRefused(t *testing.T) {
	t.Parallel()
	ts := startServer(t, func(c *Config) {
		c.CheckPassword = func(string, string) bool { return true }
	})
	_, clientKey, err := NewHostKey() // any key will do as a client key
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(clientKey)
	if err != nil {
		t.Fatal(err)
	}
	for name, auth := range map[string][]ssh.AuthMethod{
		"none":       nil,
		"public key": {ssh.PublicKeys(signer)},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := ssh.Dial("tcp", ts.addr, &ssh.ClientConfig{
				User: testUser, Auth: auth, HostKeyCallback: ssh.FixedHostKey(ts.hostKey), Timeout: 5 * time.Second,
			})
			if err == nil {
				_ = c.Close()
				t.Fatal("logged in without a password")
			}
		})
	}
}

func TestAuthTriesAreBounded(t *testing.T) {
	t.Parallel()
	ts := startServer(t, nil)
	var tries atomic.Int32
	guess := ssh.RetryableAuthMethod(ssh.PasswordCallback(func() (string, error) {
		tries.Add(1)
		return "guess", nil
	}), 3*maxAuthTries)
	_, err := ssh.Dial("tcp", ts.addr, &ssh.ClientConfig{
		User: testUser, Auth: []ssh.AuthMethod{guess}, HostKeyCallback: ssh.FixedHostKey(ts.hostKey), Timeout: 10 * time.Second,
	})
	if err == nil {
		t.Fatal("a wrong password logged in")
	}
	if got := tries.Load(); got > maxAuthTries {
		t.Fatalf("got %d password tries on one connection, want at most %d", got, maxAuthTries)
	}
}

func TestExecStdoutStderrAndExitStatus(t *testing.T) {
	t.Parallel()
	c := startServer(t, nil).client(t)
	stdout, stderr, status := run(t, c, "echo out; echo err >&2; exit 3", nil)
	if stdout != "out\n" || stderr != "err\n" || status != 3 {
		t.Fatalf("got stdout %q, stderr %q, status %d; want \"out\\n\", \"err\\n\", 3", stdout, stderr, status)
	}
}

func TestExecEnvironment(t *testing.T) {
	t.Parallel()
	c := startServer(t, func(c *Config) { c.Env = append(c.Env, "BASE=base") }).client(t)
	s := openSession(t, c)
	if err := s.Setenv("LANG", "C.UTF-8"); err != nil {
		t.Fatalf("LANG refused: %v", err)
	}
	if err := s.Setenv("TERM", "dumb"); err != nil {
		t.Fatalf("TERM refused: %v", err)
	}
	if err := s.Setenv("LD_PRELOAD", "/evil.so"); err == nil {
		t.Fatal("LD_PRELOAD accepted")
	}
	out, err := s.Output(`echo "$BASE|$USER|$LOGNAME|$HOME|$SHELL|$LANG|$LD_PRELOAD|${TERM-unset}|${SSH_CONNECTION%% *}"`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), "base|root|root|/root|/bin/sh|C.UTF-8||dumb|127.0.0.1\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestStdinIsPipedThroughAndEOFEndsIt(t *testing.T) {
	t.Parallel()
	c := startServer(t, nil).client(t)
	stdout, _, status := run(t, c, "wc -l", strings.NewReader("one\ntwo\nthree\n"))
	if strings.TrimSpace(stdout) != "3" || status != 0 {
		t.Fatalf("got %q, status %d; want 3, 0", stdout, status)
	}
}

func TestExecWithoutPTYHasNoTerminal(t *testing.T) {
	t.Parallel()
	c := startServer(t, nil).client(t)
	stdout, _, _ := run(t, c, "test -t 0 && echo tty || echo notty", nil)
	if stdout != "notty\n" {
		t.Fatalf("got %q, want notty", stdout)
	}
}

func TestExecWithPTY(t *testing.T) {
	t.Parallel()
	c := startServer(t, nil).client(t)
	s := openSession(t, c)
	// What Terraform's communicator asks for before every remote-exec command.
	modes := ssh.TerminalModes{ssh.ECHO: 0, ssh.TTY_OP_ISPEED: 14400, ssh.TTY_OP_OSPEED: 14400}
	if err := s.RequestPty("xterm", 40, 80, modes); err != nil {
		t.Fatal(err)
	}
	out, err := s.Output("test -t 0 && echo isatty; tty; stty size; stty -a | grep -o -- '-echo ' ; echo $TERM\n")
	if err != nil {
		t.Fatalf("run: %v (%q)", err, out)
	}
	text := strings.ReplaceAll(string(out), "\r\n", "\n")
	for _, want := range []string{"isatty\n", "/dev/pts/", "40 80\n", "-echo \n", "xterm\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("output %q lacks %q", text, want)
		}
	}
}

func TestShellWithPTYFollowsWindowChanges(t *testing.T) {
	t.Parallel()
	c := startServer(t, nil).client(t)
	s := openSession(t, c)
	if err := s.RequestPty("vt100", 24, 80, ssh.TerminalModes{ssh.ECHO: 0}); err != nil {
		t.Fatal(err)
	}
	stdin, err := s.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := s.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- strings.TrimSpace(sc.Text())
		}
		close(lines)
	}()
	expect := func(want string) {
		t.Helper()
		timeout := time.After(eventWait)
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("output ended before %q", want)
				}
				if strings.HasSuffix(line, want) {
					return
				}
			case <-timeout:
				t.Fatalf("no %q within %s", want, eventWait)
			}
		}
	}
	_, _ = io.WriteString(stdin, "stty size\n")
	expect("24 80")
	if err := s.WindowChange(50, 132); err != nil {
		t.Fatal(err)
	}
	// x/crypto/ssh hands a channel's requests and its data to the server apart, so a command
	// sent right after window-change may run before the new size is set: ask until it shows.
	asking := make(chan struct{})
	go func() {
		for {
			_, _ = io.WriteString(stdin, "stty size\n")
			select {
			case <-asking:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	expect("50 132")
	close(asking)
	_, _ = io.WriteString(stdin, "exit 7\n")
	var exitErr *ssh.ExitError
	if err := s.Wait(); !errors.As(err, &exitErr) || exitErr.ExitStatus() != 7 {
		t.Fatalf("got %v, want exit status 7", err)
	}
}

func TestSignalAndExitSignal(t *testing.T) {
	t.Parallel()
	c := startServer(t, nil).client(t)
	s := openSession(t, c)
	stdout, err := s.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("echo ready; exec sleep 30"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("got %q, %v", line, err)
	}
	if err := s.Signal(ssh.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var exitErr *ssh.ExitError
	if err := s.Wait(); !errors.As(err, &exitErr) || exitErr.Signal() != "TERM" {
		t.Fatalf("got %v, want exit signal TERM", err)
	}
}

// TestLocalForwardingRemoteRefused: a direct-tcpip channel (ssh -L, ssh -J) carries bytes both
// ways to the address asked, half-closes on the client's EOF, and is refused naming the address
// where nothing listens; remote forwarding (ssh -R) stays refused.
func TestLocalForwardingRemoteRefused(t *testing.T) {
	t.Parallel()
	c := startServer(t, nil).client(t)
	target, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	go func() { // an echo server that answers once its client has sent everything
		conn, err := target.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		data, _ := io.ReadAll(conn)
		_, _ = conn.Write(append([]byte("echo: "), data...))
	}()
	conn, err := c.Dial("tcp", target.Addr().String())
	if err != nil {
		t.Fatalf("direct-tcpip (ssh -L): %v", err)
	}
	if _, err := conn.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	if cw, ok := conn.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	if got, err := io.ReadAll(conn); err != nil || string(got) != "echo: ping" {
		t.Errorf("through the forward: got %q (%v), want %q", got, err, "echo: ping")
	}
	_ = conn.Close()
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	closedAddr := closed.Addr().String()
	_ = closed.Close()
	if conn, err := c.Dial("tcp", closedAddr); err == nil || !strings.Contains(err.Error(), closedAddr) {
		if conn != nil {
			_ = conn.Close()
		}
		t.Errorf("a forward to %s where nothing listens: %v, want it refused naming the address", closedAddr, err)
	}
	if ln, err := c.Listen("tcp", "127.0.0.1:0"); err == nil {
		_ = ln.Close()
		t.Error("tcpip-forward (ssh -R) was accepted")
	}
	if ok, _, err := c.SendRequest("keepalive@openssh.com", true, nil); err != nil || ok {
		t.Errorf("keepalive: got ok %v, err %v; want a false reply", ok, err)
	}
}

func TestServeEndsSessionsWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	ts := startServer(t, nil)
	c := ts.client(t)
	s := openSession(t, c)
	stdout, err := s.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("echo $$; sleep 60"); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	// Well under the command's 60 s, and with room for a loaded machine past the grace.
	if took := time.Since(start); took > hangupGrace+20*time.Second {
		t.Fatalf("Serve took %s to return", took)
	}
	if err := s.Wait(); err == nil {
		t.Fatal("the session's command went on after Serve returned")
	}
}

func TestKeyboardInteractiveAsksForThePassword(t *testing.T) {
	t.Parallel()
	ts := startServer(t, nil)
	for _, tc := range []struct {
		name, password string
		ok             bool
	}{
		{"right password", testPassword, true},
		{"wrong password", "wrong", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer := ssh.KeyboardInteractive(func(_, _ string, questions []string, echos []bool) ([]string, error) {
				if len(questions) != 1 || echos[0] {
					return nil, fmt.Errorf("got questions %q echo %v, want one password prompt without echo", questions, echos)
				}
				return []string{tc.password}, nil
			})
			c, err := ssh.Dial("tcp", ts.addr, &ssh.ClientConfig{
				User: testUser, Auth: []ssh.AuthMethod{answer}, HostKeyCallback: ssh.FixedHostKey(ts.hostKey), Timeout: 5 * time.Second,
			})
			if c != nil {
				_ = c.Close()
			}
			if (err == nil) != tc.ok {
				t.Fatalf("got err %v, want success %v", err, tc.ok)
			}
		})
	}
}

// flakyListener fails its first Accept as a process out of descriptors does.
type flakyListener struct {
	net.Listener
	failed atomic.Bool
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if !l.failed.Swap(true) {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: syscall.EMFILE}
	}
	return l.Listener.Accept()
}

func TestServeGoesOnAfterATransientAcceptError(t *testing.T) {
	t.Parallel()
	ts := startServer(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := NewHostKey()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, &flakyListener{Listener: ln}, Config{
			HostKey: key, Shell: "/bin/sh",
			CheckPassword: func(_, p string) bool { return p == testPassword },
		})
	}()
	ts.addr, ts.hostKey = ln.Addr().String(), key.PublicKey()
	c := ts.client(t)
	if out, _, _ := run(t, c, "echo up", nil); out != "up\n" {
		t.Fatalf("got %q", out)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// startAndReadPID starts command (which prints its shell's pid first) and returns that pid.
func startAndReadPID(t *testing.T, s *ssh.Session, command string) int {
	t.Helper()
	stdout, err := s.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(command); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("pid: %v", err)
	}
	return pid
}

// waitGone waits (bounded) for a process to have exited and been reaped.
func waitGone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still there after %s", pid, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestClientGoneHangsUpItsCommand(t *testing.T) {
	t.Parallel()
	for _, withPTY := range []bool{false, true} {
		t.Run("pty="+strconv.FormatBool(withPTY), func(t *testing.T) {
			c := startServer(t, nil).client(t)
			s := openSession(t, c)
			if withPTY {
				if err := s.RequestPty("xterm", 24, 80, nil); err != nil {
					t.Fatal(err)
				}
			}
			pid := startAndReadPID(t, s, "echo $$; exec sleep 60")
			_ = c.Close()
			waitGone(t, pid, hangupGrace+3*time.Second)
		})
	}
}

func TestPTYBackgroundProcessDoesNotHoldTheSession(t *testing.T) {
	t.Parallel()
	c := startServer(t, nil).client(t)
	s := openSession(t, c)
	if err := s.RequestPty("xterm", 24, 80, nil); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, err := s.Output("sleep 30 & echo started")
	if err != nil || !strings.Contains(string(out), "started") {
		t.Fatalf("got %q, %v", out, err)
	}
	if took := time.Since(start); took > 20*time.Second { // held, it would take the 30 s sleep
		t.Fatalf("the session took %s: a background process held it", took)
	}
}

func TestPTYOutputIsNotLostAtExit(t *testing.T) {
	t.Parallel()
	c := startServer(t, nil).client(t)
	s := openSession(t, c)
	if err := s.RequestPty("xterm", 24, 80, nil); err != nil {
		t.Fatal(err)
	}
	out, err := s.Output("seq 1 20000")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(string(out), "\r\n", "\n")), "\n")
	if len(lines) != 20000 || lines[len(lines)-1] != "20000" {
		t.Fatalf("got %d lines ending %q, want 20000 ending \"20000\"", len(lines), lines[len(lines)-1])
	}
}

func TestShellWithoutPTYReadsCommandsFromStdin(t *testing.T) {
	t.Parallel()
	c := startServer(t, nil).client(t)
	s := openSession(t, c)
	var stdout bytes.Buffer
	s.Stdin, s.Stdout = strings.NewReader("echo from stdin; exit 4\n"), &stdout
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	var exitErr *ssh.ExitError
	if err := s.Wait(); !errors.As(err, &exitErr) || exitErr.ExitStatus() != 4 || stdout.String() != "from stdin\n" {
		t.Fatalf("got %v, %q; want exit status 4 and \"from stdin\"", err, stdout.String())
	}
}

func TestShellThatCannotStartIsRefused(t *testing.T) {
	t.Parallel()
	c := startServer(t, func(c *Config) { c.Shell = "/nonexistent/sh" }).client(t)
	s := openSession(t, c)
	err := s.Run("true")
	var exitErr *ssh.ExitError
	if err == nil || errors.As(err, &exitErr) {
		t.Fatalf("got %v, want the exec request refused", err)
	}
}

func TestSysProcAttrIsApplied(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	root := os.Getuid() == 0
	c := startServer(t, func(c *Config) {
		c.SysProcAttr = func() *syscall.SysProcAttr {
			calls.Add(1)
			cred := &syscall.Credential{Uid: uint32(os.Getuid()), Gid: uint32(os.Getgid()), NoSetGroups: true}
			if root { // a credential the command can see: its supplementary groups
				cred.NoSetGroups, cred.Groups = false, []uint32{4242}
			}
			return &syscall.SysProcAttr{Credential: cred}
		}
	}).client(t)
	out, _, _ := run(t, c, "id -G", nil)
	if root && !strings.Contains(out, "4242") {
		t.Fatalf("got groups %q, want 4242 among them", out)
	}
	out, _, _ = run(t, c, "test \"$(ps -o sid= -p $$)\" -eq $$ && echo leader", nil)
	if strings.TrimSpace(out) != "leader" {
		t.Fatalf("got %q, want the command to lead its own session", out)
	}
	if got := calls.Load(); got != 2 {
		t.Fatalf("SysProcAttr called %d times for 2 commands", got)
	}
}

func TestSessionsPerConnectionAreBounded(t *testing.T) {
	t.Parallel()
	c := startServer(t, nil).client(t)
	var open []*ssh.Session
	for range maxSessions {
		s, err := c.NewSession()
		if err != nil {
			t.Fatalf("session %d: %v", len(open)+1, err)
		}
		open = append(open, s)
	}
	if s, err := c.NewSession(); err == nil {
		_ = s.Close()
		t.Fatalf("session %d was opened, want at most %d", maxSessions+1, maxSessions)
	}
	if err := open[0].Run("true"); err != nil {
		t.Fatal(err)
	}
	// The finished session's place is free again (bounded wait: its close is asynchronous).
	deadline := time.Now().Add(eventWait)
	for {
		s, err := c.NewSession()
		if err == nil {
			_ = s.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no session after one ended: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, s := range open[1:] {
		_ = s.Close()
	}
}

func TestEnvRequestsAreBounded(t *testing.T) {
	t.Parallel()
	c := startServer(t, nil).client(t)
	s := openSession(t, c)
	for i := range maxEnv {
		if err := s.Setenv("LC_X"+strconv.Itoa(i), "v"); err != nil {
			t.Fatalf("variable %d refused: %v", i+1, err)
		}
	}
	if err := s.Setenv("LC_ONE_TOO_MANY", "v"); err == nil {
		t.Fatalf("variable %d accepted, want at most %d", maxEnv+1, maxEnv)
	}
}

func TestSysProcAttrOfTheCallerIsNotChanged(t *testing.T) {
	t.Parallel()
	shared := &syscall.SysProcAttr{}
	c := startServer(t, func(c *Config) {
		c.SysProcAttr = func() *syscall.SysProcAttr { return shared }
	}).client(t)
	s := openSession(t, c)
	if err := s.RequestPty("xterm", 24, 80, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Run("true"); err != nil {
		t.Fatal(err)
	}
	if shared.Setsid || shared.Setctty {
		t.Fatalf("the caller's SysProcAttr was changed: %+v", *shared)
	}
}

func TestClientGoneReleasesOutputHeldByABackgroundProcess(t *testing.T) {
	t.Parallel()
	ts := startServer(t, nil)
	c := ts.client(t)
	s := openSession(t, c)
	// The shell exits at once; the background sleep keeps its stdout open, so the session
	// waits for it as OpenSSH's would, until the client goes away.
	pid := startAndReadPID(t, s, "sleep 60 & echo $!")
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	_ = c.Close()
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
}

func TestHomeOfOtherUsers(t *testing.T) {
	t.Parallel()
	ts := startServer(t, func(c *Config) {
		c.CheckPassword = func(_, password string) bool { return password == testPassword }
	})
	for user, want := range map[string]string{"root": "/root", "alice": "/home/alice", "../etc": "/"} {
		c, err := ssh.Dial("tcp", ts.addr, &ssh.ClientConfig{
			User: user, Auth: []ssh.AuthMethod{ssh.Password(testPassword)}, HostKeyCallback: ssh.FixedHostKey(ts.hostKey), Timeout: 5 * time.Second,
		})
		if err != nil {
			t.Fatal(err)
		}
		out, _, _ := run(t, c, "echo $HOME $USER", nil)
		_ = c.Close()
		if out != want+" "+user+"\n" {
			t.Errorf("user %q: got %q, want HOME %s", user, out, want)
		}
	}
}
