package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/reseller/terraform-provider-reseller/bench/internal/stats"
)

// With -transfer MB the bench also compares, inside the first machine, resellerd's SSH server
// (the agent, port 22) with OpenSSH's sshd (started on opensshPort from the machine's image,
// which must hold /usr/sbin/sshd: `resellerd image build --include openssh-server`, given with
// -image). The same OpenSSH client on the host copies MB megabytes each way with the legacy
// scp protocol (`scp -O`: the scp sink and source served in Go) and streams them into
// `ssh HOST 'cat > /dev/null'`, the two servers taking turns, -rounds times; the figures are the
// medians and their ratio, from the same run.

// opensshPort is where the machine's OpenSSH sshd listens beside the agent's port 22.
const opensshPort = 2222

// transferTimeout bounds one copy: MB megabytes at well under 1 MB/s would be a broken run.
func transferTimeout(mb int) time.Duration { return time.Minute + time.Duration(mb)*time.Second }

// transferKinds are the copies compared, in the order each round runs them.
var transferKinds = []string{"scp upload", "scp download", "ssh 'cat > /dev/null'"}

// transferFigure is one kind's seconds for each server, a value per round.
type transferFigure struct {
	kind              string
	resellerd, openss []float64
}

// sshPeer is how the host's OpenSSH client reaches one of the two servers.
type sshPeer struct {
	name string
	port int
	opts []string // authentication
	env  []string
}

// compareTransfers runs the comparison on l's machine and returns each kind's figures.
func compareTransfers(ctx context.Context, o options, dir string, l login) ([]transferFigure, error) {
	tdir := filepath.Join(dir, "transfer")
	if err := os.MkdirAll(tdir, 0o700); err != nil {
		return nil, err
	}
	keyPath, pub, err := clientKey(tdir)
	if err != nil {
		return nil, err
	}
	if err := startOpenSSH(l, pub, o.sshd, o.transferMB); err != nil {
		return nil, err
	}
	askpass := filepath.Join(tdir, "askpass")
	if err := os.WriteFile(askpass, []byte("#!/bin/sh\ncat "+filepath.Join(tdir, "password")+"\n"), 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tdir, "password"), []byte(l.sshPassword+"\n"), 0o600); err != nil {
		return nil, err
	}
	up := filepath.Join(tdir, "up.bin")
	if err := randomFile(up, o.transferMB); err != nil {
		return nil, err
	}
	peers := []sshPeer{
		{name: "resellerd", port: 22, opts: []string{"-o", "PubkeyAuthentication=no", "-o", "PreferredAuthentications=password,keyboard-interactive"},
			env: []string{"SSH_ASKPASS=" + askpass, "SSH_ASKPASS_REQUIRE=force", "DISPLAY=none"}},
		{name: "openssh", port: opensshPort, opts: []string{"-i", keyPath, "-o", "PreferredAuthentications=publickey", "-o", "BatchMode=yes"}},
	}
	figures := make([]transferFigure, len(transferKinds))
	for i, k := range transferKinds {
		figures[i].kind = k
	}
	for round := range o.rounds {
		for i, kind := range transferKinds {
			order := peers
			if round%2 == 1 { // interleaved: each server goes first every other round
				order = []sshPeer{peers[1], peers[0]}
			}
			for _, p := range order {
				secs, err := transferOnce(ctx, kind, p, l.ipv4, up, tdir, o.transferMB)
				if err != nil {
					return nil, fmt.Errorf("%s to %s: %w", kind, p.name, err)
				}
				if p.name == "resellerd" {
					figures[i].resellerd = append(figures[i].resellerd, secs)
				} else {
					figures[i].openss = append(figures[i].openss, secs)
				}
			}
		}
	}
	return figures, nil
}

