package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/reseller/terraform-provider-reseller/backend/internal/testbuf"
)

// chromiumPath is Debian's Chromium, which .ci/run installs.
const chromiumPath = "/usr/bin/chromium"

// updateScreenshotEnv, set to 1, has TestDevConsoleInBrowser write docs/console.png (see
// consoleScreenshot).
const updateScreenshotEnv = "RESELLER_UPDATE_CONSOLE_PNG"

// pageWait bounds every wait for the page to show something. The page reads the service every
// second; how soon it shows a change is a speed, which a test on a loaded machine must not time
// (it is logged), so the bound only keeps a broken page from hanging the test.
const pageWait = 2 * time.Minute

// laptop and phone are the viewports the page is looked at in.
var (
	laptop = [2]int64{1280, 800}
	phone  = [2]int64{390, 844}
)

// TestDevConsoleServedAndAnnounced: dev's log names the console, whose page and assets are
// served with a policy that keeps the page to its own listener; other names under it are 404.
func TestDevConsoleServedAndAnnounced(t *testing.T) {
	var logs testbuf.Buffer
	d := startDevLogged(t, slog.New(slog.NewTextHandler(&logs, nil)))
	want := `msg="dev console" url=` + d.base + "/_dev/ui/"
	if !strings.Contains(logs.String(), want) {
		t.Fatalf("dev's log %q does not name the console as %q", logs.String(), want)
	}
	for path, wantType := range map[string]string{"/_dev/ui/": "text/html", "/_dev/ui/console.js": "text/javascript",
		"/_dev/ui/console.css": "text/css"} {
		res, body := fetch(t, d.base+path)
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), wantType) ||
			!strings.Contains(res.Header.Get("Content-Security-Policy"), "connect-src 'self'") || len(body) == 0 {
			t.Fatalf("GET %s: %d %q csp %q", path, res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Content-Security-Policy"))
		}
		body = bytes.ReplaceAll(body, []byte(`"http://www.w3.org/2000/svg"`), nil) // a name, not a place
		if bytes.Contains(body, []byte("http://")) || bytes.Contains(body, []byte("https://")) {
			t.Fatalf("GET %s: the page names another site; it must load nothing from the network", path)
		}
	}
	d.call(t, "GET", "/_dev/ui/nothing.js", "", "").want(t, 404, "not_found")
	d.call(t, "GET", "/_dev/ui/console/index.html", "", "").want(t, 404, "not_found")
}

