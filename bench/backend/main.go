// Command backend measures a real `resellerd serve` process at several instance counts: idle CPU,
// RSS, the latency of the first, middle and last page of GET /instances?limit=100 (and of the
// middle page of the whole list, only_active=false), POST /instances per second under 200
// concurrent clients, and GET /instances/{id} per second beside a bare net/http handler serving
// the same bytes, in this process and in one of its own (bare.go). See bench/README.md.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL, for the figures on it
	_ "modernc.org/sqlite"

	"github.com/reseller/terraform-provider-reseller/bench/internal/stats"
	apiclient "github.com/reseller/terraform-provider-reseller/internal/client"
)

// clockTicks is the kernel's USER_HZ, the unit of utime and stime in /proc/<pid>/stat.
const clockTicks = 100

const orderBody = `{"server_id": 101, "template_id": 1, "term": "hourly"}`

type options struct {
	resellerd   string
	sizes       []int
	idle        time.Duration
	posts       int
	concurrency int
	readFor     time.Duration
	// readRounds is how many times the read figures are taken in one run (-read-rounds); the
	// table shows their medians.
	readRounds int
	keep       bool
	drain      int
	databases  []string
	accounts   int
	// warmup is how many POSTs, from accounts of their own, go before the measured ones.
	warmup int
	// rateLimitScale is serve's --rate-limit-scale (0: the limits off).
	rateLimitScale float64
	pgParams       string
	keyed          bool   // every POST sends a fresh Idempotency-Key, as the provider does
	pprofDir       string // where CPU profiles of serve's GET and POST phases go; "": none
	bareServe      bool   // this process is the bare handler of another's GET figure (serveBare)
}

// postProfile is how long the CPU profile of the POST phase (-pprof) runs: the phase must last
// longer (at 1,000 orders/s, -posts 8000).
const postProfile = 3 * time.Second

