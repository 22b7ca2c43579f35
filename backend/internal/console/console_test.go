package console

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// testWait bounds every wait of these tests on a WebSocket.
const testWait = 30 * time.Second

// echoTerminal is a Terminal that writes back what is typed, and records its size.
type echoTerminal struct {
	r      *io.PipeReader
	w      *io.PipeWriter
	mu     sync.Mutex
	resize [2]int
}

func newEchoTerminal() *echoTerminal {
	r, w := io.Pipe()
	return &echoTerminal{r: r, w: w}
}

func (e *echoTerminal) Read(p []byte) (int, error)  { return e.r.Read(p) }
func (e *echoTerminal) Write(p []byte) (int, error) { return e.w.Write(p) }
func (e *echoTerminal) Close() error                { _ = e.w.Close(); return e.r.Close() }
func (e *echoTerminal) Resize(cols, rows int) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.resize = [2]int{cols, rows}
	return nil
}

// newTestConsoles serves consoles whose terminals echo, at public (or the test server's own
// URL when empty).
func newTestConsoles(t *testing.T, public string) (*Consoles, *httptest.Server) {
	t.Helper()
	c, err := New(Options{PublicURL: public, Open: func(context.Context, string, int, int) (Terminal, error) {
		return newEchoTerminal(), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(c)
	t.Cleanup(func() { srv.Close(); c.Close() })
	if public == "" {
		if err := c.SetPublicURL(srv.URL); err != nil {
			t.Fatal(err)
		}
	}
	return c, srv
}

// dial opens the WebSocket of the console at path on srv with origin and sends password.
func dial(t *testing.T, srv *httptest.Server, path, origin, password string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	conn, res, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+path+"/ws",
		&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}}})
	if err != nil {
		return nil, res, err
	}
	t.Cleanup(func() { _ = conn.CloseNow() })
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"password": "`+password+`"}`)); err != nil {
		t.Fatal(err)
	}
	return conn, res, nil
}

// read is the next message of conn, or its error.
func read(conn *websocket.Conn) (websocket.MessageType, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	return conn.Read(ctx)
}

// TestBehindAProxy: with a public URL of its own, console URLs start with it and the WebSocket
// takes that origin only, not the listener's own; what is typed reaches the terminal.
func TestBehindAProxy(t *testing.T) {
	c, srv := newTestConsoles(t, "https://consoles.example.com/reseller/")
	issued, err := c.Issue("vm-1")
	if err != nil {
		t.Fatal(err)
	}
	path, ok := strings.CutPrefix(issued.URL, "https://consoles.example.com/reseller/console/")
	if !ok || len(path) < 40 || len(issued.Password) != 20 {
		t.Fatalf("issued %q with a password of %d characters", issued.URL, len(issued.Password))
	}
	path = Prefix + path
	if _, res, err := dial(t, srv, path, srv.URL, issued.Password); err == nil || res == nil || res.StatusCode != http.StatusForbidden {
		t.Fatalf("the listener's own origin behind a proxy: %v, want 403", err)
	}
	conn, _, err := dial(t, srv, path, "https://consoles.example.com", issued.Password)
	if err != nil {
		t.Fatal(err)
	}
	if _, data, err := read(conn); err != nil || string(data) != `{"type":"ready"}` {
		t.Fatalf("login: %q %v", data, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	if err := conn.Write(ctx, websocket.MessageBinary, []byte("hostname\r")); err != nil {
		t.Fatal(err)
	}
	if typ, data, err := read(conn); err != nil || typ != websocket.MessageBinary || string(data) != "hostname\r" {
		t.Fatalf("echo: %v %q %v", typ, data, err)
	}
}

// TestWrongPasswordsEndTheURL: each wrong password is refused (close code 4001); the fifth ends
// the URL (4010), which answers 410 from then on, to the right password too.
func TestWrongPasswordsEndTheURL(t *testing.T) {
	c, srv := newTestConsoles(t, "")
	issued, err := c.Issue("vm-1")
	if err != nil {
		t.Fatal(err)
	}
	path := strings.TrimPrefix(issued.URL, srv.URL)
	for i := 1; i <= MaxWrongPasswords; i++ {
		conn, _, err := dial(t, srv, path, srv.URL, "wrong")
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = read(conn)
		want := websocket.StatusCode(closeWrongPassword)
		if i == MaxWrongPasswords {
			want = closeEnded
		}
		if got := websocket.CloseStatus(err); got != want {
			t.Fatalf("wrong password %d: %v, want close code %d", i, err, want)
		}
	}
	res, err := http.Get(issued.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusGone {
		t.Fatalf("GET after %d wrong passwords: %d, want 410", MaxWrongPasswords, res.StatusCode)
	}
	if _, res, err := dial(t, srv, path, srv.URL, issued.Password); err == nil || res == nil || res.StatusCode != http.StatusGone {
		t.Fatalf("the right password after the URL ended: %v, want 410", err)
	}
}

// TestPage: the page is served with the headers that keep its token to itself; its assets
// are xterm.js and the page's own; an unknown token is 404.
func TestPage(t *testing.T) {
	c, srv := newTestConsoles(t, "")
	issued, err := c.Issue("vm-1")
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(issued.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	h := res.Header
	if res.StatusCode != http.StatusOK || h.Get("Referrer-Policy") != "no-referrer" || h.Get("Cache-Control") != "no-store" ||
		!strings.Contains(h.Get("Content-Security-Policy"), "connect-src 'self'") || !strings.Contains(string(body), `id="password"`) {
		t.Fatalf("page: %d %v\n%s", res.StatusCode, h, body)
	}
	for _, name := range []string{"xterm.js", "xterm.css", "addon-fit.js", "console.js", "console.css", "LICENSE-xterm"} {
		res, err := http.Get(issued.URL + "/assets/" + name)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("asset %s: %d", name, res.StatusCode)
		}
	}
	res, err = http.Get(srv.URL + Prefix + "not-a-token")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("an unknown token: %d, want 404", res.StatusCode)
	}
}

func TestRedactPath(t *testing.T) {
	for in, want := range map[string]string{
		"/console/abc":          "/console/[redacted]",
		"/console/abc/ws":       "/console/[redacted]/ws",
		"/console/abc/assets/x": "/console/[redacted]/assets/x",
		"/console/":             "/console/",
		"/api/v1/instances/1":   "/api/v1/instances/1",
		"/consoles/abc":         "/consoles/abc",
	} {
		if got := RedactPath(in); got != want {
			t.Errorf("RedactPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParsePublicURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8080":         "http://127.0.0.1:8080",
		"https://example.com/reseller/": "https://example.com/reseller",
		"ftp://example.com":             "",
		"example.com":                   "",
		"https://user:pw@example.com":   "",
		"https://example.com/#fragment": "",
	} {
		u, err := ParsePublicURL(in)
		switch {
		case want == "" && err == nil:
			t.Errorf("ParsePublicURL(%q) = %v, want an error", in, u)
		case want != "" && (err != nil || u.String() != want):
			t.Errorf("ParsePublicURL(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
}

// TestAnEndedSessionHangsUp: when a session ends (its TTL's timer, here called at once), its
// open terminal is closed, the page is told why (4010), and the URL answers 410.
func TestAnEndedSessionHangsUp(t *testing.T) {
	term := newEchoTerminal()
	c, err := New(Options{Open: func(context.Context, string, int, int) (Terminal, error) { return term, nil }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(c)
	t.Cleanup(func() { srv.Close(); c.Close() })
	if err := c.SetPublicURL(srv.URL); err != nil {
		t.Fatal(err)
	}
	issued, err := c.Issue("vm-1")
	if err != nil {
		t.Fatal(err)
	}
	path := strings.TrimPrefix(issued.URL, srv.URL)
	conn, _, err := dial(t, srv, path, srv.URL, issued.Password)
	if err != nil {
		t.Fatal(err)
	}
	if _, data, err := read(conn); err != nil || string(data) != `{"type":"ready"}` {
		t.Fatalf("login: %q %v", data, err)
	}
	c.endSession(c.lookup(strings.TrimPrefix(path, Prefix)), expiredReason)
	if _, _, err := read(conn); websocket.CloseStatus(err) != closeEnded || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("the terminal after its session ended: %v, want closed with %d (expired)", err, closeEnded)
	}
	if _, err := term.Write([]byte("x")); err == nil {
		t.Fatal("the terminal was not closed when its session ended")
	}
	res, err := http.Get(issued.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusGone {
		t.Fatalf("GET an ended console: %d, want 410", res.StatusCode)
	}
}