// TestDevConsoleInBrowser drives the console in headless Chromium: a server ordered through the
// API shows within 2 s with its name and status; +1 hour and +1 day lower the balance shown by
// the hourly price; a fault rule added on the page fails the next matching API request; a
// checkpoint saved and restored on the page brings a deleted server back. The page must load
// nothing but its own listener, throw nothing, and fit a phone's width.
func TestDevConsoleInBrowser(t *testing.T) {
	// Not t.Parallel: it runs before the package's parallel tests, so the browser, the dearest
	// process of the suite, does not share the cores with machines booting.
	requireChromium(t)
	d := startDevInProcess(t, "--deploy-delay", "0s", "--credentials-delay", "0s")
	b := newBrowser(t, d.base)
	b.do(t, chromedp.EmulateViewport(laptop[0], laptop[1]), chromedp.Navigate(d.base+"/_dev/ui/"))
	b.waitTrue(t, pageWait, `document.querySelector('#accounts tbody tr[data-id]') !== null`, "the accounts to show")

	var hourly float64
	var serverID int64
	t.Run("server ordered through the API shows", func(t *testing.T) {
		var name string
		serverID, name = orderNamed(t, d, "console-web-1")
		took := b.waitTrue(t, pageWait, fmt.Sprintf(`(() => {
			const row = document.querySelector('#servers tr[data-id="%d"]');
			return !!row && row.querySelector('.name').textContent === %q && row.querySelector('td.status').textContent === 'online';
		})()`, serverID, name), "the server to show online")
		t.Logf("the page showed server %d %s online %v after it was ordered", serverID, name, took)
		hourly = b.number(t, fmt.Sprintf(`#servers tr[data-id="%d"] td.hourly`, serverID))
		if !near(hourly, catalogHourly(t, d)) {
			t.Fatalf("the page shows %v an hour, the catalogue %v", hourly, catalogHourly(t, d))
		}
	})
	if serverID == 0 {
		t.FailNow()
	}

	t.Run("clock buttons lower the balance shown", func(t *testing.T) {
		const balance = `#accounts tbody tr[data-id] td.balance`
		b.waitTrue(t, pageWait, fmt.Sprintf(`document.querySelector(%q).textContent === %q`, balance, usdText(d.balance(t))),
			"the balance shown to match the API's")
		for _, step := range []struct {
			button string
			hours  float64
		}{{"#advance-hour", 1}, {"#advance-day", 24}} {
			before := b.number(t, balance)
			b.do(t, chromedp.Click(chromedp.CSS(step.button)))
			// The page may show a balance read while the clock's move was still billing (a
			// day's renewals under load); it must come to the whole step's charge.
			after := before
			for deadline := time.Now().Add(pageWait); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				if after = b.number(t, balance); near(before-after, step.hours*hourly) {
					break
				}
			}
			if !near(before-after, step.hours*hourly) {
				t.Fatalf("%s: the balance shown went from %v to %v; want %v hours of %v less", step.button, before, after, step.hours, hourly)
			}
		}
		if !near(b.number(t, balance), d.balance(t)) {
			t.Fatalf("the page shows %v, the API %v", b.number(t, balance), d.balance(t))
		}
		// The chart draws the account's balance history: the top-up, the order and 25 renewals.
		if n := b.int(t, `(document.querySelector('#chart path.line')?.getAttribute('d').match(/V/g) || []).length`); n < 25 {
			t.Fatalf("the chart's line has %d steps; want one per ledger entry, 25 renewals at least", n)
		}
	})

	t.Run("fault rule added on the page", func(t *testing.T) {
		needRoute(t, d, "faults")
		b.do(t,
			chromedp.SetValue(chromedp.CSS("#fault-route"), "GET /account/balance"),
			chromedp.SetValue(chromedp.CSS("#fault-status"), "503"),
			chromedp.SetValue(chromedp.CSS("#fault-count"), "1"),
			chromedp.Click(chromedp.CSS("#fault-add")))
		b.waitTrue(t, pageWait, `document.querySelector('#faults tr[data-route="GET /account/balance"]') !== null`,
			"the rule to be listed")
		d.call(t, "GET", "/api/v1/instances", d.key, "").want(t, 200, "") // another route: untouched
		d.call(t, "GET", "/api/v1/account/balance", d.key, "").want(t, 503, "injected_fault")
		d.call(t, "GET", "/api/v1/account/balance", d.key, "").want(t, 200, "") // a count of 1 is spent
		b.do(t, chromedp.Click(chromedp.CSS("#faults-clear")))
		b.waitTrue(t, pageWait, `document.querySelector('#faults tr[data-route]') === null`, "the rules to be cleared")
	})

	t.Run("checkpoint saved and restored on the page", func(t *testing.T) {
		needRoute(t, d, "checkpoints")
		b.do(t,
			chromedp.SetValue(chromedp.CSS("#checkpoint-name"), "before-delete"),
			chromedp.Click(chromedp.CSS("#checkpoint-save")))
		b.waitTrue(t, pageWait, `document.querySelector('#checkpoints tr[data-id="before-delete"]') !== null`,
			"the checkpoint to be listed")
		d.call(t, "DELETE", "/api/v1/instances/"+itoa(serverID), d.key, "").want(t, 200, "")
		row := fmt.Sprintf(`document.querySelector('#servers tr[data-id="%d"]')`, serverID)
		b.waitTrue(t, pageWait, row+` === null`, "the deleted server to leave the page")
		b.do(t, chromedp.Click(chromedp.CSS(`button[data-restore="before-delete"]`)))
		b.waitTrue(t, pageWait, row+` !== null`, "the server to come back")
		var in struct {
			Status string `json:"status"`
		}
		d.call(t, "GET", "/api/v1/instances/"+itoa(serverID), d.key, "").want(t, 200, "").into(t, &in)
		if in.Status == "canceled" || in.Status == "expired" {
			t.Fatalf("after the restore, server %d is %s", serverID, in.Status)
		}
	})

	t.Run("fits a phone", func(t *testing.T) {
		b.do(t, chromedp.EmulateViewport(phone[0], phone[1]))
		b.waitTrue(t, pageWait, `document.documentElement.scrollWidth <= document.documentElement.clientWidth`,
			"the page to fit a phone's width (wide tables scroll inside their cards)")
		b.do(t, chromedp.EmulateViewport(laptop[0], laptop[1]))
	})

	consoleScreenshot(t, b)
	b.check(t)
}

