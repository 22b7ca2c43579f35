// Package seccompfilter carries the seccomp filter of everything users run in a machine (the
// agent and all it starts), assembled ahead of time for each architecture of policy.Arches:
// the policy, with Docker's default profile's semantics and where it differs, is package
// policy's doc. The host hands the program to the machine's init in its Boot, because init
// must import only the standard library (see package machineinit); init installs it on the
// thread that starts the agent, so init itself (which mounts and pivots) is not filtered.
//
// The programs are generated (go generate; gen/main.go) rather than assembled at run time
// because go-seccomp-bpf builds its syscall tables at package init, and Go initializes it
// before machineinit's init hook takes the process over: every machine's init and agent would
// carry 165 KB more. TestGeneratedProgramsAreThePolicys fails when the policy and the
// generated programs disagree.
package seccompfilter

//go:generate go run ./gen

import (
	"fmt"
	"runtime"
)

// Program returns the filter for the host's architecture as the kernel reads it: struct
// sock_filter instructions, 8 bytes each, in the host's byte order.
func Program() ([]byte, error) {
	p := programs()[runtime.GOARCH]
	if p == "" {
		return nil, fmt.Errorf("seccomp filter: none generated for %s (package seccompfilter, policy.Arches)", runtime.GOARCH)
	}
	return []byte(p), nil
}
