package console

import (
	"context"
	"embed"
	"encoding/json"
	"html/template"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/coder/websocket"
)

//go:embed page/page.html
var pageHTML string

// vendored are xterm.js and its fit addon as npm builds them, with their licence (see
// assets/README.md for the versions and how to update them); own are the page's script and
// style. Both are served under {token}/assets/.
var (
	//go:embed assets
	vendored embed.FS
	//go:embed page/console.js page/console.css
	own embed.FS
)

var pageTemplate = template.Must(template.New("console").Parse(pageHTML))

// WebSocket close codes the page tells apart (4000-4999 are the application's).
const (
	closeWrongPassword = 4001 // the password was wrong; the session goes on
	closeEnded         = 4010 // the session has ended (expired, too many wrong passwords)
	closeUnreachable   = 4011 // the machine's console could not be opened
)

// Limits of one terminal connection.
const (
	maxMessage   = 64 << 10         // the largest message the page may send
	loginTimeout = 2 * time.Minute  // for the page's first message, the password
	outputChunk  = 32 << 10         // the most bytes of output in one message
	writeTimeout = 30 * time.Second // for the page to take one message of output
	maxDimension = 1000             // cols and rows beyond this are taken for this
	defaultCols  = 80
	defaultRows  = 24
)

// pageCSP keeps the page to its own assets and its own WebSocket ('self' covers ws: and wss:
// of the page's host); xterm.js writes inline styles.
const pageCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; " +
	"img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// ServeHTTP serves Prefix: GET {token} is the page, GET {token}/ws its terminal's WebSocket,
// GET {token}/assets/{name} xterm.js. An unknown token answers 404, an ended session's 410.
func (c *Consoles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, _ := strings.CutPrefix(r.URL.Path, Prefix)
	token, sub, _ := strings.Cut(rest, "/")
	w.Header().Set("Cache-Control", "no-store") // the page and its URL are a secret's
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		plain(w, http.StatusMethodNotAllowed, "Method not allowed.")
		return
	}
	s := c.lookup(token)
	switch {
	case token == "" || s == nil:
		plain(w, http.StatusNotFound, "There is no such console. Ask for a new one with the server's console action.")
	case !s.alive():
		plain(w, http.StatusGone, "This console has ended ("+s.reason()+"). Ask for a new one with the server's console action.")
	case sub == "":
		c.page(w, token)
	case sub == "ws":
		c.terminal(w, r, s)
	case strings.HasPrefix(sub, "assets/"):
		serveAsset(w, r, strings.TrimPrefix(sub, "assets/"))
	default:
		plain(w, http.StatusNotFound, "Not found.")
	}
}

func (s *session) reason() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.why
}

// plain answers a short text page.
func plain(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, text+"\n")
}

// page serves the console page of token.
func (c *Consoles) page(w http.ResponseWriter, token string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", pageCSP)
	w.Header().Set("X-Frame-Options", "DENY")
	if err := pageTemplate.Execute(w, struct{ Token string }{token}); err != nil {
		c.log.Warn("console page", slog.Any("error", err))
	}
}

// serveAsset serves one embedded asset by name.
func serveAsset(w http.ResponseWriter, r *http.Request, name string) {
	if name == "" || strings.Contains(name, "/") {
		plain(w, http.StatusNotFound, "Not found.")
		return
	}
	data, err := vendored.ReadFile("assets/" + name)
	if err != nil {
		data, err = own.ReadFile("page/" + name)
	}
	if err != nil {
		plain(w, http.StatusNotFound, "Not found.")
		return
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "text/plain; charset=utf-8"
	}
	w.Header().Set("Content-Type", ctype)
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(data)
}

// origin is the public URL's origin (scheme://host[:port]), the only one the WebSocket takes.
func (c *Consoles) origin() string {
	u := c.public.Load()
	if u == nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// loginMessage is the page's first message: the password and the terminal's size.
type loginMessage struct {
	Password string `json:"password"`
	Cols     int    `json:"cols"`
	Rows     int    `json:"rows"`
}

// controlMessage is a text message of the page after login: a new size.
type controlMessage struct {
	Type string `json:"type"` // "resize"
	Cols int    `json:"cols"`
	Rows int    `json:"rows"`
}

// terminal upgrades to a WebSocket from the page's own origin, takes the password, opens the
// machine's terminal and carries it until either side ends or the session does.
func (c *Consoles) terminal(w http.ResponseWriter, r *http.Request, s *session) {
	if origin := r.Header.Get("Origin"); origin == "" || origin != c.origin() {
		c.log.Info("console WebSocket refused: not the page's origin", slog.String("origin", origin))
		plain(w, http.StatusForbidden, "This console takes connections from its own page only.")
		return
	}
	// The listener's request timeouts do not cut a terminal short: net/http clears the
	// connection's deadlines when Accept hijacks it.
	u := c.public.Load()
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: []string{u.Host}})
	if err != nil {
		return // Accept has answered
	}
	conn.SetReadLimit(maxMessage)
	defer func() { _ = conn.CloseNow() }()
	login, ok := c.readLogin(conn, s)
	if !ok {
		return
	}
	c.carry(conn, s, login)
}

