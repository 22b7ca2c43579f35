package api

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/console"
)

// AccessLog writes the API's access lines (msg "request", one per answered request) off the
// requests' path. A request only puts its facts in a queue; one goroutine formats them and
// writes them, a batch per write when the log was made with a writer of its own
// (NewBatchedAccessLog, NewTextAccessLog), so a busy server makes one write for many lines
// instead of one per request. Formatting and writing the line synchronously cost a request about as much as its
// instance read (bench/README.md).
//
// Nothing is lost silently: when the queue is full the line is dropped and counted (Dropped,
// served as resellerd_access_log_dropped_total), and the goroutine logs a warning saying how
// many went. Close writes every line queued before it; a line recorded after Close is written
// at once, on the request's path. Lines may come out after other log lines of the same moment
// (an error logged while the request ran comes before its access line anyway).
type AccessLog struct {
	log   *slog.Logger // formats the lines, into batch when there is one, and the warnings
	batch *lineBatch   // nil: log writes each line itself
	// text: the lines are appended to batch by hand in slog's text format (appendTextLine),
	// not formatted by log (NewTextAccessLog).
	text    bool
	entries chan accessEntry
	// mu is held for reading while a line is queued and for writing by Close, so no line is
	// queued after the queue is closed.
	mu      sync.RWMutex
	closed  bool
	dropped atomic.Uint64
	closing chan struct{} // closed by Close, so the writer waits out no tick
	done    chan struct{} // closed when the goroutine has written everything and returned
}

// accessQueueSize is how many lines may wait for the writer: a few tenths of a second of the
// fastest request rate measured here (about 20,000/s), so that only a stalled log output
// (a blocked pipe, a full disk) drops lines.
const accessQueueSize = 8192

// accessTick is how long the writer gathers the lines of a busy server before it writes them:
// each line queued while it is parked wakes it (a goroutine switch, often a thread's wake-up,
// on every request), each line queued while it waits out a tick costs the request nothing but
// the queue. A line waits at most this long (a quiet server's is written at once).
const accessTick = 5 * time.Millisecond

// accessBatchBytes is how much a batch holds at most before it is written; the writer also
// writes whenever it has emptied the queue, so a quiet server's lines go out at once.
const accessBatchBytes = 64 << 10

// dropWarnEvery bounds how often the writer warns about dropped lines while they keep going.
const dropWarnEvery = time.Second

// accessEntry is what an access line says about one request, copied out of the request so the
// writer never touches the request or anything pooled with it.
type accessEntry struct {
	id, method, route, path, client string
	at                              time.Time // when the answer was done: the line's time
	status                          int
	elapsed                         time.Duration
	bytes                           int64
	accountID                       int64 // 0: not authenticated
}

// NewAccessLog returns an access log writing its lines through log, one write per line, from
// its own goroutine. Close it after the server has stopped answering.
func NewAccessLog(log *slog.Logger) *AccessLog {
	return newAccessLog(log, nil, accessQueueSize)
}

// NewBatchedAccessLog returns an access log that writes its lines to out in batches, each line
// formatted by the logger format makes over the writer it is given (the server's own format
// and level; it must write each line in one Write, as slog's handlers do). out is written from
// the log's goroutine while other loggers may write to it too: it must take concurrent writes
// (os.Stderr does). Close it after the server has stopped answering.
func NewBatchedAccessLog(out io.Writer, format func(io.Writer) *slog.Logger) *AccessLog {
	batch := &lineBatch{out: out}
	return newAccessLog(format(batch), batch, accessQueueSize)
}

// NewTextAccessLog returns an access log that writes its lines to out in batches, in the bytes
// slog.NewTextHandler(out, &slog.HandlerOptions{Level: level}) writes (serve's default format),
// appended by hand (appendTextLine), which costs a fraction of slog's formatting. out must take
// concurrent writes, as for NewBatchedAccessLog. Close it after the server has stopped
// answering.
func NewTextAccessLog(out io.Writer, level slog.Leveler) *AccessLog {
	batch := &lineBatch{out: out}
	log := slog.New(slog.NewTextHandler(batch, &slog.HandlerOptions{Level: level})) // its warnings
	return startAccessLog(&AccessLog{log: log, batch: batch, text: true}, accessQueueSize)
}

func newAccessLog(log *slog.Logger, batch *lineBatch, size int) *AccessLog {
	return startAccessLog(&AccessLog{log: log, batch: batch}, size)
}

// startAccessLog gives l its queue of size lines and starts its writer.
func startAccessLog(l *AccessLog, size int) *AccessLog {
	l.entries, l.closing, l.done = make(chan accessEntry, size), make(chan struct{}), make(chan struct{})
	go l.drain()
	return l
}

// Dropped is how many lines were dropped because the queue was full.
func (l *AccessLog) Dropped() uint64 { return l.dropped.Load() }

// Close writes every queued line and stops the goroutine. It waits for at most a queue's worth
// of writes. Lines recorded after it are written at once. It is safe to call more than once.
func (l *AccessLog) Close() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		<-l.done
		return
	}
	l.closed = true
	close(l.closing)
	close(l.entries)
	l.mu.Unlock()
	<-l.done
}