func main() {
	var o options
	var sizes string
	flag.StringVar(&o.resellerd, "resellerd", "", "resellerd binary to measure; empty builds ./backend/cmd/resellerd")
	flag.StringVar(&sizes, "n", "1000,10000,100000", "instance counts, comma-separated")
	flag.DurationVar(&o.idle, "idle", 10*time.Second, "idle window for the CPU figure")
	flag.IntVar(&o.posts, "posts", 2000, "POST /instances sent for the throughput figure")
	flag.IntVar(&o.concurrency, "c", 200, "concurrent clients of the POST figure")
	flag.DurationVar(&o.readFor, "read-for", 3*time.Second, "how long each GET /instances/{id} figure runs")
	flag.IntVar(&o.readRounds, "read-rounds", 1, "how many times the GET /instances/{id} figure and the bare handlers' are taken on one server; the table shows the medians and a line each round's ratio")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory")
	flag.IntVar(&o.accounts, "accounts", 50, "accounts the POST clients are spread over, round-robin (a second figure puts them all on one)")
	flag.IntVar(&o.warmup, "warmup", 0, "POST /instances sent before the POST figure, from accounts of their own, and not counted: a server that has been serving (its pool's connections and their plans, the caches) rather than one started a second ago")
	flag.StringVar(&o.pgParams, "pg-params", "", "parameters added to the URL serve gets on PostgreSQL, e.g. pool_max_conns=8")
	flag.BoolVar(&o.keyed, "idempotency-keys", false, "send a fresh Idempotency-Key with every POST /instances, as the provider does")
	flag.StringVar(&o.pprofDir, "pprof", "", "directory for CPU profiles of serve (--pprof) during the GET phase and the first 3 s of the spread POST phase")
	flag.IntVar(&o.drain, "drain", 50000, "pending orders the provisioning worker drains for the drain figure; 0 skips it")
	var dbList string
	flag.Float64Var(&o.rateLimitScale, "rate-limit-scale", 0, "serve's --rate-limit-scale; above 0 (1 is the spec's limits, as users live) the POSTs need an account per 10*scale of them, and the GET and one-account figures, which one key would have refused, are skipped")
	flag.StringVar(&dbList, "db", "sqlite,postgres", "databases measured, comma-separated: sqlite, postgres (a local server started as the tests do)")
	flag.BoolVar(&o.bareServe, "bare-serve", false, "internal: serve the body read from stdin from a bare net/http handler on a free loopback port and print its address (the bare handler in a process of its own)")
	flag.Parse()
	if o.bareServe {
		if err := serveBare(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "bench: bare handler:", err)
			os.Exit(1)
		}
		return
	}
	if o.accounts < 1 {
		fmt.Fprintln(os.Stderr, "bad -accounts: want at least 1")
		os.Exit(2)
	}
	if o.readRounds < 1 {
		fmt.Fprintln(os.Stderr, "bad -read-rounds: want at least 1")
		os.Exit(2)
	}
	if err := checkRateLimits(o); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	o.databases = strings.Split(dbList, ",")
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 100 {
			fmt.Fprintf(os.Stderr, "bad -n %q: want counts of at least 100\n", s)
			os.Exit(2)
		}
		o.sizes = append(o.sizes, n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	err := run(ctx, o)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// checkRateLimits refuses a -rate-limit-scale that serve would refuse, or one at which the POST
// figure's keys would pass their limit and the run would stop at a 429. The limit is the
// client's budget of POST /instances (the API's table of routes is held to it), scaled as
// serve scales it.
func checkRateLimits(o options) error {
	if o.rateLimitScale < 0 {
		return fmt.Errorf("bad -rate-limit-scale %g: want 0 (off) or more", o.rateLimitScale)
	}
	if o.rateLimitScale == 0 {
		return nil
	}
	_, perMinute := apiclient.PaceBudget(http.MethodPost, "/instances")
	perKey := apiclient.ScaledBudget(perMinute, o.rateLimitScale)
	if need := (o.posts + perKey - 1) / perKey; o.accounts < need {
		return fmt.Errorf("bad -accounts %d: %d posts at -rate-limit-scale %g (%d a minute a key) need at least %d accounts",
			o.accounts, o.posts, o.rateLimitScale, perKey, need)
	}
	return nil
}

func run(ctx context.Context, o options) error {
	dir, err := os.MkdirTemp("", "bench-backend-")
	if err != nil {
		return fmt.Errorf("temp dir: %w", err)
	}
	if !o.keep {
		defer os.RemoveAll(dir)
	}
	if o.resellerd == "" {
		o.resellerd = filepath.Join(dir, "resellerd")
		build := exec.CommandContext(ctx, "go", "build", "-o", o.resellerd, "./backend/cmd/resellerd")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build resellerd: %w", err)
		}
	}
	for _, dbName := range o.databases {
		dbs, stop, err := databases(ctx, dbName, dir, len(o.sizes)+1, o.pgParams)
		if err != nil {
			return err
		}
		err = measureAll(ctx, o, dbName, dbs)
		stop()
		if err != nil {
			return fmt.Errorf("%s: %w", dbName, err)
		}
	}
	return nil
}

