package seccompfilter

import (
	"bytes"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/seccompfilter/policy"
)

// TestGeneratedProgramsAreThePolicys fails when zprograms.go is not what the policy assembles
// to today: run go generate in this directory.
func TestGeneratedProgramsAreThePolicys(t *testing.T) {
	got := programs()
	if len(got) != len(policy.Arches()) {
		t.Errorf("zprograms.go has %d architectures, policy.Arches %d: run go generate", len(got), len(policy.Arches()))
	}
	for _, goarch := range policy.Arches() {
		want, err := policy.Program(goarch)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal([]byte(got[goarch]), want) {
			t.Errorf("the %s program in zprograms.go is not the policy's: run go generate in backend/internal/machines/seccompfilter", goarch)
		}
	}
	if _, err := Program(); err != nil && slices.Contains(policy.Arches(), runtime.GOARCH) {
		t.Errorf("Program on %s: %v", runtime.GOARCH, err)
	}
}

// TestTheLibraryIsNotLinked keeps go-seccomp-bpf out of this package's dependencies, and so out
// of resellerd's binary, where its package init would run in every machine's init and agent
// (see the package doc).
func TestTheLibraryIsNotLinked(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "go-seccomp-bpf") || strings.HasSuffix(dep, "/seccompfilter/policy") {
			t.Errorf("package seccompfilter depends on %s", dep)
		}
	}
}
