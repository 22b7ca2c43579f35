package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestMachineInitTakesOverFirst: a machine's PID 1 is this binary re-executed, taken over by
// package machineinit's init hook. Every package Go initializes before that hook costs each idle
// machine its memory for the machine's whole life, so the hook must run before every package
// whose init allocates much (jsonschema's metaschemas, through kin-openapi, take 1.7 MB). The
// test runs this test binary, which links what resellerd links, with GODEBUG=inittrace=1 and
// reads the order Go initialized the packages in.
func TestMachineInitTakesOverFirst(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", self, err, stderr.String())
	}
	const hook = "github.com/reseller/terraform-provider-reseller/backend/internal/machines/machineinit"
	const most = 64 << 10 // bytes a package may allocate at init before the hook
	var before int
	found := false
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PKG @T ms, C ms clock, N bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) < 9 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		if f[1] == hook {
			found = true
			break
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		before += n
		if n > most {
			t.Errorf("%s allocates %d bytes at init, before machineinit takes a machine's PID 1 over", f[1], n)
		}
	}
	if !found {
		t.Fatalf("no inittrace line for %s:\n%s", hook, stderr.String())
	}
	t.Logf("packages initialized before machineinit allocated %d bytes", before)
}