// measureAll prints the table of one database, then its drain figure; dbs are fresh databases,
// one per instance count and one for the drain.
func measureAll(ctx context.Context, o options, dbName string, dbs []database) error {
	keyed := ""
	if o.keyed {
		keyed = ", each with a fresh Idempotency-Key"
	}
	fmt.Printf("%s (POST from %d clients over %d accounts, then over 1%s)\n%-8s %9s %8s %11s %11s %11s %11s %10s %6s %8s %10s %6s %8s %11s %11s %6s\n",
		dbName, o.concurrency, o.accounts, keyed,
		"N", "idle CPU", "RSS MB", "page 1 ms", "mid pg ms", "mid all ms", "last pg ms", "POST/s", "5xx", "p99 ms",
		"1 acct/s", "5xx", "p99 ms", "GET id/s", "bare/s", "ratio")
	for i, n := range o.sizes {
		r, err := measure(ctx, o, dbs[i], n)
		if err != nil {
			return fmt.Errorf("n=%d: %w", n, err)
		}
		fmt.Printf("%-8d %8.1f%% %8.0f %11.2f %11.2f %11.2f %11.2f %10.0f %6d %8.0f %10.0f %6d %8.0f %11.0f %11.0f %5.0f%%\n",
			n, r.idleCPU, r.rssMB, r.firstPage, r.midPage, r.midAllPage, r.lastPage,
			r.spread.perSec, r.spread.fivexx, r.spread.p99ms, r.single.perSec, r.single.fivexx, r.single.p99ms,
			r.getPerSec, r.barePerSec, r.getRatio())
		if r.ownBarePerSec > 0 {
			fmt.Printf("         GET id/s is %.0f%% of a bare handler in a process of its own (%.0f/s, %.0f%% of the one in this process)\n",
				stats.Median(r.ownRatios), r.ownBarePerSec, 100*r.ownBarePerSec/r.barePerSec)
		}
		if len(r.ratios) > 1 {
			fmt.Printf("         ratio of each of %d read rounds: %s (median %.1f%%, lowest %.0f%%); against the bare handler in a process of its own: %s\n",
				len(r.ratios), percents(r.ratios), stats.Median(r.ratios), slices.Min(r.ratios), percents(r.ownRatios))
		}
		if r.commitsPerPost > 0 {
			fmt.Printf("         %.2f writing transactions per POST in the spread phase (txid_current: the orders, the deploys they cause, the workers' writes)\n", r.commitsPerPost)
		}
	}
	if o.drain > 0 {
		d := dbs[len(o.sizes)]
		first, err := createAccount(ctx, o.resellerd, d.serveDB)
		if err != nil {
			return err
		}
		if _, err := moreAccounts(ctx, o.resellerd, d.serveDB, first, o.accounts); err != nil {
			return err
		}
		took, err := drainTime(ctx, o, d, o.drain, o.accounts)
		if err != nil {
			return fmt.Errorf("drain: %w", err)
		}
		fmt.Printf("drain %d pending orders of %d accounts: %.1f s (%.0f orders/s)\n", o.drain, o.accounts, took.Seconds(), float64(o.drain)/took.Seconds())
	}
	return nil
}

// getRatio is the GET rate as a percentage of the bare handler's, the median of the rounds'
// (each round's two rates are taken side by side); 0 when reads were skipped.
func (r result) getRatio() float64 { return stats.Median(r.ratios) }

type result struct {
	idleCPU, rssMB, firstPage, midPage, midAllPage, lastPage float64
	getPerSec, barePerSec                                    float64
	ownBarePerSec                                            float64 // the bare handler in a process of its own
	// ratios and ownRatios are each read round's GET rate as a percentage of the bare handler's
	// in this process and in one of its own (-read-rounds); the rates above are medians.
	ratios, ownRatios []float64
	commitsPerPost    float64    // PostgreSQL only
	spread, single    postFigure // POSTs over -accounts accounts, and over one
}

// postFigure is one POST /instances phase: orders accepted per second, the p99 latency and the
// count of 5xx answers.
type postFigure struct {
	perSec, p99ms float64
	fivexx        int64
}