// enabled says whether access lines are written at all (the level is info or lower).
func (l *AccessLog) enabled(ctx context.Context) bool { return l.log.Enabled(ctx, slog.LevelInfo) }

// record queues e for the writer; a full queue drops it and counts it.
func (l *AccessLog) record(e accessEntry) {
	l.mu.RLock()
	if l.closed {
		l.mu.RUnlock()
		l.write(e)
		l.flush()
		return
	}
	select {
	case l.entries <- e:
	default:
		l.dropped.Add(1)
	}
	l.mu.RUnlock()
}

// drain is the writer. Parked on the empty queue, it writes the first line that comes at once;
// while lines keep coming it writes what queued every accessTick (or as soon as a batch is
// full), so a busy server's requests queue their lines without waking it, and it parks again
// once a tick brought nothing. It returns when Close has closed the queue and it has written
// every line.
func (l *AccessLog) drain() {
	defer close(l.done)
	var warned dropWarning
	tick := time.NewTimer(accessTick)
	tick.Stop()
	for e := range l.entries {
		l.write(e)
		for {
			open, full := l.takeQueued()
			warned.check(l.log, l.dropped.Load(), false)
			l.flush()
			if !open {
				break
			}
			if full {
				continue
			}
			tick.Reset(accessTick)
			select {
			case <-tick.C:
			case <-l.closing:
				tick.Stop()
			}
			if len(l.entries) == 0 {
				break // quiet again: park on the queue
			}
		}
	}
	warned.check(l.log, l.dropped.Load(), true)
	l.flush()
}

// takeQueued formats the lines already queued, without waiting, until the batch is full
// (full) or the queue is empty; open is false once the queue is closed and empty.
func (l *AccessLog) takeQueued() (open, full bool) {
	for l.batch == nil || l.batch.size() < accessBatchBytes {
		select {
		case e, ok := <-l.entries:
			if !ok {
				return false, false
			}
			l.write(e)
		default:
			return true, false
		}
	}
	return true, true
}

// flush writes the batch, if any.
func (l *AccessLog) flush() {
	if l.batch != nil {
		l.batch.flush()
	}
}

// dropWarning is the writer's memory of the drops it has warned about.
type dropWarning struct {
	reported uint64
	at       time.Time
}

// check warns once about the lines dropped since the last warning, at most every
// dropWarnEvery unless final (the log is closing).
func (w *dropWarning) check(log *slog.Logger, dropped uint64, final bool) {
	if dropped == w.reported || !final && time.Since(w.at) < dropWarnEvery {
		return
	}
	log.LogAttrs(context.Background(), slog.LevelWarn, "access log: lines dropped, the queue was full",
		slog.Uint64("dropped", dropped-w.reported), slog.Uint64("dropped_total", dropped))
	w.reported, w.at = dropped, time.Now()
}

// write writes e's access line: appended to the batch by hand for a text log, else formatted
// by the log's logger.
func (l *AccessLog) write(e accessEntry) {
	if l.text {
		l.batch.appendLine(e)
		return
	}
	writeAccess(l.log, e)
}

// writeAccess writes e's access line through log. It hands the record to the handler itself,
// as slog's own wrappers do, so no stack is walked for a caller the line never shows (a tenth of
// the writer's CPU in a profile). A handler's error has nowhere to go, as with Logger.
func writeAccess(log *slog.Logger, e accessEntry) {
	ctx := context.Background()
	h := log.Handler()
	if !h.Enabled(ctx, slog.LevelInfo) {
		return
	}
	r := slog.NewRecord(e.at, slog.LevelInfo, "request", 0)
	r.AddAttrs(slog.String("request_id", e.id), slog.String("method", e.method), slog.String("route", e.route),
		slog.String("path", console.RedactPath(e.path)), slog.Int("status", e.status),
		slog.Float64("duration_ms", float64(e.elapsed.Microseconds())/1000), slog.Int64("bytes", e.bytes),
		slog.String("client", e.client))
	if e.accountID != 0 {
		r.AddAttrs(slog.Int64("account_id", e.accountID))
	}
	_ = h.Handle(ctx, r)
}

// lineBatch is the buffer a batched access log's logger writes into, written to out by flush.
type lineBatch struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	out    io.Writer
	second secondText // the time text of the last line appended
}

// maxIdleBatch is the largest buffer a batch keeps between writes; a bigger one (a long burst
// of lines while the output stalled) goes to the GC.
const maxIdleBatch = 1 << 20

func (b *lineBatch) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// appendLine appends e's access line in slog's text format, straight into the buffer.
func (b *lineBatch) appendLine(e accessEntry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(appendTextLine(b.buf.AvailableBuffer(), e, &b.second))
}

func (b *lineBatch) size() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}

// flush writes what the batch holds in one write. A failed write is not reported: there is no
// log left to report it to (slog drops its handlers' write errors the same way).
func (b *lineBatch) flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() == 0 {
		return
	}
	_, _ = b.out.Write(b.buf.Bytes())
	b.buf.Reset()
	if b.buf.Cap() > maxIdleBatch {
		b.buf = bytes.Buffer{}
	}
}
