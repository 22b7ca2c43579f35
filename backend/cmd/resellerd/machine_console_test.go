package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/coder/websocket"
	"github.com/reseller/terraform-provider-reseller/backend/internal/testbuf"
)

// updateMachineConsoleEnv, set to 1, has TestMachineConsoleInBrowser write
// docs/machine-console.png, the picture the guide "Servers you can log into" shows.
const updateMachineConsoleEnv = "RESELLER_UPDATE_MACHINE_CONSOLE_PNG"

// consoleAnswer is the data of a console action.
type consoleAnswer struct {
	URL      string `json:"console_url"`
	Password string `json:"console_password"`
}

// openConsole runs the console action on instance id.
func openConsole(t *testing.T, d *devAPI, id int64) consoleAnswer {
	t.Helper()
	var c consoleAnswer
	d.call(t, "POST", "/api/v1/instances/"+itoa(id)+"/actions", d.key, `{"action": "console"}`).want(t, 200, "").into(t, &c)
	if !strings.HasPrefix(c.URL, d.base+"/console/") || c.Password == "" {
		t.Fatalf("console action answered %+v, want a URL under %s/console/ and a password", c, d.base)
	}
	return c
}

// TestMachineConsoleInBrowser: under --machines sandbox the console action's URL is a page on
// resellerd; in headless Chromium a wrong password is refused, the right one opens a terminal
// on the server, and `hostname` typed into it shows the server's hostname in the page's text
// (xterm.js's DOM rows). A WebSocket from another origin is refused; five wrong passwords end
// a URL (410). The token is in neither the access log nor dev's journal, which show it
// redacted.
func TestMachineConsoleInBrowser(t *testing.T) {
	// Not t.Parallel: it runs before the package's parallel tests, so the browser, the dearest
	// process of the suite, does not share the cores with machines booting.
	requireMachines(t)
	requireChromium(t)
	var logs testbuf.Buffer
	d := startDevLogged(t, slog.New(slog.NewTextHandler(&logs, nil)), "--deploy-delay", "0s", "--credentials-delay", "0s",
		"--machines", "sandbox", "--machines-cidr", "198.19.61.0/24")
	id, _ := orderNamed(t, d, "console-web")
	c := openConsole(t, d, id)
	token := strings.TrimPrefix(c.URL, d.base+"/console/")

	b := newBrowser(t, d.base)
	b.do(t, chromedp.EmulateViewport(1000, 560), chromedp.Navigate(c.URL), chromedp.WaitVisible(chromedp.CSS("#password")))
	b.do(t, chromedp.SetValue(chromedp.CSS("#password"), "not-the-password"), chromedp.Click(chromedp.CSS("#open")))
	b.waitTrue(t, pageWait, `document.querySelector('#status').textContent.includes('Wrong password')`, "the wrong password refused")
	if eval[bool](t, b, `document.querySelector('.xterm-rows') !== null`) {
		t.Fatal("a terminal opened on a wrong password")
	}

	b.do(t, chromedp.SetValue(chromedp.CSS("#password"), c.Password), chromedp.Click(chromedp.CSS("#open")))
	b.waitTrue(t, pageWait, `document.querySelector('.xterm-rows') !== null && document.querySelector('.xterm-rows').textContent.includes('#')`,
		"the terminal and its shell's prompt")
	b.do(t, typeInto(".xterm-helper-textarea", "hostname\r"))
	b.waitTrue(t, pageWait, `[...document.querySelectorAll('.xterm-rows > div')].some(r => r.textContent.trim() === 'console-web')`,
		"a row of the page's text that is the server's hostname")
	b.do(t, typeInto(".xterm-helper-textarea", "clear; uname -n; id; df -h /\r"))
	b.waitTrue(t, pageWait, `document.querySelector('.xterm-rows').textContent.includes('uid=0(root)')`, "id as root")
	machineConsoleScreenshot(t, b)
	b.check(t)

	t.Run("a WebSocket from another origin is refused", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), pageWait)
		defer cancel()
		wsURL := "ws" + strings.TrimPrefix(c.URL, "http") + "/ws"
		conn, res, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://evil.example"}}})
		if err == nil {
			_ = conn.CloseNow()
			t.Fatal("a WebSocket from http://evil.example was accepted")
		}
		if res == nil || res.StatusCode != http.StatusForbidden {
			t.Fatalf("a WebSocket from another origin: %v, want 403", err)
		}
		// The page's own origin is taken (and refused only for its password).
		conn, _, err = websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {d.base}}})
		if err != nil {
			t.Fatalf("a WebSocket from the page's origin: %v", err)
		}
		defer func() { _ = conn.CloseNow() }()
	})

	t.Run("five wrong passwords end a URL", func(t *testing.T) {
		endByWrongPasswords(t, d, openConsole(t, d, id))
	})

	t.Run("the token is in no log", func(t *testing.T) {
		journal := d.call(t, "GET", "/_dev/requests?limit=1000", "", "")
		for name, text := range map[string]string{"the access log": logs.String(), "the journal": string(journal.Data)} {
			if strings.Contains(text, token) {
				t.Errorf("%s shows the console's token", name)
			}
			if !strings.Contains(text, "/console/[redacted]") {
				t.Errorf("%s shows no console request, redacted: %s", name, text)
			}
		}
	})
}

