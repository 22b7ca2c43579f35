package machines

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// TestJumpHost: `ssh -J root@A root@B` works: an SSH client logged into machine A opens a
// direct-tcpip channel to machine B's port 22 and logs into B through it (Terratest's jump-host
// checks do the same).
func TestJumpHost(t *testing.T) {
	m := newManager(t, "198.19.43.0/24")
	ctx := context.Background()
	a, b := netip.MustParseAddr("198.19.43.2"), netip.MustParseAddr("198.19.43.3")
	for _, s := range []Spec{
		{Ref: "vm-jump", Hostname: "jump", Template: "Debian 12", IPv4: a, Username: "root", Password: "jump-pass"},
		{Ref: "vm-inner", Hostname: "inner", Template: "Debian 12", IPv4: b, Username: "root", Password: "inner-pass"},
	} {
		if err := m.Create(ctx, s, ""); err != nil {
			t.Fatal(err)
		}
	}
	cfg := func(pw string) *ssh.ClientConfig {
		return &ssh.ClientConfig{User: "root", Auth: []ssh.AuthMethod{ssh.Password(pw)},
			HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second}
	}
	jump, err := ssh.Dial("tcp", net.JoinHostPort(a.String(), "22"), cfg("jump-pass"))
	if err != nil {
		t.Fatal(err)
	}
	defer jump.Close()
	conn, err := jump.Dial("tcp", net.JoinHostPort(b.String(), "22"))
	if err != nil {
		t.Fatalf("forward from the jump host to %s:22: %v", b, err)
	}
	sc, chans, reqs, err := ssh.NewClientConn(conn, b.String()+":22", cfg("inner-pass"))
	if err != nil {
		t.Fatalf("login to %s through the jump host: %v", b, err)
	}
	inner := ssh.NewClient(sc, chans, reqs)
	defer inner.Close()
	s, err := inner.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, err := s.CombinedOutput("hostname")
	if err != nil || strings.TrimSpace(string(out)) != "inner" {
		t.Fatalf("hostname through the jump host: %q (%v), want inner", out, err)
	}
	openSSHJump(t, a, b)
}

// openSSHJump does the same with OpenSSH's client: ProxyJump is `ssh -W %h:%p` to the jump
// host as the ProxyCommand, spelled out here so sshpass can give each login its password.
func openSSHJump(t *testing.T, jump, inner netip.Addr) {
	t.Helper()
	for _, tool := range []string{"ssh", "sshpass"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("no %s on PATH (apt-get install openssh-client sshpass)", tool)
			}
			t.Skipf("no %s on PATH: OpenSSH's jump not tried", tool)
		}
	}
	opts := "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o ConnectTimeout=5"
	proxy := fmt.Sprintf("sshpass -p jump-pass ssh %s -W %%h:%%p root@%s", opts, jump)
	cmd := exec.Command("sshpass", "-p", "inner-pass", "ssh", "-o", "ProxyCommand="+proxy,
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "root@"+inner.String(), "hostname")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "inner" {
		t.Fatalf("OpenSSH through the jump host: %q (%v), want inner", out, err)
	}
}
