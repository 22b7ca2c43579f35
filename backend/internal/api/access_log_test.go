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
	var out bytes.Buffer
	l := NewBatchedAccessLog(&lockedBuffer{buf: &out}, textFormat)
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

// lockedBuffer is a buffer the log's writer and the test may share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf *bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
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
	h := newTestHandler(t, &logs, func(mux *http.ServeMux) {
		mux.HandleFunc("GET /api/v1/test/echo/{n}", func(w http.ResponseWriter, r *http.Request) {
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
