package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// moduleDir is the terraform test kit: a module with unit (mock_provider) and integration tests.
var moduleDir = filepath.Join("..", "..", "..", "examples", "modules", "web-fleet")

// testCLI is one CLI the kit must pass on.
type testCLI struct {
	name string
	path string
	tofu bool
}

// kitCLIs are the CLIs of CI: Terraform on PATH (1.11), and Terraform 1.15.9, 1.16.0-rc2 and OpenTofu 1.12.6
// from tf-bin (TF_BIN, else shared/bin/tf-bin beside the main checkout, as .ci/testacc-matrix).
func kitCLIs(t *testing.T) []testCLI {
	t.Helper()
	clis := []testCLI{{name: "terraform on PATH", path: requireTerraform(t)}}
	tfBin := os.Getenv("TF_BIN")
	if tfBin == "" {
		if out, err := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-common-dir").Output(); err == nil {
			tfBin = filepath.Join(strings.TrimSpace(string(out)), "..", "..", "shared", "bin", "tf-bin")
		}
	}
	for _, name := range []string{"terraform-1.15.9", "terraform-1.16.0-rc2", "tofu-1.12.6"} {
		cli := testCLI{name: name, tofu: strings.HasPrefix(name, "tofu")}
		if out, err := exec.Command(tfBin, name).Output(); err == nil {
			cli.path = strings.TrimSpace(string(out))
		}
		clis = append(clis, cli)
	}
	return clis
}

// TestWebFleetModuleTests runs `terraform test` (and `tofu test`) of examples/modules/web-fleet
// on every CLI of CI: the unit tests with mock_provider and the integration tests against one
// `resellerd dev` (with real machines as root), with only RESELLER_ENDPOINT and RESELLER_API_KEY
// set, and POST /_dev/reset before each run, as a suite that starts every test from a known
// world does: each run finds no server and the same key and port.
func TestWebFleetModuleTests(t *testing.T) {
	t.Parallel()
	clis := kitCLIs(t)
	plugins := buildProvider(t)
	devArgs, testArgs := webFleetMachines(t)
	d := startDevInProcess(t, append([]string{"--deploy-delay", "200ms", "--credentials-delay", "100ms"}, devArgs...)...)
	for _, cli := range clis {
		t.Run(cli.name, func(t *testing.T) {
			if cli.path == "" {
				t.Skipf("%s not found (tf-bin, see shared/bin/README.md)", cli.name)
			}
			d.call(t, "POST", "/_dev/reset", "", "").want(t, 200, "")
			var before []struct{}
			d.call(t, "GET", "/api/v1/instances", d.key, "").want(t, 200, "").into(t, &before)
			if len(before) != 0 {
				t.Fatalf("%d servers after the reset, want none", len(before))
			}
			work := filepath.Join(t.TempDir(), "web-fleet")
			if err := os.CopyFS(work, os.DirFS(moduleDir)); err != nil {
				t.Fatal(err)
			}
			rc := filepath.Join(t.TempDir(), "cli.tfrc")
			writeFile(t, rc, "provider_installation {\n  dev_overrides {\n    \"reseller/reseller\" = \""+plugins+"\"\n  }\n  direct {}\n}\n")
			env := append(cleanTFEnv(), "TF_CLI_CONFIG_FILE="+rc, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1",
				"RESELLER_ENDPOINT="+d.base+"/api/v1", "RESELLER_API_KEY="+d.key)
			// No init: with dev_overrides both CLIs ask not to (it would look up the registry).
			out := runCLI(t, cli, work, env, append([]string{"test", "-no-color"}, testArgs...)...)
			unit := "tests/unit.tftest.hcl... pass"
			if cli.tofu {
				unit = "tests/unit.tofutest.hcl... pass"
			}
			for _, want := range []string{unit, "tests/integration.tftest.hcl... pass", "7 passed, 0 failed"} {
				if !strings.Contains(out, want) {
					t.Fatalf("%s test: no %q in:\n%s", cli.name, want, out)
				}
			}
			var left []struct{} // the integration test destroys what it made
			d.call(t, "GET", "/api/v1/instances?active=true", d.key, "").want(t, 200, "").into(t, &left)
			if len(left) != 0 {
				t.Fatalf("%d servers still active after the integration test", len(left))
			}
		})
	}
}

// webFleetMachines are the arguments of dev and of `terraform test` for the kit: as root (CI),
// servers are real machines (--machines sandbox) and the integration test logs into each over
// SSH (ssh_check); elsewhere they stay simulated and the test does not try, unless CI is set,
// where a missing root fails the test.
func webFleetMachines(t *testing.T) (dev, test []string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("the kit's SSH check needs root, and CI runs as root")
		}
		t.Log("not root: the integration test runs without ssh_check (servers are simulated)")
		return nil, nil
	}
	// One dev for every subtest, reset between them: one range.
	return []string{"--machines", "sandbox", "--machines-cidr", "198.19.60.0/24"}, []string{"-var", "ssh_check=true"}
}

func runCLI(t *testing.T, cli testCLI, dir string, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli.path, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", cli.name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestWebFleetTofuTestInSync: unit.tofutest.hcl is unit.tftest.hcl for OpenTofu, which takes no
// `source` in mock_provider: its mock blocks must be tests/mocks/reseller.tfmock.hcl's and its
// runs unit.tftest.hcl's, so the two CLIs test the same thing.
func TestWebFleetTofuTestInSync(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(moduleDir, "tests", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tofu, tf, mocks := read("unit.tofutest.hcl"), read("unit.tftest.hcl"), read(filepath.Join("mocks", "reseller.tfmock.hcl"))
	if runs := fromFirst(tf, "run \""); runs == "" || fromFirst(tofu, "run \"") != runs {
		t.Error("the run blocks of unit.tofutest.hcl differ from unit.tftest.hcl's")
	}
	var inline []string
	for _, l := range strings.Split(strings.TrimSpace(fromFirst(mocks, "mock_")), "\n") {
		if l != "" {
			l = "  " + l
		}
		inline = append(inline, l)
	}
	want := "mock_provider \"reseller\" {\n" + strings.Join(inline, "\n") + "\n}\n"
	if !strings.Contains(tofu, want) {
		t.Errorf("unit.tofutest.hcl does not hold the mocks of reseller.tfmock.hcl inline; want:\n%s", want)
	}
}

// fromFirst is s from the first line that begins with prefix, or "".
func fromFirst(s, prefix string) string {
	if strings.HasPrefix(s, prefix) {
		return s
	}
	if i := strings.Index(s, "\n"+prefix); i >= 0 {
		return s[i+1:]
	}
	return ""
}
