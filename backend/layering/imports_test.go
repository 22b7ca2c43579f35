// Package layering holds the backend's checks of its own layout: tests only, no code.
package layering

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// module is the import path every package of this repository begins with.
const module = "github.com/reseller/terraform-provider-reseller"

// upper are the backend's packages that stand above backend/internal: the composition root
// (backend/resellerd), the command, and the packages beside them that build on the root (dev's
// server, the operator commands, their output, the start checks). Arrows point inward
// (ARCHITECTURE.md, "A backend entity, to copy"): a package under backend/internal that
// imported one of these would tie the rules to the wiring above them, and import cycles wait
// one edit away. A prefix covers the packages under it.
var upper = []string{
	module + "/backend/resellerd",
	module + "/backend/cmd/",
	module + "/backend/devserver",
	module + "/backend/operatorcmd",
	module + "/backend/operatorview",
	module + "/backend/preflight",
}

// goListWait bounds go list over the backend's packages: it reads their imports and compiles
// nothing, but a loaded host is many times slower than an idle one.
const goListWait = 5 * time.Minute

// listedPackage is what go list -json says of a package that this test reads.
type listedPackage struct {
	ImportPath   string
	Imports      []string // the package's own files
	TestImports  []string // its _test.go files in the package
	XTestImports []string // its _test.go files of package x_test
	Deps         []string // everything its own files reach, transitively
}

// TestInternalImportsNothingAbove fails when a package under backend/internal, or one of its
// test files, imports the composition root, the command or a package beside them, directly or
// (for its own files) through another package.
func TestInternalImportsNothingAbove(t *testing.T) {
	pkgs := listPackages(t, "../internal/...")
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages under backend/internal; want the whole tree", len(pkgs))
	}
	for _, p := range pkgs {
		for _, imp := range directImports(p) {
			if isUpper(imp) {
				t.Errorf("%s imports %s: nothing under backend/internal imports the packages above it; "+
					"move what it needs down, or move the package up beside backend/resellerd", p.ImportPath, imp)
			}
		}
		for _, dep := range p.Deps {
			if isUpper(dep) && !slices.Contains(p.Imports, dep) {
				t.Errorf("%s depends on %s through another package", p.ImportPath, dep)
			}
		}
	}
}

// TestIsUpper holds the rule to the paths it is about, so a check that matched nothing would
// not pass by saying nothing.
func TestIsUpper(t *testing.T) {
	for path, want := range map[string]bool{
		module + "/backend/resellerd":               true,
		module + "/backend/cmd/resellerd":           true,
		module + "/backend/devserver":               true,
		module + "/backend/preflight":               true,
		module + "/backend/internal/service":        false,
		module + "/backend/internal/store/sqlstore": false,
		module + "/backend/machinestest":            false,
		module + "/backend/serverless":              false,
		module + "/webhook":                         false,
	} {
		if got := isUpper(path); got != want {
			t.Errorf("isUpper(%s) = %v, want %v", path, got, want)
		}
	}
}

// isUpper reports whether path is one of upper's packages or under a prefix of them.
func isUpper(path string) bool {
	for _, u := range upper {
		if path == u || (strings.HasSuffix(u, "/") && strings.HasPrefix(path, u)) {
			return true
		}
	}
	return false
}

// directImports is every import of p's files, test files included.
func directImports(p listedPackage) []string {
	return slices.Concat(p.Imports, p.TestImports, p.XTestImports)
}

// listPackages runs go list -json on pattern (relative to backend/) and decodes its stream of
// objects.
func listPackages(t *testing.T, pattern string) []listedPackage {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), goListWait)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", "list",
		"-json=ImportPath,Imports,TestImports,XTestImports,Deps", pattern)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", pattern, err, stderr.Bytes())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return pkgs
		}
		if err != nil {
			t.Fatalf("go list %s: decode: %v", pattern, err)
		}
		pkgs = append(pkgs, p)
	}
}
