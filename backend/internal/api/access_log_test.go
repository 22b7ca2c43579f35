package api

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/testbuf"
)

// accessWait bounds the wait for the access log's writer to start a write: generous, the
// machine is shared.
const accessWait = time.Minute

// blockingWriter holds every Write until release is closed, telling writing when one starts:
// a log output that stalls.
type blockingWriter struct {
	writing chan struct{}
	release chan struct{}
	mu      sync.Mutex
	buf     bytes.Buffer
}

func newBlockingWriter() *blockingWriter {
	return &blockingWriter{writing: make(chan struct{}, 100), release: make(chan struct{})}
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	w.writing <- struct{}{}
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *blockingWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func textFormat(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

func entry(n int) accessEntry {
	return accessEntry{id: fmt.Sprintf("req-%d", n), at: time.Now(), method: http.MethodGet, route: "GET /account",
		path: "/api/v1/account", client: "192.0.2.1", status: http.StatusOK, bytes: int64(n)}
}

// TestAccessLogCountsFullQueue stalls the log's output with a queue of one line: the line being
// written and the one queued are kept, every further line is dropped and counted, and the
// writer says how many in a warning once the output moves again.
func TestAccessLogCountsFullQueue(t *testing.T) {
	t.Parallel()
	out := newBlockingWriter()
	batch := &lineBatch{out: out}
	l := newAccessLog(textFormat(batch), batch, 1)

	l.record(entry(1))
	select {
	case <-out.writing: // the writer holds line 1 and waits on the output
	case <-time.After(accessWait):
		t.Fatal("the access log never wrote")
	}
	l.record(entry(2)) // queued
	l.record(entry(3)) // dropped
	l.record(entry(4)) // dropped
	if got := l.Dropped(); got != 2 {
		t.Fatalf("Dropped() = %d with a full queue, want 2", got)
	}
	close(out.release)
	l.Close()

	logs := out.String()
	for _, id := range []string{"req-1", "req-2"} {
		if !strings.Contains(logs, "request_id="+id+" ") {
			t.Errorf("no line for %s:\n%s", id, logs)
		}
	}
	for _, id := range []string{"req-3", "req-4"} {
		if strings.Contains(logs, "request_id="+id+" ") {
			t.Errorf("a dropped line was written (%s):\n%s", id, logs)
		}
	}
	if !strings.Contains(logs, "level=WARN") || !strings.Contains(logs, "dropped=2 dropped_total=2") {
		t.Errorf("no warning counting the 2 dropped lines:\n%s", logs)
	}
}

// TestAccessLogWritesEveryLineOnClose records lines faster than anything is written and closes
// the log at once: every line is out when Close returns, each once, in order; a line recorded
// after Close is written at once.
func TestAccessLogWritesEveryLineOnClose(t *testing.T) {
	t.Parallel()
	const n = 3000
	var out testbuf.Buffer
	l := NewBatchedAccessLog(&out, textFormat)
	for i := range n {
		l.record(entry(i))
	}
	l.Close()
	if l.Dropped() != 0 {
		t.Fatalf("%d lines dropped with a queue of %d", l.Dropped(), accessQueueSize)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("%d lines after Close, want %d", len(lines), n)
	}
	for i, line := range lines {
		if !strings.Contains(line, "request_id=req-"+strconv.Itoa(i)+" ") {
			t.Fatalf("line %d is %q", i, line)
		}
	}
	l.record(entry(n))
	if !strings.Contains(out.String(), "request_id=req-"+strconv.Itoa(n)+" ") {
		t.Fatal("a line recorded after Close was not written at once")
	}
	l.Close() // a second Close returns
}

var accessLineFields = regexp.MustCompile(`msg=request request_id=(\S+) method=GET route="GET /test/echo/\{n\}" path=/api/v1/test/echo/(\d+) status=(\d+) duration_ms=\S+ bytes=(\d+)`)

// TestRequestStateNotShared serves many requests at once, each with its own id, status and
// body length, through the pooled status writers and access records (run it with -race): every
// access line says what its own request did.
func TestRequestStateNotShared(t *testing.T) {
	t.Parallel()
	const clients, each = 8, 150
	var logs bytes.Buffer
	var access *AccessLog
	h := newTestHandler(t, &logs, func(route routeFunc) {
		route("GET /api/v1/test/echo/{n}", func(w http.ResponseWriter, r *http.Request) {
			n, _ := strconv.Atoi(r.PathValue("n"))
			accessOf(r.Context()).accountID = int64(n) + 1
			w.WriteHeader(echoStatus(n))
			_, _ = w.Write([]byte(strings.Repeat("x", n%97)))
		})
	}, func(cfg *Config) {
		access = NewAccessLog(cfg.Logger)
		cfg.AccessLog = access
	})
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range each {
				n := c*each + i
				req := httptest.NewRequest(http.MethodGet, "/api/v1/test/echo/"+strconv.Itoa(n), nil)
				req.Header.Set("X-Request-ID", "echo-"+strconv.Itoa(n))
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != echoStatus(n) || rec.Body.Len() != n%97 || rec.Header().Get("X-Request-ID") != "echo-"+strconv.Itoa(n) {
					t.Errorf("request %d: %d, %d bytes, id %q", n, rec.Code, rec.Body.Len(), rec.Header().Get("X-Request-ID"))
				}
			}
		})
	}
	wg.Wait()
	access.Close()

	seen := map[int]bool{}
	for _, line := range strings.Split(logs.String(), "\n") {
		m := accessLineFields.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		status, _ := strconv.Atoi(m[3])
		size, _ := strconv.Atoi(m[4])
		if m[1] != "echo-"+m[2] || status != echoStatus(n) || size != n%97 ||
			!strings.Contains(line, fmt.Sprintf(" account_id=%d", n+1)) {
			t.Errorf("request %d has the access line of another: %s", n, line)
		}
		seen[n] = true
	}
	if len(seen) != clients*each {
		t.Fatalf("%d access lines, want %d", len(seen), clients*each)
	}
}

