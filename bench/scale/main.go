// Command scale measures the provider against a real `resellerd serve` process at the API's real
// rate limits (--rate-limit-scale 1), through a counting reverse proxy that reports requests per
// route and the number of 429 answers next to the wall time of each terraform command:
//
//   - refresh: for each N, the backend is filled with N servers (serve at --rate-limit-scale 0
//     with no build delays, applied by the provider with rate_limit_scale = 0), restarted at its
//     real limits on the same database, and `terraform plan -refresh-only` is measured;
//
//   - apply: N servers applied and destroyed at the real limits with the serve defaults (3 s
//     build, 1 s credentials).
//
//     go run ./bench/scale -refresh 200,1000 -apply 30
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/reseller/terraform-provider-reseller/bench/internal/tfbench"
)

func main() {
	refresh := flag.String("refresh", "200,1000", "comma-separated server counts for the refresh-only plan (empty: skip)")
	apply := flag.Int("apply", 30, "servers to apply and destroy at the real limits (0: skip)")
	baseline := flag.Int("baseline", 200, "resources of the minimal in-memory provider to refresh (0: skip)")
	timeout := flag.Duration("timeout", 60*time.Minute, "bound on the whole run")
	repeat := flag.Int("repeat", 1, "refresh-only plans to time in each refresh and baseline scenario")
	keep := flag.Bool("keep", false, "keep the work directory")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	err := run(ctx, *refresh, *apply, *baseline, max(*repeat, 1), *keep)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, refresh string, apply, baseline, repeat int, keep bool) error {
	work, err := os.MkdirTemp("", "reseller-scale-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("work directory:", work)
	} else {
		defer os.RemoveAll(work)
	}
	bin := filepath.Join(work, "bin")
	if err := build(ctx, bin); err != nil {
		return err
	}
	rc, err := tfbench.WriteCLIConfig(work, bin, "reseller/reseller", "bench/nullres")
	if err != nil {
		return err
	}
	env := append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc,
		"CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_INPUT=0")
	if baseline > 0 {
		if err := benchBaseline(ctx, env, filepath.Join(work, "baseline"), baseline, repeat); err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
	}
	for _, part := range strings.Split(refresh, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 {
			return fmt.Errorf("-refresh: %q is not a positive integer", part)
		}
		if err := benchRefresh(ctx, bin, env, filepath.Join(work, fmt.Sprintf("refresh%d", n)), n, repeat); err != nil {
			return fmt.Errorf("refresh of %d: %w", n, err)
		}
	}
	if apply > 0 {
		if err := benchApply(ctx, bin, env, filepath.Join(work, fmt.Sprintf("apply%d", apply)), apply); err != nil {
			return fmt.Errorf("apply of %d: %w", apply, err)
		}
	}
	return nil
}

// benchRefresh fills a backend with n servers quickly, restarts it at its real limits and
// measures repeat refresh-only plans.
func benchRefresh(ctx context.Context, bin string, env []string, dir string, n, repeat int) error {
	db, key, err := newAccount(ctx, bin, dir, n)
	if err != nil {
		return err
	}
	p := newProxy()
	fill, err := startServe(ctx, bin, dir, db, p, "--rate-limit-scale", "0", "--deploy-delay", "0s", "--credentials-delay", "0s")
	if err != nil {
		return err
	}
	fmt.Printf("filling %d servers ...\n", n)
	writeConfig(dir, p.url(), key, n, "0")
	if _, err := terraform(ctx, env, dir, p, "apply", "-auto-approve", "-parallelism=32"); err != nil {
		fill.stop()
		return err
	}
	fill.stop()
	real, err := startServe(ctx, bin, dir, db, p, "--rate-limit-scale", "1")
	if err != nil {
		return err
	}
	defer real.stop()
	writeConfig(dir, p.url(), key, n, "1")
	for range repeat {
		r, err := terraform(ctx, env, dir, p, "plan", "-refresh-only")
		if err != nil {
			return err
		}
		r.print(fmt.Sprintf("plan -refresh-only, %d servers, real limits", n))
	}
	return nil
}

