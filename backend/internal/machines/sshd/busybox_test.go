package sshd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// TestBusyboxMachineShell serves with busybox as the shell and the only tools, as the
// machines' default image does: exec, a login shell, a PTY, and an scp upload with no scp.
func TestBusyboxMachineShell(t *testing.T) {
	t.Parallel()
	busybox := needTool(t, "busybox")
	bin := t.TempDir()
	if out, err := exec.Command(busybox, "--install", "-s", bin).CombinedOutput(); err != nil {
		t.Fatalf("busybox --install: %v\n%s", err, out)
	}
	ts := startServer(t, func(c *Config) {
		c.Shell = filepath.Join(bin, "sh")
		c.Env = []string{"PATH=" + bin}
	})
	c := ts.client(t)

	if out, _, status := run(t, c, "command -v scp || echo none; echo $0", nil); out != "none\nsh\n" || status != 0 {
		t.Fatalf("exec: got %q, status %d", out, status)
	}

	s := openSession(t, c)
	var stdout bytes.Buffer
	s.Stdin, s.Stdout = strings.NewReader("echo $0\n"), &stdout
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err != nil || stdout.String() != "-sh\n" {
		t.Fatalf("login shell: got %q, %v; want \"-sh\"", stdout.String(), err)
	}

	s = openSession(t, c)
	if err := s.RequestPty("xterm", 24, 80, ssh.TerminalModes{ssh.ECHO: 0}); err != nil {
		t.Fatal(err)
	}
	out, err := s.Output("tty")
	if err != nil || !strings.HasPrefix(string(out), "/dev/pts/") {
		t.Fatalf("pty: got %q, %v", out, err)
	}

	dir := t.TempDir()
	openSSH(t, ts, "scp", "-O", "/etc/hostname", "root@127.0.0.1:"+dir+"/copied")
	if _, err := os.Stat(filepath.Join(dir, "copied")); err != nil {
		t.Fatalf("scp: %v", err)
	}
}