// TestMachineConsoleExpires: a console's URL answers 410 once --console-ttl has passed, and
// the terminal open on it is hung up then (close code 4010).
func TestMachineConsoleExpires(t *testing.T) {
	t.Parallel()
	requireMachines(t)
	d := startDevInProcess(t, "--deploy-delay", "0s", "--credentials-delay", "0s", "--machines", "sandbox",
		"--machines-cidr", "198.19.62.0/24", "--console-ttl", "5s")
	_, id := d.deployed(t)
	c := openConsole(t, d, id)
	if conn, ended := loginConsole(t, d, c); !ended {
		// The terminal is carried until the TTL ends the session, which closes it.
		ctx, cancel := context.WithTimeout(context.Background(), pageWait)
		defer cancel()
		for {
			if _, _, err := conn.Read(ctx); err != nil {
				if got := websocket.CloseStatus(err); got != closeEnded {
					t.Fatalf("the terminal ended with %v, want the close code of an ended console (%d)", err, closeEnded)
				}
				break
			}
		}
	} else {
		t.Log("the console expired before this loaded host logged in; its hang-up is not seen")
	}
	if res, body := fetch(t, c.URL); res.StatusCode != http.StatusGone {
		t.Fatalf("GET the console after its TTL: %d %s, want 410", res.StatusCode, body)
	}
}

// closeEnded and closeWrongPassword are the close codes of package console the page tells
// apart: the console has ended; the password was wrong.
const (
	closeEnded         websocket.StatusCode = 4010
	closeWrongPassword websocket.StatusCode = 4001
)

// endByWrongPasswords gives c's WebSocket five wrong passwords: each is refused, the fifth ends
// the URL, which then answers 410.
func endByWrongPasswords(t *testing.T, d *devAPI, c consoleAnswer) {
	t.Helper()
	for i := 1; i <= 5; i++ {
		want := closeWrongPassword
		if i == 5 {
			want = closeEnded
		}
		if code := wrongPassword(t, d, c); code != want {
			t.Fatalf("wrong password %d: closed with %d, want %d", i, code, want)
		}
	}
	if res, body := fetch(t, c.URL); res.StatusCode != http.StatusGone {
		t.Fatalf("GET the console after five wrong passwords: %d %s, want 410", res.StatusCode, body)
	}
}

// typeInto focuses the element of selector and types text on it: printable text as an input
// method inserts it, a carriage return as the Enter key (down and up). chromedp's SendKeys
// sends a char event after each key down, which xterm.js takes for a second key press.
func typeInto(selector, text string) chromedp.Action[chromedp.Void] {
	focus := chromedp.Focus(chromedp.CSS(selector))
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := focus(ctx, t); err != nil {
			return err
		}
		for i, part := range strings.Split(text, "\r") {
			if i > 0 {
				for _, k := range kb.Encode('\r') {
					if k.Type == kb.KeyChar {
						continue
					}
					if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, *k); err != nil {
						return err
					}
				}
			}
			if part == "" {
				continue
			}
			if _, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: part}); err != nil {
				return err
			}
		}
		return nil
	})
}

// loginConsole opens c's WebSocket from its page's origin, gives the password and waits for
// the terminal to be ready; ended says the console had ended by then instead.
func loginConsole(t *testing.T, d *devAPI, c consoleAnswer) (conn *websocket.Conn, ended bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), pageWait)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(c.URL, "http")+"/ws",
		&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {d.base}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.CloseNow() })
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"password": "`+c.Password+`", "cols": 80, "rows": 24}`)); err != nil {
		t.Fatal(err)
	}
	typ, data, err := conn.Read(ctx)
	if websocket.CloseStatus(err) == closeEnded {
		return conn, true
	}
	if err != nil || typ != websocket.MessageText || !strings.Contains(string(data), "ready") {
		t.Fatalf("login: %v %s", err, data)
	}
	return conn, false
}

// wrongPassword gives c's WebSocket a wrong password and returns the code it is closed with.
func wrongPassword(t *testing.T, d *devAPI, c consoleAnswer) websocket.StatusCode {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), pageWait)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(c.URL, "http")+"/ws",
		&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {d.base}}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.CloseNow() }()
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"password": "wrong"}`)); err != nil {
		t.Fatal(err)
	}
	_, _, err = conn.Read(ctx)
	if err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("a wrong password read %v, want the connection closed", err)
	}
	return websocket.CloseStatus(err)
}

// machineConsoleScreenshot keeps a picture of the console in the test's artifact directory,
// and with RESELLER_UPDATE_MACHINE_CONSOLE_PNG=1 writes it to docs/machine-console.png.
func machineConsoleScreenshot(t *testing.T, b *browser) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, pageWait)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "machine-console.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Getenv(updateMachineConsoleEnv) != "1" {
		return
	}
	path := filepath.Join(repoRoot(t), "docs", "machine-console.png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d KB)", path, len(png)/1024)
}