// measure fills a fresh database with n idle instances, starts resellerd serve on it and takes
// every figure.
func measure(ctx context.Context, o options, d database, n int) (result, error) {
	db := d.serveDB
	key, err := createAccount(ctx, o.resellerd, db)
	if err != nil {
		return result{}, err
	}
	if err := fill(ctx, d, n); err != nil {
		return result{}, fmt.Errorf("fill: %w", err)
	}
	keys, err := moreAccounts(ctx, o.resellerd, db, key, o.accounts)
	if err != nil {
		return result{}, err
	}
	addr, err := freeAddr()
	if err != nil {
		return result{}, err
	}
	args := []string{"serve", "--db", db, "--listen", addr,
		"--rate-limit-scale", strconv.FormatFloat(o.rateLimitScale, 'g', -1, 64), "--deploy-delay", "0", "--credentials-delay", "0"}
	var prof profiler
	if o.pprofDir != "" {
		if prof.addr, err = freeAddr(); err != nil {
			return result{}, err
		}
		prof.prefix = filepath.Join(o.pprofDir, fmt.Sprintf("%s-%d", d.driver, n))
		args = append(args, "--pprof", prof.addr)
	}
	serve := exec.CommandContext(ctx, o.resellerd, args...)
	serve.Stderr = io.Discard
	if err := serve.Start(); err != nil {
		return result{}, fmt.Errorf("start resellerd: %w", err)
	}
	defer func() { _ = serve.Process.Kill(); _ = serve.Wait() }()
	base := "http://" + addr + "/api/v1"
	c := &client{http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: time.Minute}, base: base, key: key,
		rotateKeys: o.rateLimitScale > 0}
	if err := c.waitUp(ctx); err != nil {
		return result{}, err
	}
	total, err := c.total(ctx)
	if err != nil {
		return result{}, fmt.Errorf("counting the instances through the API: %w", err)
	}
	if total != n {
		return result{}, fmt.Errorf("the API lists %d instances, want %d", total, n)
	}
	if err := warmUp(ctx, c, o, db); err != nil {
		return result{}, err
	}
	var r result
	time.Sleep(2 * time.Second) // the first ticks weigh the filled wallet, and deploy the warm-up's orders
	if r.idleCPU, err = idleCPU(serve.Process.Pid, o.idle); err != nil {
		return result{}, err
	}
	if r.rssMB, err = rssMB(serve.Process.Pid); err != nil {
		return result{}, err
	}
	if o.rateLimitScale == 0 { // one key's reads past its limit would be 429s
		if err := measureReads(ctx, c, o, prof, n, &r); err != nil {
			return result{}, err
		}
	}
	commits, err := d.commits(ctx)
	if err != nil {
		return result{}, err
	}
	profiled := prof.start(ctx, "post", postProfile)
	if r.spread, err = c.postRate(ctx, o.posts, o.concurrency, keys, o.keyed); err != nil {
		return result{}, err
	}
	if err := profiled(); err != nil {
		return result{}, err
	}
	if after, err := d.commits(ctx); err != nil {
		return result{}, err
	} else if d.postgres() {
		r.commitsPerPost = float64(after-commits) / float64(o.posts)
	}
	if o.rateLimitScale == 0 { // one key's orders past its limit would be 429s
		r.single, err = c.postRate(ctx, o.posts, o.concurrency, keys[:1], o.keyed)
	}
	return r, err
}

// warmUp sends o.warmup orders from accounts that the POST figure does not use, as many as
// the rate limits need, and prints their rate: the figure then measures a server whose
// connections, plans and caches have served, as a shared server's have, and not its first
// second. The measured accounts are still new to it, each first order with what that costs.
func warmUp(ctx context.Context, c *client, o options, db string) error {
	if o.warmup == 0 {
		return nil
	}
	accounts := 1
	if o.rateLimitScale > 0 {
		_, perMinute := apiclient.PaceBudget(http.MethodPost, "/instances")
		perKey := apiclient.ScaledBudget(perMinute, o.rateLimitScale)
		accounts = (o.warmup + perKey - 1) / perKey
	}
	first, err := createAccount(ctx, o.resellerd, db)
	if err != nil {
		return err
	}
	keys, err := moreAccounts(ctx, o.resellerd, db, first, accounts)
	if err != nil {
		return err
	}
	f, err := c.postRate(ctx, o.warmup, o.concurrency, keys, o.keyed)
	if err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	fmt.Printf("         warm-up: %d POST /instances over %d accounts of their own, %.0f/s (p99 %.0f ms), not counted\n", o.warmup, accounts, f.perSec, f.p99ms)
	return nil
}

// measureReads takes the read figures of r: the pages' times and the GET /instances/{id} rate
// against bare net/http serving the same bytes, profiled when prof is on.
func measureReads(ctx context.Context, c *client, o options, prof profiler, n int, r *result) error {
	var err error
	if r.firstPage, err = c.pageMillis(ctx, 0, ""); err != nil {
		return err
	}
	if r.midPage, err = c.pageMillis(ctx, n/2, ""); err != nil {
		return err
	}
	if r.midAllPage, err = c.pageMillis(ctx, n/2, "&only_active=false"); err != nil {
		return err
	}
	if r.lastPage, err = c.pageMillis(ctx, n-100, ""); err != nil {
		return err
	}
	id, body, err := c.oneInstance(ctx)
	if err != nil {
		return err
	}
	profiled := prof.start(ctx, "get", time.Duration(o.readRounds)*readTurns*o.readFor) // GET's turns and the bare handlers'
	var gets, bares, owns []float64
	for range o.readRounds {
		get, bare, own, err := readRates(ctx, c, o.readFor, fmt.Sprintf("%s/instances/%d", c.base, id), body)
		if err != nil {
			return err
		}
		gets, bares, owns = append(gets, get), append(bares, bare), append(owns, own)
		r.ratios, r.ownRatios = append(r.ratios, 100*get/bare), append(r.ownRatios, 100*get/own)
	}
	r.getPerSec, r.barePerSec, r.ownBarePerSec = stats.Median(gets), stats.Median(bares), stats.Median(owns)
	return profiled()
}

