package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// exportLine is what dev prints first, twice: the endpoint, then the key.
var exportLine = regexp.MustCompile(`^export (RESELLER_ENDPOINT=http://127\.0\.0\.1:[0-9]+/api/v1|RESELLER_API_KEY=[0-9a-f]{64})$`)

// devProcess is one `resellerd dev` started in the background as a CI job would start it.
type devProcess struct {
	cmd    *exec.Cmd
	tmp    string // its TMPDIR, where the temporary database lives
	stdout []string
	env    map[string]string // read from --env-file
}

// startDev runs `bin dev --listen 127.0.0.1:0 --env-file FILE extra...` with a TMPDIR of its own
// and waits for the env file, as `resellerd dev --env-file f & while [ ! -s f ]; do sleep 1; done`.
func startDev(t *testing.T, bin string, extra ...string) *devProcess {
	t.Helper()
	dir := t.TempDir()
	p := &devProcess{tmp: filepath.Join(dir, "tmp"), env: map[string]string{}}
	if err := os.Mkdir(p.tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	envFile := filepath.Join(dir, "reseller.env")
	p.cmd = exec.Command(bin, append([]string{"dev", "--listen", "127.0.0.1:0", "--env-file", envFile}, extra...)...)
	p.cmd.Env = append(os.Environ(), "TMPDIR="+p.tmp)
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = os.Stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() })
	lines := make(chan string, 2)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if b, err := os.ReadFile(envFile); err == nil {
			p.readEnv(t, string(b))
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("resellerd dev wrote no env file within a minute")
		}
		time.Sleep(50 * time.Millisecond)
	}
	for range 2 {
		select {
		case l := <-lines:
			p.stdout = append(p.stdout, l)
		case <-time.After(eventWait):
			t.Fatalf("stdout has only %q", p.stdout)
		}
	}
	return p
}

func (p *devProcess) readEnv(t *testing.T, content string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(content), "\n") {
		if !exportLine.MatchString(l) {
			t.Fatalf("env file line %q is not an export line", l)
		}
		k, v, _ := strings.Cut(strings.TrimPrefix(l, "export "), "=")
		p.env[k] = v
	}
	if len(p.env) != 2 {
		t.Fatalf("env file %q does not set exactly the endpoint and the key", content)
	}
}

// terminate sends SIGTERM and waits for a clean exit.
func (p *devProcess) terminate(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("resellerd dev ended with %v after SIGTERM", err)
		}
	case <-time.After(eventWait):
		t.Fatalf("resellerd dev did not end within %s of SIGTERM", eventWait)
	}
}

// TestDevForCI starts `resellerd dev` as a CI job would, applies a server with Terraform given only
// the two variables it printed, and stops it with SIGTERM, which must leave no file behind.
func TestDevForCI(t *testing.T) {
	t.Parallel()
	tf := requireTerraform(t)
	bin := buildResellerd(t)
	plugins := buildProvider(t)
	p := startDev(t, bin)

	if p.stdout[0] != "export RESELLER_ENDPOINT="+p.env["RESELLER_ENDPOINT"] || p.stdout[1] != "export RESELLER_API_KEY="+p.env["RESELLER_API_KEY"] {
		t.Fatalf("first stdout lines %q differ from the env file %v", p.stdout, p.env)
	}
	if dbs, _ := filepath.Glob(filepath.Join(p.tmp, "resellerd-dev-*", "reseller.db")); len(dbs) != 1 {
		t.Fatalf("no temporary database under TMPDIR: %v", dbs)
	}

	work := t.TempDir()
	writeFile(t, filepath.Join(work, "cli.tfrc"), "provider_installation {\n  dev_overrides {\n    \"reseller/reseller\" = \""+plugins+"\"\n  }\n  direct {}\n}\n")
	writeFile(t, filepath.Join(work, "main.tf"), devServerConfig)
	cmd := exec.Command(tf, "-chdir="+work, "apply", "-auto-approve", "-input=false", "-no-color")
	cmd.Env = append(cleanTFEnv(), "TF_CLI_CONFIG_FILE="+filepath.Join(work, "cli.tfrc"), "CHECKPOINT_DISABLE=1",
		"RESELLER_ENDPOINT="+p.env["RESELLER_ENDPOINT"], "RESELLER_API_KEY="+p.env["RESELLER_API_KEY"])
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("terraform apply: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`ipv4 = "[0-9.]+"`).Match(out) {
		t.Fatalf("apply printed no server address:\n%s", out)
	}

	p.terminate(t)
	if left, _ := os.ReadDir(p.tmp); len(left) != 0 {
		t.Fatalf("resellerd dev left %d entries in TMPDIR, first %q", len(left), left[0].Name())
	}
}

