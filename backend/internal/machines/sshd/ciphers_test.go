package sshd

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// opensshClientCiphers is OpenSSH 9's client cipher list in its order (ssh_config(5),
// "Ciphers"): the client takes the first of these the server offers.
var opensshClientCiphers = []string{ssh.CipherChaCha20Poly1305, ssh.CipherAES128CTR, ssh.CipherAES192CTR,
	ssh.CipherAES256CTR, ssh.CipherAES128GCM, ssh.CipherAES256GCM}

func TestOfferedCiphers(t *testing.T) {
	for _, hw := range []bool{true, false} {
		offered := offeredCiphers(hw)
		for _, c := range []string{ssh.CipherAES128GCM, ssh.CipherAES256GCM, ssh.CipherAES128CTR, ssh.CipherAES256CTR} {
			if !slices.Contains(offered, c) {
				t.Errorf("aesHardware=%v: %s not offered: %v", hw, c, offered)
			}
		}
		if got := slices.Contains(offered, ssh.CipherChaCha20Poly1305); got == hw {
			t.Errorf("aesHardware=%v: chacha20-poly1305 offered=%v, want %v: %v", hw, got, !hw, offered)
		}
	}
}

// TestCiphersClientsNegotiate logs in with the cipher lists of real clients and checks what
// each direction of the connection runs: with AES instructions, OpenSSH's client gets AES-CTR
// rather than its first choice, chacha20-poly1305, which x/crypto computes in plain Go.
func TestCiphersClientsNegotiate(t *testing.T) {
	ts := startServer(t, nil)
	opensshGets := ssh.CipherChaCha20Poly1305
	if aesHardware {
		opensshGets = ssh.CipherAES128CTR
	}
	for _, tc := range []struct {
		name    string
		ciphers []string // the client's list; nil: x/crypto's default
		want    string
	}{
		{"OpenSSH's list", opensshClientCiphers, opensshGets},
		{"x/crypto's list", nil, ssh.CipherAES128GCM},
		{"CTR only (Paramiko)", []string{ssh.CipherAES256CTR, ssh.CipherAES192CTR, ssh.CipherAES128CTR}, ssh.CipherAES256CTR},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ts.dialOffering(testPassword, tc.ciphers)
			if err != nil {
				t.Fatalf("login: %v", err)
			}
			defer c.Close()
			algs := c.Conn.(ssh.AlgorithmsConnMetadata).Algorithms()
			if algs.Read.Cipher != tc.want || algs.Write.Cipher != tc.want {
				t.Errorf("ciphers read %s, write %s; want %s both ways", algs.Read.Cipher, algs.Write.Cipher, tc.want)
			}
		})
	}
	t.Run("chacha20 only", func(t *testing.T) {
		c, err := ts.dialOffering(testPassword, []string{ssh.CipherChaCha20Poly1305})
		if err == nil {
			c.Close()
		}
		if aesHardware && err == nil {
			t.Error("a client offering chacha20-poly1305 alone logged in on a host with AES instructions")
		}
		if !aesHardware && err != nil {
			t.Errorf("login without AES instructions: %v", err)
		}
	})
}

// TestOpenSSHClientsCipher logs in with the host's OpenSSH client as users do, its cipher list
// its own: with AES instructions it runs AES-CTR, not chacha20-poly1305.
func TestOpenSSHClientsCipher(t *testing.T) {
	t.Parallel()
	ts := startServer(t, nil)
	out := openSSH(t, ts, "ssh", "-v", "root@127.0.0.1", "true")
	want := "cipher: " + ssh.CipherChaCha20Poly1305
	if aesHardware {
		want = "cipher: " + ssh.CipherAES128CTR
	}
	for _, dir := range []string{"server->client", "client->server"} {
		line := "kex: " + dir + " " + want + " "
		if !strings.Contains(out, line) {
			t.Errorf("ssh -v does not say %q:\n%s", line, out)
		}
	}
}