// percents writes xs as whole percentages, in the order taken.
func percents(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.0f%%", x)
	}
	return strings.Join(parts, " ")
}

// moreAccounts creates accounts up to k in all beside the first one (whose key is first) and
// returns every key, first first. A shared resellerd serves many accounts, and each account's
// api_order_limit (5 to 10 in the catalogue) caps its orders in flight, so the POST figure
// spreads its clients over them; see bench/README.md.
func moreAccounts(ctx context.Context, resellerd, db, first string, k int) ([]string, error) {
	keys := []string{first}
	for len(keys) < k {
		key, err := createAccount(ctx, resellerd, db)
		if err != nil {
			return nil, err
		}
		keys = append(keys, key)
	}
	return keys, nil
}

// createAccount makes the account through the CLI (which also migrates the new database).
func createAccount(ctx context.Context, resellerd, db string) (string, error) {
	out, err := exec.CommandContext(ctx, resellerd, "account", "create", "--db", db, "--balance", "100000000",
		"--server-limit", "1000000", "--order-limit", "1000000").Output()
	if err != nil {
		return "", fmt.Errorf("account create: %w", err)
	}
	var created struct {
		APIKey string `json:"api_key"`
	}
	if err := json.Unmarshal(out, &created); err != nil {
		return "", fmt.Errorf("account create output %q: %w", out, err)
	}
	return created.APIKey, nil
}

func freeAddr() (string, error) {
	l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// idleCPU is the share of one core the process used over window, from /proc/<pid>/stat.
func idleCPU(pid int, window time.Duration) (float64, error) {
	before, err := cpuTicks(pid)
	if err != nil {
		return 0, err
	}
	time.Sleep(window)
	after, err := cpuTicks(pid)
	if err != nil {
		return 0, err
	}
	return 100 * float64(after-before) / clockTicks / window.Seconds(), nil
}

func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which is in parentheses and may hold spaces.
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	return utime + stime, errors.Join(err1, err2)
}

func rssMB(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024, err
		}
	}
	return 0, errors.New("no VmRSS")
}

type client struct {
	http *http.Client
	base string
	key  string
	// rotateKeys sends each POST of postRate as the next key in turn instead of each client's
	// own: with rate limits on, every key then stays within its limit however fast each client is.
	rotateKeys bool
}

func (c *client) do(ctx context.Context, method, url, body string) (int, []byte, error) {
	return c.doAs(ctx, c.key, method, url, body, "")
}

