package machines

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/testbuf"
	"golang.org/x/crypto/ssh"
)

// escape is one way out of a machine through a system call, tried as the machine's root over
// SSH, or a workload the seccomp filter must leave alone.
type escape struct {
	name    string
	command string // run by the machine's /bin/sh; seccompprobe is testdata/seccompprobe
	refused bool   // true: the command must fail; false: it must succeed
	want    string // in its output
}

// escapes are the reproductions of issue 40 (5) and (7) and their neighbours. Each refused
// row succeeds, or fails with another error, on a machine without the filter (the probe's
// arguments are chosen for that, see testdata/seccompprobe), except the last four, which the
// capabilities machines lack refuse too: for them the filter is a second wall.
func escapes() []escape {
	return []escape{
		{"the kernel keyring: add a key", "seccompprobe add_key", true, "EPERM"},
		{"the kernel keyring: read a keyring", "seccompprobe keyctl", true, "EPERM"},
		{"the kernel keyring: request a key", "seccompprobe request_key", true, "EPERM"},
		{"a user namespace: unshare -U -r", "unshare -U -r true", true, "not permitted"},
		{"a user namespace: clone", "seccompprobe clone-newuser", true, "EPERM"},
		{"clone3 looks absent, so libc falls back to clone", "seccompprobe clone3", true, "ENOSYS"},
		{"io_uring_setup", "seccompprobe io_uring_setup", true, "EPERM"},
		{"perf_event_open", "seccompprobe perf_event_open", true, "EPERM"},
		{"userfaultfd", "seccompprobe userfaultfd", true, "EPERM"},
		{"name_to_handle_at", "seccompprobe name_to_handle_at", true, "EPERM"},
		{"process_vm_readv", "seccompprobe process_vm_readv", true, "EPERM"},
		{"kcmp", "seccompprobe kcmp", true, "EPERM"},
		{"personality ADDR_NO_RANDOMIZE", "seccompprobe personality", true, "EPERM"},
		{"a namespace joined: setns", "nsenter --net=/proc/self/ns/net true", true, "not permitted"},
		{"bpf", "seccompprobe bpf", true, "EPERM"},
		{"mount", "mkdir -p /mnt && mount -t tmpfs none /mnt", true, "permission denied"},
		{"the host's kernel log: dmesg", "dmesg", true, "not permitted"},

		{"the filter is on", "grep Seccomp: /proc/self/status", false, "Seccomp:\t2"},
		{"a call the filter allows", "seccompprobe getpid", false, "ok"},
		{"a shell, ls and a pipe", "ls / | grep -x etc", false, "etc"},
		{"fork, exec and wait", "sh -c 'exit 3'; echo status $?", false, "status 3"},
		{"a 32-bit personality (linux32)", "linux32 true && echo personality", false, "personality"},
		{"chroot (CAP_SYS_CHROOT is kept)", "chroot / true && echo chrooted", false, "chrooted"},
	}
}

// escapesThroughSyscalls boots a machine, copies testdata/seccompprobe into it over SSH
// and tries every escape of escapes() as its root over SSH, then a PTY login. (An scp upload
// through the filter is TestPTYAndCopiesInAMachine's.)
func escapesThroughSyscalls(t *testing.T) {
	m := newManager(t, "198.18.233.0/24")
	probe := buildProbe(t)
	ip := netip.MustParseAddr("198.18.233.10")
	if err := m.Create(context.Background(), Spec{Ref: "vm-sc", Hostname: "sc", Template: "t", IPv4: ip, Password: "pw"}, ""); err != nil {
		t.Fatal(err)
	}
	sshPut(t, ip, "pw", probe, "/usr/local/bin/seccompprobe")
	for _, e := range escapes() {
		t.Run(e.name, func(t *testing.T) {
			out, err := sshRun(ip, "pw", e.command)
			var exit *ssh.ExitError
			switch {
			case e.refused && err == nil:
				t.Fatalf("%q succeeded: %q; want it refused (%s)", e.command, out, e.want)
			case e.refused && !errors.As(err, &exit):
				t.Fatalf("%q: %v", e.command, err)
			case !e.refused && err != nil:
				t.Fatalf("%q: %v (output %q); want it to work", e.command, err, out)
			}
			if !strings.Contains(out, e.want) {
				t.Fatalf("%q: output %q, want %q in it", e.command, out, e.want)
			}
		})
	}
	t.Run("a PTY login", func(t *testing.T) {
		if out := ptyLogin(t, ip, "pw", "tty; exit\n"); !strings.Contains(out, "/dev/pts/") {
			t.Fatalf("a login shell on a PTY said %q, want its /dev/pts/N", out)
		}
	})
}

// buildProbe builds testdata/seccompprobe as a static binary (the default image has no libc).
func buildProbe(t *testing.T) []byte {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("the go command is needed to build testdata/seccompprobe; CI is set, so the test must run")
		}
		t.Skip("needs the go command to build testdata/seccompprobe")
	}
	bin := filepath.Join(t.TempDir(), "seccompprobe")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/seccompprobe")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build testdata/seccompprobe: %v\n%s", err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// sshPut writes data to path in the machine at addr, executable, through an SSH session's
// standard input.
func sshPut(t *testing.T, addr netip.Addr, password string, data []byte, path string) {
	t.Helper()
	c := sshClient(t, addr, password)
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Stdin = bytes.NewReader(data)
	if out, err := s.CombinedOutput("cat > " + path + " && chmod 755 " + path); err != nil {
		t.Fatalf("copy to %s: %v: %s", path, err, out)
	}
}

// ptyLogin opens a login shell on a PTY, types input and returns what the terminal showed.
func ptyLogin(t *testing.T, addr netip.Addr, password, input string) string {
	t.Helper()
	c := sshClient(t, addr, password)
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.RequestPty("xterm", 24, 80, ssh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	var out testbuf.Buffer
	s.Stdout, s.Stderr = &out, &out
	s.Stdin = strings.NewReader(input)
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err != nil {
		t.Fatalf("the login shell: %v (terminal %q)", err, out.String())
	}
	return out.String()
}

// sshClient logs into addr as root, closed at the test's end.
func sshClient(t *testing.T, addr netip.Addr, password string) *ssh.Client {
	t.Helper()
	c, err := ssh.Dial("tcp", net.JoinHostPort(addr.String(), "22"), &ssh.ClientConfig{
		User: "root", Auth: []ssh.AuthMethod{ssh.Password(password)},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 3 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
