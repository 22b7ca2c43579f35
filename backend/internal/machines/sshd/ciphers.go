package sshd

import (
	"runtime"
	"slices"

	"golang.org/x/crypto/ssh"
	"golang.org/x/sys/cpu"
)

// aesHardware says whether this CPU computes AES-GCM in hardware, as crypto/tls decides it
// (hasAESGCMHardwareSupport): AES and carry-less multiplication instructions.
var aesHardware = cpu.X86.HasAES && cpu.X86.HasPCLMULQDQ ||
	cpu.ARM64.HasAES && cpu.ARM64.HasPMULL ||
	cpu.S390X.HasAES && cpu.S390X.HasAESCTR && cpu.S390X.HasGHASH ||
	runtime.GOARCH == "ppc64" || runtime.GOARCH == "ppc64le"

// offeredCiphers is the ciphers the server offers: x/crypto's supported ones, without
// chacha20-poly1305 where the CPU has AES hardware.
//
// Why: an SSH client takes the first cipher of its own list that the server offers, and
// OpenSSH's list starts with chacha20-poly1305@openssh.com. x/crypto computes that one's
// ChaCha20 in plain Go on amd64 (about 0.4 GB/s on the benchmark's host), while its AES runs
// on the CPU's instructions (AES-128-CTR with HMAC-SHA-256 about 1.1 GB/s, AES-128-GCM 4 GB/s)
// and OpenSSH's own sshd has OpenSSL's vectorised ChaCha20 (2.9 GB/s): offered, chacha20 made
// every copy into a machine slower than OpenSSH's sshd in the same machine (0.61-0.90x;
// without it 1.23-1.26x: bench/README.md). OpenSSH's client then takes aes128-ctr with
// hmac-sha2-256-etm@openssh.com; clients that prefer GCM (x/crypto's, PuTTY 0.76 and later)
// take GCM. CTR stays for clients without GCM (Paramiko before 3.5, PuTTY before 0.76). A
// client that offers chacha20-poly1305 alone is refused on such a host. Where the CPU has no
// AES instructions, every supported cipher is offered, chacha20 among them: there it is the
// faster.
func offeredCiphers(aesHardware bool) []string {
	all := ssh.SupportedAlgorithms().Ciphers
	if !aesHardware {
		return all
	}
	return slices.DeleteFunc(all, func(c string) bool { return c == ssh.CipherChaCha20Poly1305 })
}
