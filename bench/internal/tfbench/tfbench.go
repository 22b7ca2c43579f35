// Package tfbench is what the benchmark programs share: building binaries of this module,
// pointing Terraform at them through dev_overrides, and naming API routes for counts.
package tfbench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Build runs `go build -o dir/out pkg` from the module root.
func Build(ctx context.Context, dir, out, pkg string) error {
	root, err := ModuleRoot()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, out), pkg)
	cmd.Dir = root
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, output)
	}
	return nil
}

// ModuleRoot finds the directory of go.mod from the working directory up.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found: run the benchmark from inside the repository")
		}
		dir = parent
	}
}

// WriteCLIConfig writes a Terraform CLI configuration into work that installs each provider
// source (such as "reseller/reseller") from bin, so Terraform never contacts a registry, and
// returns its path.
func WriteCLIConfig(work, bin string, sources ...string) (string, error) {
	var b strings.Builder
	b.WriteString("provider_installation {\n  dev_overrides {\n")
	for _, s := range sources {
		fmt.Fprintf(&b, "    %q = %q\n", s, bin)
	}
	b.WriteString("  }\n  direct {}\n}\n")
	path := filepath.Join(work, "terraform.rc")
	return path, os.WriteFile(path, []byte(b.String()), 0o600)
}

// Route drops the /api/v1 prefix of an API path and replaces its numeric segments with {id}.
func Route(p string) string {
	parts := strings.Split(strings.TrimPrefix(p, "/api/v1"), "/")
	for i, s := range parts {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			parts[i] = "{id}"
		}
	}
	return strings.Join(parts, "/")
}

// Tail returns the last n lines of out.
func Tail(out []byte, n int) string {
	all := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(all) > n {
		all = all[len(all)-n:]
	}
	return strings.Join(all, "\n")
}