// browser is a headless Chromium tab on the console, with what it saw.
type browser struct {
	ctx    context.Context
	origin string

	mu       sync.Mutex
	foreign  []string                           // requests to anything but origin
	failures []string                           // exceptions and security (CSP) errors
	open     map[network.RequestID]*openRequest // requests sent and not yet finished or failed
}

// openRequest is a request of the page the browser has not finished or failed yet: when a wait
// times out, those tell which read or action the page is stuck on, and how far it got.
type openRequest struct {
	method, url string
	sent        time.Time
	status      int64 // 0 until the answer's headers came
}

// requireChromium skips the test without Chromium, except in CI (CI set), where .ci/run
// installs it and its absence is a failure.
func requireChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing in CI: .ci/run installs it with apt-get install chromium", chromiumPath)
		}
		t.Skipf("the console's browser test needs Chromium at %s (apt-get install -y chromium)", chromiumPath)
	}
}

// browserStarts bounds how often newBrowser starts Chromium: once in CI it crashed before it
// listened (its crash handler's lines were all it printed), a fault of the browser's start
// and not of the page under test; a second start is a fresh process with a fresh profile.
const browserStarts = 3

// newBrowser starts headless Chromium for the test, with a fresh profile, recording the requests
// the page makes and the errors it meets. A browser that exits before it listens is started
// again (browserStarts), its output logged; any other failure ends the test.
func newBrowser(t *testing.T, origin string) *browser {
	t.Helper()
	requireChromium(t)
	for attempt := 1; ; attempt++ {
		b, err := startBrowser(t, origin)
		if err == nil {
			return b
		}
		if attempt == browserStarts || !strings.Contains(err.Error(), "chrome failed to start") {
			t.Fatalf("start Chromium (attempt %d of %d): %v", attempt, browserStarts, err)
		}
		t.Logf("Chromium exited before it listened (attempt %d of %d), starting it again: %v", attempt, browserStarts, err)
	}
}

// startBrowser is one start of Chromium; a failed start leaves no process or context behind.
func startBrowser(t *testing.T, origin string) (*browser, error) {
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), // a container's /dev/shm is small
		chromedp.UserDataDir(t.TempDir()),
	)
	ctx, cancel := chromedp.NewContext(alloc)
	b := &browser{ctx: ctx, origin: origin, open: map[network.RequestID]*openRequest{}}
	if err := chromedp.Listen(ctx, b.see); err != nil {
		cancel()
		cancelAlloc()
		return nil, err
	}
	t.Cleanup(func() { cancel(); cancelAlloc() })
	return b, nil
}

// see records a request to another origin, an uncaught exception and a security error (a
// refused by the page's Content-Security-Policy).
func (b *browser) see(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		if u := ev.Request.URL; u != b.origin && !strings.HasPrefix(u, b.origin+"/") && !strings.HasPrefix(u, "data:") {
			b.foreign = append(b.foreign, u)
		}
		b.open[ev.RequestID] = &openRequest{method: ev.Request.Method, url: strings.TrimPrefix(ev.Request.URL, b.origin), sent: time.Now()}
	case *network.EventResponseReceived:
		if r := b.open[ev.RequestID]; r != nil {
			r.status = ev.Response.Status
		}
	case *network.EventLoadingFinished:
		delete(b.open, ev.RequestID)
	case *network.EventLoadingFailed:
		delete(b.open, ev.RequestID)
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		b.failures = append(b.failures, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, msg))
	case *log.EventEntryAdded:
		if ev.Entry.Source == log.EntrySourceSecurity || ev.Entry.Source == log.EntrySourceJavascript {
			b.failures = append(b.failures, string(ev.Entry.Source)+": "+ev.Entry.Text)
		}
	}
}

// check fails the test on a foreign request or an error the page met.
func (b *browser) check(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.foreign) > 0 {
		t.Errorf("the page reached beyond its listener: %v", b.foreign)
	}
	if len(b.failures) > 0 {
		t.Errorf("the page met errors: %v", b.failures)
	}
}