// echoStatus is the status the echo route answers request n with.
func echoStatus(n int) int { return http.StatusOK + n%4 }

// TestTextLineAsSlogWritesIt: the access line appended by hand (appendTextLine) is byte for
// byte the line slog.NewTextHandler writes for the same request, for values that slog quotes
// (spaces, '=', quotes, control characters, invalid UTF-8, non-printing and space runes, the
// empty string) and values it leaves bare (a backslash, DEL, printable non-ASCII), times on
// and off a millisecond, in UTC and another zone, with and without an account.
func TestTextLineAsSlogWritesIt(t *testing.T) {
	t.Parallel()
	zone := time.FixedZone("x", -(3*3600 + 30*60))
	times := []time.Time{
		time.Date(2026, 11, 29, 5, 1, 2, 0, time.UTC),
		time.Date(2026, 11, 29, 5, 1, 2, 999_999_999, time.UTC),
		time.Date(2026, 11, 29, 5, 1, 2, 999_999_999, time.UTC).In(zone), // the same second in another zone
		time.Date(2026, 1, 2, 3, 4, 5, 120_000_000, zone),
		time.Now(), // with a monotonic reading
		time.Date(2026, 11, 29, 5, 1, 3, 1_000_000, time.UTC), // the next second
	}
	strs := []string{"", "plain", "two words", "a=b", `say "hi"`, `back\slash`, "tab\there", "nl\nx", "del\x7f",
		"bad\xffutf8", "é-ü-日本", "nbsp\u00a0x", "zw\u200bx", "\ufffd", "/api/v1/instances/12", "::1", "GET /instances/{instance_id}",
		`back\ and space`, "del and space\x7f", "é and space"}
	durations := []time.Duration{0, 999 * time.Nanosecond, 1234 * time.Microsecond, 16715 * time.Microsecond, 3 * time.Second}
	n := 0
	var sec secondText // shared, as a batch's is: seconds and zones change from line to line
	for i, s := range strs {
		for j, at := range times {
			e := accessEntry{id: s, at: at, method: strs[(i+1)%len(strs)], route: strs[(i+2)%len(strs)], path: s,
				client: strs[(i+3)%len(strs)], status: 200 + j, elapsed: durations[(i+j)%len(durations)],
				bytes: int64(i * 1000), accountID: int64(j % 2 * (i + 1))}
			var want bytes.Buffer
			writeAccess(slog.New(slog.NewTextHandler(&want, nil)), e)
			if got := appendTextLine(nil, e, &sec); string(got) != want.String() {
				t.Fatalf("entry %+v:\nby hand %q\nslog    %q", e, got, want.String())
			}
			n++
		}
	}
	// A console path's token is redacted in both.
	e := entry(1)
	e.path = "/console/abcdefghijklmnopqrstuvwxyz012345/ws"
	var want bytes.Buffer
	writeAccess(slog.New(slog.NewTextHandler(&want, nil)), e)
	if got := appendTextLine(nil, e, &sec); string(got) != want.String() || strings.Contains(string(got), "abcdefghijklmnop") {
		t.Fatalf("console path: by hand %q, slog %q", got, want.String())
	}
	t.Logf("%d lines compared", n+1)
}