// transferOnce runs one copy of kind with the host's OpenSSH client and returns its seconds.
func transferOnce(ctx context.Context, kind string, p sshPeer, ip, up, tdir string, mb int) (float64, error) {
	common := append([]string{"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"}, p.opts...)
	target := "root@" + ip
	var cmd *exec.Cmd
	ctx, cancel := context.WithTimeout(ctx, transferTimeout(mb))
	defer cancel()
	switch kind {
	case "scp upload":
		args := append(append([]string{"-O", "-P", strconv.Itoa(p.port)}, common...), up, target+":/root/up-"+p.name+".bin")
		cmd = exec.CommandContext(ctx, "scp", args...)
	case "scp download":
		args := append(append([]string{"-O", "-P", strconv.Itoa(p.port)}, common...), target+":/root/down.bin", filepath.Join(tdir, "down-"+p.name+".bin"))
		cmd = exec.CommandContext(ctx, "scp", args...)
	default:
		args := append(append([]string{"-p", strconv.Itoa(p.port)}, common...), target, "cat > /dev/null")
		cmd = exec.CommandContext(ctx, "ssh", args...)
		f, err := os.Open(up)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		cmd.Stdin = f
	}
	cmd.Env = append(os.Environ(), p.env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	secs := time.Since(start).Seconds()
	if kind == "scp download" {
		fi, err := os.Stat(filepath.Join(tdir, "down-"+p.name+".bin"))
		if err != nil || fi.Size() != int64(mb)<<20 {
			return 0, fmt.Errorf("downloaded file: %v (want %d MiB)", err, mb)
		}
	}
	return secs, nil
}

// startOpenSSH logs into l's machine (resellerd's server) and starts OpenSSH's sshd on
// opensshPort, for root with pub only, and writes the file the downloads read. sshd, when not
// empty, is an OpenSSH sshd binary of the host's (the image's own libraries must fit it) copied
// into the machine's disk first, for an image without openssh-server.
func startOpenSSH(l login, pub, sshd string, mb int) error {
	script := fmt.Sprintf(`set -e
test -x /usr/sbin/sshd || { echo "no /usr/sbin/sshd in the machine's image: give -image an image built with --include openssh-server" >&2; exit 3; }
mkdir -p /run/sshd /root/.ssh
chmod 700 /root/.ssh
cat > /root/.ssh/authorized_keys
chmod 600 /root/.ssh/authorized_keys
grep -q '^sshd:' /etc/passwd || echo 'sshd:x:64999:65534::/run/sshd:/usr/sbin/nologin' >> /etc/passwd
ssh-keygen -A >/dev/null 2>&1 || true
/usr/sbin/sshd -f /dev/null -p %d -o PermitRootLogin=prohibit-password -o PasswordAuthentication=no -o UsePAM=no -o PidFile=/run/sshd-bench.pid
head -c %dM /dev/urandom > /root/down.bin
`, opensshPort, mb)
	client, err := ssh.Dial("tcp", net.JoinHostPort(l.ipv4, "22"), &ssh.ClientConfig{User: l.sshUser,
		Auth: []ssh.AuthMethod{ssh.Password(l.sshPassword)}, HostKeyCallback: ssh.InsecureIgnoreHostKey(), //nolint:gosec // a bench machine
		Timeout: sshTimeout})
	if err != nil {
		return fmt.Errorf("log in to start OpenSSH: %w", err)
	}
	defer client.Close()
	if sshd != "" {
		if err := copyInto(client, sshd, "/usr/sbin/sshd"); err != nil {
			return err
		}
	}
	s, err := client.NewSession()
	if err != nil {
		return err
	}
	defer s.Close()
	s.Stdin = strings.NewReader(pub)
	if out, err := s.CombinedOutput(script); err != nil {
		return fmt.Errorf("start OpenSSH's sshd in the machine: %v: %s", err, out)
	}
	return nil
}

// copyInto writes the host's file src to dst in the machine, executable.
func copyInto(client *ssh.Client, src, dst string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	s, err := client.NewSession()
	if err != nil {
		return err
	}
	defer s.Close()
	s.Stdin = f
	if out, err := s.CombinedOutput("cat > " + dst + " && chmod 755 " + dst); err != nil {
		return fmt.Errorf("copy %s into the machine: %v: %s", src, err, out)
	}
	return nil
}

// clientKey writes an ed25519 key for the OpenSSH client and returns its path and public line.
func clientKey(dir string) (string, string, error) {
	pubKey, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", "", err
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		return "", "", err
	}
	path := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		return "", "", err
	}
	sp, err := ssh.NewPublicKey(pubKey)
	if err != nil {
		return "", "", err
	}
	return path, string(ssh.MarshalAuthorizedKey(sp)), nil
}

// randomFile writes mb MiB of random bytes (incompressible, though neither side compresses).
func randomFile(path string, mb int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.CopyN(f, rand.Reader, int64(mb)<<20); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// printTransfers prints each kind's MB/s for both servers (median of the rounds) and the ratio.
func printTransfers(mb int, figures []transferFigure) {
	fmt.Printf("\nSSH transfers of %d MiB in one machine, host's OpenSSH client, medians of %d rounds, servers taking turns (MiB/s):\n", mb, len(figures[0].resellerd))
	fmt.Printf("%-24s %12s %12s %8s   %s\n", "", "resellerd", "OpenSSH", "ratio", "each round, resellerd / OpenSSH (s)")
	for _, f := range figures {
		r, s := float64(mb)/stats.Median(f.resellerd), float64(mb)/stats.Median(f.openss)
		var rounds []string
		for i := range f.resellerd {
			rounds = append(rounds, fmt.Sprintf("%.2f/%.2f", f.resellerd[i], f.openss[i]))
		}
		fmt.Printf("%-24s %12.1f %12.1f %7.2fx   %s\n", f.kind, r, s, r/s, strings.Join(rounds, " "))
	}
}
