package layering

import (
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// machinesRange is a literal /24 of the benchmarking ranges (198.18.0.0/15) in a test source:
// the range a test's machines are routed on.
var machinesRange = regexp.MustCompile(`"(198\.1[89]\.\d+\.0/24)"`)

// TestNoMachinesRangeInTwoPackages fails when two test packages name the same /24 for their
// machines. make test runs several backend packages at once, and a host routes a range for one
// of them only: the second package's test then fails to start its machines (TestJumpHost and
// TestMachineTrafficCounted once both took 198.19.43.0/24). Within one package, tests that share
// a range do not run at the same time (they are not t.Parallel), which this test does not see.
func TestNoMachinesRangeInTwoPackages(t *testing.T) {
	owner := map[string]string{} // range -> the first package directory naming it
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		for _, m := range machinesRange.FindAllStringSubmatch(string(src), -1) {
			if first, ok := owner[m[1]]; ok && first != dir {
				t.Errorf("%s is named by the tests of %s and of %s: give one of them a range of its own", m[1], first, dir)
			}
			owner[m[1]] = dir
			if inAcctestPool(m[1]) {
				t.Errorf("%s (%s) is in 198.19.128.0/17, which internal/acctest hands out to the provider's machine tests: take a range below it", m[1], path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(owner) < 20 {
		t.Fatalf("found %d ranges in the test sources; want the machine tests' (at least 20)", len(owner))
	}
}

// inAcctestPool reports whether a /24 of the literal form "198.19.N.0/24" lies in
// 198.19.128.0/17, the pool internal/acctest's WithMachines locks ranges from.
func inAcctestPool(cidr string) bool {
	prefix, err := netip.ParsePrefix(cidr)
	return err == nil && netip.MustParsePrefix("198.19.128.0/17").Overlaps(prefix)
}
