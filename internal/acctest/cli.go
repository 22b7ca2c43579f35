package acctest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// cliTimeout bounds each command a CLI runs (and the build of the provider).
const cliTimeout = 5 * time.Minute

// providerSource is the source address the CLI's configurations and its dev_overrides use.
const providerSource = "reseller/reseller"

// CLI runs the acceptance tests' terraform binary (TF_ACC_TERRAFORM_PATH, else PATH's) directly
// in a working directory of its own, for what terraform-plugin-testing cannot drive: `terraform
// query -generate-config-out`, then plan and apply of the configuration it wrote. The provider is
// built from this module and reached through a dev_overrides CLI configuration, never a registry.
type CLI struct {
	t   *testing.T
	bin string
	dir string
	env []string
}

// NewQueryCLI returns a CLI for a test of `terraform query`, or skips the test (with the reason)
// on a CLI without it: OpenTofu, or Terraform before 1.14. Without TF_ACC the test is skipped too.
func NewQueryCLI(t *testing.T) *CLI {
	t.Helper()
	c := newCLI(t)
	if reason := c.queryMissing(); reason != "" {
		t.Skip(reason)
	}
	c.install()
	return c
}

// NewCLI returns a CLI for any command of Terraform or OpenTofu (`terraform validate`, which
// terraform-plugin-testing never runs on its own). Without TF_ACC the test is skipped.
func NewCLI(t *testing.T) *CLI {
	t.Helper()
	c := newCLI(t)
	c.install()
	return c
}

// Sub returns a CLI for the subtest t: a working directory of its own, with the binary, the
// provider and the environment of c, so a table of subtests builds the provider once. c's test
// must outlive t's, as a parent test outlives its subtests.
func (c *CLI) Sub(t *testing.T) *CLI {
	t.Helper()
	return &CLI{t: t, bin: c.bin, dir: t.TempDir(), env: slices.Clone(c.env)}
}

func newCLI(t *testing.T) *CLI {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance tests run only with TF_ACC=1")
	}
	bin := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if bin == "" {
		bin = "terraform"
	}
	return &CLI{t: t, bin: bin, dir: t.TempDir()}
}

// install builds the provider and points the CLI at it through dev_overrides.
func (c *CLI) install() {
	c.t.Helper()
	pluginDir := c.t.TempDir()
	c.buildProvider(pluginDir)
	cliConfig := filepath.Join(c.dir, "cli.tfrc")
	c.Write("cli.tfrc", fmt.Sprintf("provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n",
		providerSource, pluginDir))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TF_CLI_CONFIG_FILE=") && !strings.HasPrefix(kv, "TF_REATTACH_PROVIDERS=") {
			c.env = append(c.env, kv)
		}
	}
	c.env = append(c.env, "TF_CLI_CONFIG_FILE="+cliConfig, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
}

// version is the CLI's name ("Terraform" or "OpenTofu") and its major and minor version, read
// from `version`; the test fails when it cannot be read.
func (c *CLI) version() (name string, major, minor int) {
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, c.bin, "version").Output()
	if err != nil {
		c.t.Fatalf("running %s version: %v", c.bin, err)
	}
	name, major, minor, ok := cliVersion(string(out))
	if !ok {
		c.t.Fatalf("reading the version of %s from:\n%s", c.bin, out)
	}
	return name, major, minor
}

// queryMissing says why the CLI cannot run `terraform query`, or "" when it can.
func (c *CLI) queryMissing() string {
	name, major, minor := c.version()
	switch {
	case name == "OpenTofu":
		return fmt.Sprintf("OpenTofu has no list resources (`terraform query`); this CLI is OpenTofu %d.%d", major, minor)
	case major == 1 && minor < 14:
		return fmt.Sprintf("list resources need `terraform query`, which Terraform runs from 1.14 on; this CLI is Terraform %d.%d", major, minor)
	}
	return ""
}

// cliVersion finds the "Terraform vX.Y.Z" or "OpenTofu vX.Y.Z" line of `version` (OpenTofu may
// print warnings before it).
func cliVersion(out string) (name string, major, minor int, ok bool) {
	for _, line := range strings.Split(out, "\n") {
		for _, name := range []string{"Terraform", "OpenTofu"} {
			if _, err := fmt.Sscanf(line, name+" v%d.%d", &major, &minor); err == nil {
				return name, major, minor, true
			}
		}
	}
	return "", 0, 0, false
}