// TestTextAccessLogWritesWhatSlogWould: a text access log (NewTextAccessLog) writes, once
// closed, every recorded line as slog's text handler does, in order, and nothing below its
// level: at warn it writes no access line.
func TestTextAccessLogWritesWhatSlogWould(t *testing.T) {
	t.Parallel()
	var got testbuf.Buffer
	l := NewTextAccessLog(&got, slog.LevelInfo)
	var want bytes.Buffer
	for i := range 50 {
		e := entry(i)
		l.record(e)
		writeAccess(slog.New(slog.NewTextHandler(&want, nil)), e)
	}
	l.Close()
	if got.String() != want.String() {
		t.Fatalf("the text access log wrote\n%s\nslog writes\n%s", got.String(), want.String())
	}
	quiet := NewTextAccessLog(io.Discard, slog.LevelWarn)
	defer quiet.Close()
	if quiet.enabled(t.Context()) {
		t.Fatal("a text access log at warn says access lines are enabled")
	}
}

// TestStreamingAnswerKeepsItsState holds a streamed answer open over a real connection (its
// first part flushed through the middleware's status writer with http.ResponseController)
// while hundreds of other requests take and return pooled request states and encode buffers,
// then finishes it: the stream's bytes arrive whole and in order, the others each get their
// own answer, and the stream's access line counts its own status and bytes. A request's state
// returned to the pool while its handler still wrote through it would mix answers or lines.
func TestStreamingAnswerKeepsItsState(t *testing.T) {
	t.Parallel()
	const others = 400
	var logs testbuf.Buffer
	access := NewAccessLog(slog.New(slog.NewTextHandler(&logs, nil)))
	h := newHandler(Config{Logger: slog.New(slog.DiscardHandler), AccessLog: access})
	release := make(chan struct{})
	mux := http.NewServeMux()
	h.handle(mux, "GET /api/v1/test/stream", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte("first;"))
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("flush through the middleware: %v", err)
		}
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		_, _ = w.Write([]byte("second;"))
	})
	h.handle(mux, "GET /api/v1/test/echo/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		h.ok(w, r, echoStatus(n), strings.Repeat(strconv.Itoa(n%10), n), nil) // the middleware's own buffer pool
	})
	srv := httptest.NewServer(h.wrap(mux))
	defer srv.Close()

	res, err := srv.Client().Get(srv.URL + "/api/v1/test/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	first := make([]byte, len("first;"))
	if _, err := io.ReadFull(res.Body, first); err != nil || string(first) != "first;" {
		t.Fatalf("the stream's first part: %q, %v", first, err)
	}
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Go(func() {
			for i := c; i < others; i += 4 {
				res, err := srv.Client().Get(srv.URL + "/api/v1/test/echo/" + strconv.Itoa(i))
				if err != nil {
					t.Error(err)
					return
				}
				body, _ := io.ReadAll(res.Body)
				_ = res.Body.Close()
				want := fmt.Sprintf(`{"success":true,"data":%q}`+"\n", strings.Repeat(strconv.Itoa(i%10), i))
				if res.StatusCode != echoStatus(i) || string(body) != want {
					t.Errorf("request %d: %d %q, want %d %q", i, res.StatusCode, body, echoStatus(i), want)
				}
			}
		})
	}
	wg.Wait()
	close(release)
	rest, err := io.ReadAll(res.Body)
	if err != nil || string(rest) != "second;" || res.StatusCode != http.StatusAccepted {
		t.Fatalf("the stream's end: %d %q, %v", res.StatusCode, rest, err)
	}
	srv.Close() // every handler has returned: its access line is queued
	access.Close()
	lines := logs.String()
	if !regexp.MustCompile(`route="GET /test/stream" path=/api/v1/test/stream status=202 duration_ms=\S+ bytes=13 `).MatchString(lines) {
		t.Fatalf("the stream's access line does not say 202 and 13 bytes:\n%s", grepLines(lines, "test/stream"))
	}
	for i := range others {
		want := fmt.Sprintf(`path=/api/v1/test/echo/%d status=%d duration_ms=\S+ bytes=%d `, i, echoStatus(i), i+len(`{"success":true,"data":""}`)+1)
		if !regexp.MustCompile(want).MatchString(lines) {
			t.Fatalf("request %d has no access line of its own (%s):\n%s", i, want, grepLines(lines, fmt.Sprintf("echo/%d ", i)))
		}
	}
}

// grepLines is the lines of s holding sub.
func grepLines(s, sub string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, sub) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
