// Command instances measures how reseller_instance scales: for each N it applies a configuration
// of N servers (count = N), runs `terraform plan -refresh-only`, and destroys them, recording the
// wall time and the number of API requests of each command. The backend runs in-process (no
// provisioning delays, no rate limits) behind a request-counting handler on a loopback port, and
// the provider is built from this repository and installed through a dev_overrides CLI config, so
// nothing leaves the machine.
//
//	go run ./bench/instances -n 1,10,50
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/server"
	"github.com/reseller/terraform-provider-reseller/bench/internal/tfbench"
)

func main() {
	counts := flag.String("n", "1,10,50", "comma-separated numbers of servers to measure")
	parallelism := flag.Int("parallelism", 10, "terraform -parallelism")
	timeout := flag.Duration("timeout", 20*time.Minute, "bound on the whole run")
	keep := flag.Bool("keep", false, "keep the work directory (configurations, states, logs)")
	flag.Parse()

	ns, err := parseCounts(*counts)
	if err != nil {
		fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, ns, *parallelism, *keep); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}

func parseCounts(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-n: %q is not a positive integer", part)
		}
		out = append(out, n)
	}
	return out, nil
}

// result is one measured terraform command.
type result struct {
	wall     time.Duration
	requests int64
	byRoute  map[string]int64
}

// row is the measurements for one N.
type row struct {
	n                       int
	apply, refresh, destroy result
}

func run(ctx context.Context, ns []int, parallelism int, keep bool) error {
	if _, err := exec.LookPath("terraform"); err != nil {
		return fmt.Errorf("terraform not on PATH: %w", err)
	}
	work, err := os.MkdirTemp("", "reseller-bench-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("work directory:", work)
	} else {
		defer os.RemoveAll(work)
	}

	bin := filepath.Join(work, "bin")
	fmt.Println("building the provider ...")
	if err := tfbench.Build(ctx, bin, "terraform-provider-reseller", "."); err != nil {
		return err
	}
	b, err := startBackend(ctx, filepath.Join(work, "reseller.db"), maxOf(ns))
	if err != nil {
		return err
	}
	defer b.close()

	rc, err := tfbench.WriteCLIConfig(work, bin, "reseller/reseller")
	if err != nil {
		return err
	}
	env := append(os.Environ(),
		"TF_CLI_CONFIG_FILE="+rc,
		"CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_INPUT=0",
	)
	var rows []row
	for _, n := range ns {
		fmt.Printf("N=%d ...\n", n)
		r, err := measure(ctx, b, env, filepath.Join(work, fmt.Sprintf("n%d", n)), n, parallelism)
		if err != nil {
			return fmt.Errorf("measuring %d servers: %w", n, err)
		}
		rows = append(rows, r)
	}
	printTable(rows)
	return nil
}

// measure applies N servers, refreshes them, destroys them.
func measure(ctx context.Context, b *backend, env []string, dir string, n, parallelism int) (row, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return row{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(configuration(b.url, b.key, n)), 0o600); err != nil {
		return row{}, err
	}
	tf := func(args ...string) (result, error) {
		b.counter.reset()
		start := time.Now()
		cmd := exec.CommandContext(ctx, "terraform", append(args, "-no-color", "-parallelism="+strconv.Itoa(parallelism))...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		wall := time.Since(start)
		_ = os.WriteFile(filepath.Join(dir, args[0]+".log"), out, 0o600)
		if err != nil {
			return result{}, fmt.Errorf("terraform %s: %w\n%s", strings.Join(args, " "), err, tfbench.Tail(out, 40))
		}
		total, byRoute := b.counter.snapshot()
		return result{wall: wall, requests: total, byRoute: byRoute}, nil
	}
	r := row{n: n}
	var err error
	if r.apply, err = tf("apply", "-auto-approve"); err != nil {
		return r, err
	}
	if r.refresh, err = tf("plan", "-refresh-only"); err != nil {
		return r, err
	}
	if r.destroy, err = tf("destroy", "-auto-approve"); err != nil {
		return r, err
	}
	return r, nil
}

// configuration is N reseller_instance of the cheapest plan, with a Linux template.
func configuration(url, key string, n int) string {
	return fmt.Sprintf(`terraform {
  required_providers {
    reseller = { source = "reseller/reseller" }
  }
}

provider "reseller" {
  endpoint = %q
  api_key  = %q
}

resource "reseller_instance" "bench" {
  count       = %d
  plan_id     = 101
  template_id = 1
  name        = "bench-${count.index}"
}
`, url, key, n)
}

// backend is the in-process backend with its counter and account.
type backend struct {
	srv     *server.Server
	http    *http.Server
	url     string
	key     string
	counter *counter
}

func startBackend(ctx context.Context, db string, servers int) (*backend, error) {
	srv, err := server.New(ctx, server.Config{
		DB: db, DeployDelay: 0, CredentialsDelay: 0, RateLimitScale: 0,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return nil, err
	}
	acct, err := srv.CreateAccount(ctx, server.NewAccount{
		BalanceMicros: 10_000 * 1_000_000, ServerLimit: servers, OrderLimit: servers, Language: "en",
	})
	if err != nil {
		_ = srv.Close()
		return nil, err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		_ = srv.Close()
		return nil, err
	}
	c := &counter{}
	hs := &http.Server{Handler: c.wrap(srv.Handler()), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return &backend{srv: srv, http: hs, url: "http://" + ln.Addr().String() + "/api/v1", key: acct.APIKey, counter: c}, nil
}

func (b *backend) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.http.Shutdown(ctx)
	_ = b.srv.Close()
}

// counter counts API requests, in total and by method and route (numeric ids folded).
type counter struct {
	total atomic.Int64
	mu    sync.Mutex
	by    map[string]int64
}

func (c *counter) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.total.Add(1)
		key := r.Method + " " + tfbench.Route(r.URL.Path)
		c.mu.Lock()
		c.by[key]++
		c.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func (c *counter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total.Store(0)
	c.by = map[string]int64{}
}

func (c *counter) snapshot() (int64, map[string]int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(c.by))
	for k, v := range c.by {
		out[k] = v
	}
	return c.total.Load(), out
}

func printTable(rows []row) {
	fmt.Println()
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "N\tapply\trequests\treq/server\tplan -refresh-only\trequests\tdestroy\trequests\t")
	for _, r := range rows {
		fmt.Fprintf(w, "%d\t%s\t%d\t%.1f\t%s\t%d\t%s\t%d\t\n", r.n,
			r.apply.wall.Round(10*time.Millisecond), r.apply.requests, float64(r.apply.requests)/float64(r.n),
			r.refresh.wall.Round(10*time.Millisecond), r.refresh.requests,
			r.destroy.wall.Round(10*time.Millisecond), r.destroy.requests)
	}
	_ = w.Flush()
	if len(rows) == 0 {
		return
	}
	last := rows[len(rows)-1]
	fmt.Printf("\nrequests by route for N=%d:\n", last.n)
	for _, phase := range []struct {
		name string
		res  result
	}{{"apply", last.apply}, {"plan -refresh-only", last.refresh}, {"destroy", last.destroy}} {
		fmt.Printf("  %s:\n", phase.name)
		keys := make([]string, 0, len(phase.res.byRoute))
		for k := range phase.res.byRoute {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Printf("    %-45s %d\n", k, phase.res.byRoute[k])
		}
	}
}

func maxOf(ns []int) int {
	m := 0
	for _, n := range ns {
		m = max(m, n)
	}
	return m
}