// doAs is do with the API key key.
// doAs sends a request as the account of key, with the Idempotency-Key idem unless it is "".
func (c *client) doAs(ctx context.Context, key, method, url, body, idem string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("X-API-Token", key)
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func (c *client) waitUp(ctx context.Context) error {
	for range 200 {
		if status, _, err := c.do(ctx, http.MethodGet, c.base+"/health", ""); err == nil && status == http.StatusOK {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("resellerd did not answer /health")
}

// total is meta.page.total of the instance list: the API's view of the fill.
func (c *client) total(ctx context.Context) (int, error) {
	_, b, err := c.do(ctx, http.MethodGet, c.base+"/instances?limit=1", "")
	if err != nil {
		return 0, err
	}
	var page struct {
		Meta struct {
			Page struct {
				Total int `json:"total"`
			} `json:"page"`
		} `json:"meta"`
	}
	err = json.Unmarshal(b, &page)
	return page.Meta.Page.Total, err
}

// pageMillis is the median latency of GET /instances?limit=100 at offset (query adds to the
// query string), over 21 requests.
func (c *client) pageMillis(ctx context.Context, offset int, query string) (float64, error) {
	url := fmt.Sprintf("%s/instances?limit=100&offset=%d%s", c.base, offset, query)
	var ms []float64
	for range 21 {
		start := time.Now()
		status, _, err := c.do(ctx, http.MethodGet, url, "")
		if err != nil || status != http.StatusOK {
			return 0, fmt.Errorf("page at %d: %d, %w", offset, status, err)
		}
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
	}
	slices.Sort(ms)
	return ms[len(ms)/2], nil
}

// oneInstance returns an instance id and the exact body GET /instances/{id} answers.
func (c *client) oneInstance(ctx context.Context) (int64, []byte, error) {
	_, b, err := c.do(ctx, http.MethodGet, c.base+"/instances?limit=1", "")
	if err != nil {
		return 0, nil, err
	}
	var page struct {
		Data []struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &page); err != nil || len(page.Data) == 0 {
		return 0, nil, fmt.Errorf("first instance: %s: %w", b, err)
	}
	id := page.Data[0].ID
	_, body, err := c.do(ctx, http.MethodGet, fmt.Sprintf("%s/instances/%d", c.base, id), "")
	return id, body, err
}

// rate is how many GETs of url per second 32 concurrent clients complete over d.
func (c *client) rate(ctx context.Context, d time.Duration, url string) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var done atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				status, _, err := c.do(ctx, http.MethodGet, url, "")
				if ctx.Err() != nil {
					return
				}
				if err != nil {
					failed.Store(fmt.Errorf("GET %s: %w", url, err))
					return
				}
				if status != http.StatusOK {
					failed.Store(fmt.Errorf("GET %s: status %d", url, status))
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		return 0, err
	}
	return float64(done.Load()) / d.Seconds(), nil
}

// postRate sends posts POST /instances from concurrency clients, client i as the account of
// keys[i % len(keys)], each with a fresh Idempotency-Key if keyed, and reports orders accepted
// per second, the p99 latency and the number of 5xx answers.
func (c *client) postRate(ctx context.Context, posts, concurrency int, keys []string, keyed bool) (postFigure, error) {
	var next, errs5 atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	var mu sync.Mutex
	latencies := make([]time.Duration, 0, posts)
	start := time.Now()
	for i := range concurrency {
		key := keys[i%len(keys)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := next.Add(1); n <= int64(posts); n = next.Add(1) {
				if c.rotateKeys {
					key = keys[int(n)%len(keys)]
				}
				idem := ""
				if keyed {
					idem = fmt.Sprintf("bench-%d-%d", start.UnixNano(), n)
				}
				sent := time.Now()
				status, b, err := c.doAs(ctx, key, http.MethodPost, c.base+"/instances", orderBody, idem)
				took := time.Since(sent)
				mu.Lock()
				latencies = append(latencies, took)
				mu.Unlock()
				switch {
				case err != nil:
					failed.Store(err)
					return
				case status >= 500:
					errs5.Add(1)
				case status != http.StatusCreated:
					failed.Store(fmt.Errorf("POST /instances: %d %s", status, b))
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		return postFigure{}, err
	}
	elapsed := time.Since(start)
	slices.Sort(latencies)
	p99 := latencies[len(latencies)*99/100]
	return postFigure{perSec: float64(posts) / elapsed.Seconds(), p99ms: float64(p99.Microseconds()) / 1000, fivexx: errs5.Load()}, nil
}

// profiler takes CPU profiles of serve through its --pprof listener (addr; "": no profiles),
// into files named prefix-PHASE.prof.
type profiler struct {
	addr, prefix string
}

// start begins a CPU profile of d for phase and returns the wait for it to be written.
func (p profiler) start(ctx context.Context, phase string, d time.Duration) func() error {
	if p.addr == "" {
		return func() error { return nil }
	}
	done := make(chan error, 1)
	go func() {
		url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", p.addr, int(d.Seconds()))
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			done <- err
			return
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- fmt.Errorf("profile %s: %w", phase, err)
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil {
			err = os.WriteFile(p.prefix+"-"+phase+".prof", b, 0o600)
		}
		done <- err
	}()
	return func() error { return <-done }
}