// do runs actions in the tab, each bounded (by pageWait).
func (b *browser) do(t *testing.T, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, pageWait)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, pageWait)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("browser: evaluate %s: %v", expr, err)
	}
	return v
}

// waitTrue polls expr until it is true and returns how long that took; it fails the test
// after within.
func (b *browser) waitTrue(t *testing.T, within time.Duration, expr, what string) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		if eval[bool](t, b, expr) {
			return time.Since(start)
		}
		if time.Since(start) > within {
			b.failWait(t, within, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// failWait fails a wait that timed out with what tells a stalled read from a stalled action: what
// the page shows of its reads (live text), of its last action (banner) and of actions still
// waiting for their answer (disabled buttons); the requests still open, whether the page's timers
// fire, and the service's handlers still running. The page is read before b.mu is taken: the
// browser's events (see) wait for it.
func (b *browser) failWait(t *testing.T, within time.Duration, what string) {
	t.Helper()
	live := eval[string](t, b, `document.querySelector('#live-text')?.textContent ?? ''`)
	banner := eval[string](t, b, `(b => b && !b.hidden ? b.textContent : '')(document.querySelector('#banner'))`)
	waiting := eval[string](t, b, `[...document.querySelectorAll('button:disabled')].map(b => b.id || b.textContent).join(', ')`)
	timers := b.timersRun()
	logHandlersRunning(t)
	b.mu.Lock()
	defer b.mu.Unlock()
	t.Fatalf("waited %v for %s; the page says %q; banner %q; buttons waiting %q; errors %v; requests open %s; the page's timers %s",
		within, what, live, banner, waiting, b.failures, b.openRequests(), timers)
}

// logHandlersRunning logs the stacks of the HTTP handlers running in this process (dev runs in
// it), so a wait that timed out on a request the service never answered shows where the
// service is stuck.
func logHandlersRunning(t *testing.T) {
	t.Helper()
	buf := make([]byte, 8<<20)
	buf = buf[:goruntime.Stack(buf, true)]
	var handlers []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, ".ServeHTTP(") && strings.Contains(g, "/backend/") {
			handlers = append(handlers, g)
		}
	}
	t.Logf("%d HTTP handlers running in the test's process", len(handlers))
	for _, g := range handlers {
		t.Log(g)
	}
}

// openRequests lists the page's requests still open, oldest first, with their age and whether
// their answer's headers came. The caller holds b.mu.
func (b *browser) openRequests() string {
	reqs := slices.SortedFunc(maps.Values(b.open), func(x, y *openRequest) int { return x.sent.Compare(y.sent) })
	if len(reqs) == 0 {
		return "none"
	}
	var out []string
	for _, r := range reqs {
		out = append(out, fmt.Sprintf("%s %s for %v (status %d)", r.method, r.url, time.Since(r.sent).Round(time.Millisecond), r.status))
	}
	return strings.Join(out, "; ")
}