// readLogin reads and checks the page's password. On a wrong one, or a session that ended, the
// connection is closed with the code the page shows.
func (c *Consoles) readLogin(conn *websocket.Conn, s *session) (loginMessage, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), loginTimeout)
	defer cancel()
	stop := context.AfterFunc(s.ctx, func() { _ = conn.Close(closeEnded, "this console has ended ("+s.reason()+")") })
	defer stop()
	typ, data, err := conn.Read(ctx)
	var login loginMessage
	if err != nil || typ != websocket.MessageText || json.Unmarshal(data, &login) != nil {
		_ = conn.Close(websocket.StatusPolicyViolation, "the first message must be the password")
		return login, false
	}
	ok, ended := c.login(s, login.Password)
	switch {
	case ended:
		_ = conn.Close(closeEnded, "this console has ended ("+s.reason()+")")
		return login, false
	case !ok:
		_ = conn.Close(closeWrongPassword, "wrong password")
		return login, false
	}
	return login, true
}

// carry opens the terminal and copies between it and the page until one ends or the session
// does; the shell is hung up then.
func (c *Consoles) carry(conn *websocket.Conn, s *session, login loginMessage) {
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	term, err := c.open(ctx, s.ref, dimension(login.Cols, defaultCols), dimension(login.Rows, defaultRows))
	if err != nil {
		c.log.Warn("console: the machine's terminal did not open", slog.String("machine", s.ref), slog.Any("error", err))
		_ = conn.Close(closeUnreachable, "the server does not answer: is it running?")
		return
	}
	defer term.Close()
	c.log.Info("console opened", slog.String("machine", s.ref))
	// Whichever side ends first ends the other: the shell is hung up, the page told why.
	stop := context.AfterFunc(ctx, func() {
		_ = term.Close()
		if s.ctx.Err() != nil {
			_ = conn.Close(closeEnded, "this console has ended ("+s.reason()+")")
			return
		}
		_ = conn.Close(websocket.StatusNormalClosure, "the shell has ended")
	})
	defer stop()
	if err := write(conn, websocket.MessageText, []byte(`{"type":"ready"}`)); err != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer cancel()
		pumpOutput(conn, term)
	}()
	pumpInput(conn, term)
	cancel()
	<-done
}

// write sends one message within writeTimeout. Its context is never the session's: a
// WebSocket whose write context ends is dropped without a close frame, and the end of a session
// must reach the page as its close code (carry's AfterFunc).
func write(conn *websocket.Conn, typ websocket.MessageType, data []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	return conn.Write(ctx, typ, data)
}

// pumpOutput sends what the shell writes to the page until either ends.
func pumpOutput(conn *websocket.Conn, term Terminal) {
	buf := make([]byte, outputChunk)
	for {
		n, err := term.Read(buf)
		if n > 0 {
			if werr := write(conn, websocket.MessageBinary, buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// pumpInput types what the page sends (binary messages) and applies its resizes (text
// messages) until either ends. Its reads wait without a deadline (a console is idle while its
// user reads the screen); closing the connection ends them.
func pumpInput(conn *websocket.Conn, term Terminal) {
	for {
		typ, data, err := conn.Read(context.Background())
		if err != nil {
			return
		}
		if typ == websocket.MessageBinary {
			if _, err := term.Write(data); err != nil {
				return
			}
			continue
		}
		var m controlMessage
		if json.Unmarshal(data, &m) == nil && m.Type == "resize" {
			_ = term.Resize(dimension(m.Cols, defaultCols), dimension(m.Rows, defaultRows))
		}
	}
}

// dimension is n as a terminal's width or height: def when not positive, at most maxDimension.
func dimension(n, def int) int {
	if n <= 0 {
		return def
	}
	return min(n, maxDimension)
}