// buildProvider builds the provider of this module into dir.
func (c *CLI) buildProvider(dir string) {
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		c.t.Fatalf("finding the module: %v", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, "terraform-provider-reseller"), ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		c.t.Fatalf("building the provider: %v\n%s", err, out)
	}
}

// Write writes a file of the working directory.
func (c *CLI) Write(name, content string) {
	c.t.Helper()
	if err := os.WriteFile(filepath.Join(c.dir, name), []byte(content), 0o600); err != nil {
		c.t.Fatal(err)
	}
}

// Remove removes a file of the working directory.
func (c *CLI) Remove(name string) {
	c.t.Helper()
	if err := os.Remove(filepath.Join(c.dir, name)); err != nil {
		c.t.Fatal(err)
	}
}

// Read returns a file of the working directory.
func (c *CLI) Read(name string) string {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join(c.dir, name))
	if err != nil {
		c.t.Fatal(err)
	}
	return string(b)
}

// Run runs the CLI command args[0] with -no-color and the rest of args, and returns its output and exit code; a CLI that
// cannot run or exits with a code not in okCodes (default 0) fails the test with its output.
func (c *CLI) Run(args []string, okCodes ...int) (string, int) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, append([]string{args[0], "-no-color"}, args[1:]...)...)
	cmd.Dir, cmd.Env = c.dir, c.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		c.t.Fatalf("running %s %s: %v", c.bin, strings.Join(args, " "), err)
	}
	if len(okCodes) == 0 {
		okCodes = []int{0}
	}
	for _, ok := range okCodes {
		if code == ok {
			return out.String(), code
		}
	}
	c.t.Fatalf("%s %s exited with %d:\n%s", c.bin, strings.Join(args, " "), code, out.String())
	return "", code
}

// PlannedChange is one resource change of a saved plan, as `terraform show -json` reports it.
type PlannedChange struct {
	Address string `json:"address"`
	Change  struct {
		Actions   []string        `json:"actions"`
		Importing json.RawMessage `json:"importing"`
	} `json:"change"`
}

// PlannedChanges returns the resource changes of the saved plan file.
func (c *CLI) PlannedChanges(planFile string) []PlannedChange {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, "show", "-json", planFile)
	cmd.Dir, cmd.Env = c.dir, c.env
	out, err := cmd.Output()
	if err != nil {
		c.t.Fatalf("terraform show -json %s: %v", planFile, err)
	}
	var plan struct {
		ResourceChanges []PlannedChange `json:"resource_changes"`
	}
	if err := json.Unmarshal(out, &plan); err != nil {
		c.t.Fatalf("reading the plan: %v", err)
	}
	return plan.ResourceChanges
}

// ProviderRequirement is the terraform block of a CLI configuration: the provider under test
// by the source its dev_overrides serve.
func ProviderRequirement() string {
	return fmt.Sprintf("terraform {\n  required_providers {\n    reseller = {\n      source = %q\n    }\n  }\n}\n", providerSource)
}

// StateInstance is one resource instance of the working directory's state file.
type StateInstance struct {
	// Address is the resource's address, such as "reseller_instance.test".
	Address string
	// Tainted tells whether Terraform marked the instance tainted (to be replaced).
	Tainted bool
	// Attributes are its attributes as stored.
	Attributes map[string]any
}

// StateInstances reads the managed resource instances of the state file terraform.tfstate (none
// when there is no state yet), and its whole text. Terraform and OpenTofu write the same format.
func (c *CLI) StateInstances() ([]StateInstance, string) {
	c.t.Helper()
	raw, err := os.ReadFile(filepath.Join(c.dir, "terraform.tfstate"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, ""
	}
	if err != nil {
		c.t.Fatal(err)
	}
	var state struct {
		Resources []struct {
			Mode      string `json:"mode"`
			Type      string `json:"type"`
			Name      string `json:"name"`
			Instances []struct {
				Status     string         `json:"status"`
				Attributes map[string]any `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &state); err != nil {
		c.t.Fatalf("reading terraform.tfstate: %v\n%s", err, raw)
	}
	var out []StateInstance
	for _, r := range state.Resources {
		if r.Mode != "managed" {
			continue
		}
		for _, in := range r.Instances {
			out = append(out, StateInstance{Address: r.Type + "." + r.Name, Tainted: in.Status == "tainted", Attributes: in.Attributes})
		}
	}
	return out, string(raw)
}