// timersRun tells whether a 100 ms timer of the page fires within 10 s: the page's reads are
// bounded by timers (AbortSignal.timeout) and its polling runs on one, so a page whose timers
// stopped is stuck for good, whatever the service answers.
func (b *browser) timersRun() string {
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	start := time.Now()
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise(r => setTimeout(() => r(true), 100))`, chromedp.EvalAwaitPromise))
	if err != nil {
		return fmt.Sprintf("did not fire (%v after %v)", err, time.Since(start).Round(time.Millisecond))
	}
	return fmt.Sprintf("run (a 100 ms timer fired after %v)", time.Since(start).Round(time.Millisecond))
}

// number reads an amount the page shows in selector ("$987.4875") as dollars.
func (b *browser) number(t *testing.T, selector string) float64 {
	t.Helper()
	text := eval[string](t, b, fmt.Sprintf(`document.querySelector(%q)?.textContent ?? ""`, selector))
	v, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimPrefix(text, "$"), ",", ""), 64)
	if err != nil {
		t.Fatalf("%s shows %q, not an amount", selector, text)
	}
	return v
}

func (b *browser) int(t *testing.T, expr string) int { t.Helper(); return eval[int](t, b, expr) }

// usdText is an amount as the page writes it: dollars with at least two decimals and at most
// six, no trailing zero past two.
func usdText(v float64) string {
	s := strings.TrimRight(strconv.FormatFloat(v, 'f', 6, 64), "0")
	whole, frac, _ := strings.Cut(s, ".")
	for len(frac) < 2 {
		frac += "0"
	}
	return "$" + whole + "." + frac
}

// consoleScreenshot captures the page at a laptop's size. It always goes to the test's artifact
// directory (kept with go test -artifacts); with RESELLER_UPDATE_CONSOLE_PNG=1 it is also
// written to docs/console.png, which the README shows. Only then: CI runs `make docs-check`,
// which fails on any change under docs/ after the tests.
func consoleScreenshot(t *testing.T, b *browser) {
	t.Helper()
	b.do(t, chromedp.EmulateViewport(laptop[0], laptop[1]), chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	time.Sleep(1200 * time.Millisecond) // one more read, so the screenshot shows the service as it is
	ctx, cancel := context.WithTimeout(b.ctx, pageWait)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "console.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Getenv(updateScreenshotEnv) != "1" {
		return
	}
	path := filepath.Join(repoRoot(t), "docs", "console.png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d KB)", path, len(png)/1024)
}

// repoRoot is the directory of the repository's go.mod, above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for ; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
	}
	t.Fatal("no go.mod above the test's directory")
	return ""
}

// needRoute skips the test when dev does not serve GET /_dev/<name> yet (it answers 404).
func needRoute(t *testing.T, d *devAPI, name string) {
	t.Helper()
	if a := d.call(t, "GET", "/_dev/"+name, "", ""); a.status == 404 {
		t.Skip("needs /_dev/" + name)
	}
}

// orderNamed orders an hourly server of plan 101 with hostname and waits until it is online; it
// returns its id and the name the API gives it.
func orderNamed(t *testing.T, d *devAPI, hostname string) (int64, string) {
	t.Helper()
	var o struct {
		OrderID int64 `json:"order_id"`
	}
	d.call(t, "POST", "/api/v1/instances", d.key,
		`{"server_id": 101, "template_id": 1, "term": "hourly", "hostname": "`+hostname+`"}`).want(t, 201, "").into(t, &o)
	deadline := time.Now().Add(pageWait)
	for time.Now().Before(deadline) {
		var got struct {
			Server *struct {
				ID     int64  `json:"id"`
				Name   string `json:"name"`
				Status string `json:"status"`
			} `json:"server"`
		}
		if d.poll(t, "/api/v1/orders/"+itoa(o.OrderID), &got) && got.Server != nil && got.Server.Status == "online" {
			return got.Server.ID, got.Server.Name
		}
		time.Sleep(pollEvery)
	}
	t.Fatalf("the server did not come online within %s", pageWait)
	return 0, ""
}

// catalogHourly is the hourly price of plan 101 in the catalogue.
func catalogHourly(t *testing.T, d *devAPI) float64 {
	t.Helper()
	var plan struct {
		Prices []struct {
			Price float64 `json:"price"`
		} `json:"prices"`
	}
	d.call(t, "GET", "/api/v1/catalog/servers/101", d.key, "").want(t, 200, "").into(t, &plan)
	return plan.Prices[0].Price
}

// startDevLogged runs dev in this process with logger and args until the test ends, and
// returns once it printed its export lines (the console's log line is written before them).
func startDevLogged(t *testing.T, logger *slog.Logger, args ...string) *devAPI {
	t.Helper()
	o, err := parseDev(append([]string{"--listen", "127.0.0.1:0"}, args...), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- dev(ctx, o, w, logger); _ = w.Close() }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("dev: %v", err)
		}
	})
	env := map[string]string{}
	sc := bufio.NewScanner(r)
	for len(env) < 2 && sc.Scan() {
		k, v, _ := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "=")
		env[k] = v
	}
	go func() { _, _ = io.Copy(io.Discard, r) }()
	if len(env) < 2 {
		t.Fatalf("dev printed %v", env)
	}
	return &devAPI{base: strings.TrimSuffix(env["RESELLER_ENDPOINT"], "/api/v1"), key: env["RESELLER_API_KEY"]}
}

// fetch gets url and returns its answer and body.
func fetch(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}