// benchBaseline measures refresh-only plans of n resources of the minimal provider
// (bench/baseline), whose Read does nothing: what Terraform and the framework alone cost, for a
// resource of two attributes and for one of reseller_instance's schema.
func benchBaseline(ctx context.Context, env []string, dir string, n, repeat int) error {
	// Logs off, as the reseller provider turns them off itself when Terraform drops them.
	env = append(slices.Clone(env), "TF_LOG_SDK=off", "TF_LOG_SDK_PROTO=off", "TF_LOG_SDK_FRAMEWORK=off", "TF_LOG_PROVIDER_NULLRES=off")
	for _, b := range []struct{ kind, body, what string }{
		{"item", `name = "bench-${count.index}"`, "two attributes"},
		{"instance", "plan_id     = 101\n  template_id = 1\n  name        = \"bench-${count.index}\"", "reseller_instance's schema, a real server's values"},
	} {
		walls, err := refreshBaseline(ctx, env, filepath.Join(dir, b.kind), b.kind, b.body, n, repeat)
		if err != nil {
			return err
		}
		fmt.Printf("\nbaseline: plan -refresh-only of %d in-memory resources (minimal framework provider, %s): %s\n",
			n, b.what, roundAll(walls))
	}
	return nil
}

// refreshBaseline applies n nullres_KIND resources with body in dir and times repeat refresh-only
// plans.
func refreshBaseline(ctx context.Context, env []string, dir, kind, body string, n, repeat int) ([]time.Duration, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cfg := fmt.Sprintf(`terraform {
  required_providers {
    nullres = { source = "bench/nullres" }
  }
}

resource "nullres_%s" "bench" {
  count = %d
  %s
}
`, kind, n, body)
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	p := newProxy()
	if _, err := terraform(ctx, env, dir, p, "apply", "-auto-approve"); err != nil {
		return nil, err
	}
	walls := make([]time.Duration, 0, repeat)
	for range repeat {
		r, err := terraform(ctx, env, dir, p, "plan", "-refresh-only")
		if err != nil {
			return nil, err
		}
		walls = append(walls, r.wall)
	}
	return walls, nil
}

// benchApply applies and destroys n servers at the real limits.
func benchApply(ctx context.Context, bin string, env []string, dir string, n int) error {
	db, key, err := newAccount(ctx, bin, dir, n)
	if err != nil {
		return err
	}
	p := newProxy()
	srv, err := startServe(ctx, bin, dir, db, p, "--rate-limit-scale", "1")
	if err != nil {
		return err
	}
	defer srv.stop()
	writeConfig(dir, p.url(), key, n, "1")
	r, err := terraform(ctx, env, dir, p, "apply", "-auto-approve")
	if err != nil {
		return err
	}
	r.print(fmt.Sprintf("apply, %d servers, real limits (3 s build, 1 s credentials)", n))
	r, err = terraform(ctx, env, dir, p, "destroy", "-auto-approve")
	if err != nil {
		return err
	}
	r.print(fmt.Sprintf("destroy, %d servers, real limits", n))
	return nil
}

// roundAll lists walls rounded to 10 ms.
func roundAll(walls []time.Duration) string {
	out := make([]string, len(walls))
	for i, w := range walls {
		out[i] = w.Round(10 * time.Millisecond).String()
	}
	return strings.Join(out, ", ")
}

// result is one measured terraform command.
type result struct {
	wall     time.Duration
	byRoute  map[string]int
	tooMany  int
	requests int
}

func (r result) print(title string) {
	fmt.Printf("\n%s: %s, %d requests, %d answered 429\n", title, r.wall.Round(10*time.Millisecond), r.requests, r.tooMany)
	keys := make([]string, 0, len(r.byRoute))
	for k := range r.byRoute {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("    %-40s %d\n", k, r.byRoute[k])
	}
}