// devServerConfig is one server, configured only by RESELLER_ENDPOINT and RESELLER_API_KEY.
const devServerConfig = `
terraform {
  required_providers {
    reseller = { source = "reseller/reseller" }
  }
}

data "reseller_plan" "small" {
  country_code = "DE"
}

data "reseller_template" "linux" {
  plan_id = data.reseller_plan.small.id
  os_type = "linux"
}

resource "reseller_instance" "ci" {
  plan_id     = data.reseller_plan.small.id
  template_id = data.reseller_template.linux.id
}

output "ipv4" {
  value = reseller_instance.ci.ipv4
}
`

// requireTerraform returns terraform's path, skipping the test without TF_ACC or without it.
func requireTerraform(t *testing.T) string {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("runs terraform: set TF_ACC=1")
	}
	tf, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("terraform is not on PATH")
	}
	return tf
}

// buildProvider builds the provider into a directory of t for a dev_overrides CLI config.
func buildProvider(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, "terraform-provider-reseller"), ".")
	cmd.Dir = filepath.Join("..", "..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of the provider: %v\n%s", err, out)
	}
	return dir
}

// cleanTFEnv is this process's environment without what would point terraform elsewhere.
func cleanTFEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TF_CLI_CONFIG_FILE=") && !strings.HasPrefix(kv, "TF_REATTACH_PROVIDERS=") &&
			!strings.HasPrefix(kv, "RESELLER_") {
			env = append(env, kv)
		}
	}
	return env
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestDevTakesServeFlags: every flag of serve is read by dev too, and dev's defaults are its own.
func TestDevTakesServeFlags(t *testing.T) {
	o, err := parseDev([]string{"--deploy-delay", "2s", "--credentials-delay", "3s", "--order-window", "1m",
		"--fail-rate", "0.25", "--allow-http-webhooks=false", "--rate-limit-scale", "0", "--alt-listen", "127.0.0.1:9",
		"--pprof", "127.0.0.1:8", "--db", "kept.db", "--listen", "127.0.0.1:7", "--seed", "s.yaml", "--env-file", "e"},
		func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	c := o.Config
	if c.DeployDelay != 2*time.Second || c.CredentialsDelay != 3*time.Second || c.OrderWindow != time.Minute ||
		c.FailRate != 0.25 || c.AllowHTTPWebhooks || c.RateLimitScale != 0 || o.AltListen != "127.0.0.1:9" ||
		o.Pprof != "127.0.0.1:8" || c.DB != "kept.db" || o.Listen != "127.0.0.1:7" || o.Seed != "s.yaml" || o.EnvFile != "e" {
		t.Fatalf("flags not all read: %+v", o)
	}
	if _, err := parseDev([]string{"--db", "postgres://u@127.0.0.1/db"}, func(string) (string, bool) { return "", false }); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "--db") {
		t.Fatalf("dev on PostgreSQL: %v, want a usage error naming --db", err)
	}
	d, err := parseDev(nil, func(k string) (string, bool) {
		return map[string]string{"RESELLER_FAIL_RATE": "0.5", "RESELLER_DB": "serve.db"}[k], k == "RESELLER_FAIL_RATE" || k == "RESELLER_DB"
	})
	if err != nil {
		t.Fatal(err)
	}
	if d.Config.DB != "-" || d.Listen != "127.0.0.1:8080" || !d.Config.AllowHTTPWebhooks || d.Config.RateLimitScale != 1 ||
		d.Config.DeployDelay >= time.Second || d.Config.FailRate != 0.5 {
		t.Fatalf("dev defaults: %+v", d)
	}
}

// TestDevHasEveryServeFlag: every flag serve takes, dev takes too (the flag sets are compared,
// so a serve flag added outside addServeFlags is caught).
func TestDevHasEveryServeFlag(t *testing.T) {
	serveFlags := flag.NewFlagSet("serve", flag.ContinueOnError)
	addServeFlags(serveFlags, &serveOptions{}, serveDefaults)
	dev := devFlags(&devOptions{})
	serveFlags.VisitAll(func(f *flag.Flag) {
		if dev.Lookup(f.Name) == nil {
			t.Errorf("dev lacks serve's --%s", f.Name)
		}
	})
	if _, err := parseDev([]string{"--tls-cert", "c.pem", "--tls-key", "k.pem", "--log-level", "debug",
		"--metrics-listen", "127.0.0.1:0", "--webhook-allow-cidr", "10.20.0.0/16", "--retain-events", "1h"}, noEnv); err != nil {
		t.Fatalf("dev refused serve's flags: %v", err)
	}
}