// terraform runs one command in dir and returns what the proxy saw during it.
func terraform(ctx context.Context, env []string, dir string, p *proxy, args ...string) (result, error) {
	p.reset()
	start := time.Now()
	cmd := exec.CommandContext(ctx, "terraform", append(args, "-no-color")...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	_ = os.WriteFile(filepath.Join(dir, args[0]+".log"), out, 0o600)
	if err != nil {
		return result{}, fmt.Errorf("terraform %s: %w\n%s", strings.Join(args, " "), err, tfbench.Tail(out, 30))
	}
	return p.result(wall), nil
}

// writeConfig writes n reseller_instance paced at scale.
func writeConfig(dir, endpoint, key string, n int, scale string) {
	cfg := fmt.Sprintf(`terraform {
  required_providers {
    reseller = { source = "reseller/reseller" }
  }
}

provider "reseller" {
  endpoint         = %q
  api_key          = %q
  rate_limit_scale = %s
}

resource "reseller_instance" "bench" {
  count       = %d
  plan_id     = 101
  template_id = 1
  name        = "bench-${count.index}"
}
`, endpoint, key, scale, n)
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o600); err != nil {
		panic(err)
	}
}

// newAccount creates dir, a database in it and an account able to hold n servers.
func newAccount(ctx context.Context, bin, dir string, n int) (db, key string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	db = filepath.Join(dir, "reseller.db")
	out, err := exec.CommandContext(ctx, filepath.Join(bin, "resellerd"), "account", "create", "--db", db,
		"--balance", "100000", "--server-limit", strconv.Itoa(n), "--order-limit", strconv.Itoa(n)).Output()
	if err != nil {
		return "", "", fmt.Errorf("account create: %w", err)
	}
	var acct struct {
		APIKey string `json:"api_key"`
	}
	if err := json.Unmarshal(out, &acct); err != nil {
		return "", "", fmt.Errorf("account create answered %q: %w", out, err)
	}
	return db, acct.APIKey, nil
}

// serve is a running `resellerd serve`.
type serve struct{ cmd *exec.Cmd }

// startServe starts resellerd serve on a free loopback port, points the proxy at it and waits
// until it answers GET /health.
func startServe(ctx context.Context, bin, dir, db string, p *proxy, flags ...string) (*serve, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	args := append([]string{"serve", "--listen", addr, "--db", db}, flags...)
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "resellerd"), args...)
	logFile, err := os.OpenFile(filepath.Join(dir, "serve.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &serve{cmd: cmd}
	target, _ := url.Parse("http://" + addr)
	p.point(target)
	deadline := time.Now().Add(30 * time.Second)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/api/v1/health", nil)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			return s, nil
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("resellerd serve did not answer in 30s: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop interrupts serve and waits for it.
func (s *serve) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

func freeAddr() (string, error) {
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// proxy is a counting reverse proxy on a fixed loopback port in front of whichever serve runs.
type proxy struct {
	addr string
	mu   sync.Mutex
	rp   *httputil.ReverseProxy
	by   map[string]int
	n    int
	r429 int
}

func newProxy() *proxy {
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	p := &proxy{addr: ln.Addr().String(), by: map[string]int{}}
	go func() { _ = http.Serve(ln, p) }() //nolint:gosec // a loopback bench proxy
	return p
}

func (p *proxy) url() string { return "http://" + p.addr + "/api/v1" }

func (p *proxy) point(target *url.URL) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rp = httputil.NewSingleHostReverseProxy(target)
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	rp := p.rp
	p.mu.Unlock()
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	rp.ServeHTTP(rec, r)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	p.by[r.Method+" "+tfbench.Route(r.URL.Path)]++
	if rec.status == http.StatusTooManyRequests {
		p.r429++
	}
}

func (p *proxy) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.by, p.n, p.r429 = map[string]int{}, 0, 0
}

func (p *proxy) result(wall time.Duration) result {
	p.mu.Lock()
	defer p.mu.Unlock()
	by := make(map[string]int, len(p.by))
	for k, v := range p.by {
		by[k] = v
	}
	return result{wall: wall, byRoute: by, tooMany: p.r429, requests: p.n}
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

// build builds the provider, resellerd and the baseline provider into dir.
func build(ctx context.Context, dir string) error {
	for _, target := range []struct{ out, pkg string }{
		{"terraform-provider-reseller", "."}, {"resellerd", "./backend/cmd/resellerd"},
		{"terraform-provider-nullres", "./bench/baseline"},
	} {
		if err := tfbench.Build(ctx, dir, target.out, target.pkg); err != nil {
			return err
		}
	}
	return nil
}
