package devapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/console"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
)

// DefaultJournalSize is how many entries the journal keeps unless --journal-size says otherwise.
const DefaultJournalSize = 1000

// MaxJournalSize bounds --journal-size: with bodies of at most maxJournalBody each, the journal
// stays within what a developer's machine spares a test double.
const MaxJournalSize = 10000

// Directions of journal entries.
const (
	DirectionIn  = "in"  // a request to the API
	DirectionOut = "out" // a webhook delivery attempt
)

// Journal limits of GET /_dev/requests.
const (
	defaultListLimit = 100
	maxListLimit     = 1000
)

// journalTime is how entries show the service's clock: RFC 3339 with milliseconds.
const journalTime = "2006-01-02T15:04:05.000Z07:00"

// Entry is one request to the API or one webhook delivery attempt, as GET /_dev/requests shows
// it. Bodies are JSON values with their secrets redacted; the API key is never recorded.
type Entry struct {
	ID             int64           `json:"id"`
	Time           string          `json:"time"`
	Direction      string          `json:"direction"`
	Method         string          `json:"method"`
	Path           string          `json:"path"`
	Route          string          `json:"route"`
	Status         *int            `json:"status"`
	DurationMS     float64         `json:"duration_ms"`
	AccountID      *int64          `json:"account_id"`
	IdempotencyKey *string         `json:"idempotency_key"`
	RequestBody    json.RawMessage `json:"request_body"`
	ResponseBody   json.RawMessage `json:"response_body"`
	Fault          bool            `json:"fault"`
}

// JournalConfig shapes a journal.
type JournalConfig struct {
	// Size is how many entries are kept, the oldest dropped first; 0 keeps none (NewJournal
	// returns nil).
	Size int
	// Clock is the service's clock, which entries are timed by.
	Clock interface{ Now() time.Time }
	// Catalog says which app inputs are passwords, to redact them.
	Catalog *catalog.Catalog
}

// Journal is `resellerd dev`'s request journal: the last Size requests to the API (Wrap) and
// webhook delivery attempts (DeliveryAttempted), so another team's failing test can see what it
// sent and what came back. A nil *Journal records nothing. It is safe for concurrent use.
type Journal struct {
	clock  interface{ Now() time.Time }
	redact redactor

	mu      sync.Mutex
	entries []Entry // a ring of len Size
	next    int     // where the next entry goes
	held    int     // how many entries the ring holds
	lastID  int64
}

// NewJournal returns a journal of cfg.Size entries, or nil when cfg.Size is 0.
func NewJournal(cfg JournalConfig) *Journal {
	if cfg.Size <= 0 {
		return nil
	}
	return &Journal{clock: cfg.Clock, redact: newRedactor(cfg.Catalog), entries: make([]Entry, cfg.Size)}
}

// add records e under the next id.
func (j *Journal) add(e Entry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.lastID++
	e.ID = j.lastID
	j.entries[j.next] = e
	j.next = (j.next + 1) % len(j.entries)
	j.held = min(j.held+1, len(j.entries))
}

// list is the entries f selects, newest first.
func (j *Journal) list(f journalFilter) []Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := []Entry{}
	for i := 0; i < j.held && len(out) < f.limit; i++ {
		e := j.entries[(j.next-1-i+2*len(j.entries))%len(j.entries)]
		if f.match(e) {
			out = append(out, e)
		}
	}
	return out
}

// clear empties the journal and says how many entries it dropped; ids keep increasing.
func (j *Journal) clear() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := j.held
	clear(j.entries)
	j.next, j.held = 0, 0
	return n
}

// exchange is what the layers dev puts around the API learn about one request: the fault
// rules name its route and account and say whether they answered it, for the journal.
type exchange struct {
	route     string
	accountID int64
	fault     bool
}

type exchangeKey struct{}

// exchangeOf is the exchange of the request of ctx; a throwaway one when the journal is off.
func exchangeOf(ctx context.Context) *exchange {
	if ex, ok := ctx.Value(exchangeKey{}).(*exchange); ok {
		return ex
	}
	return &exchange{}
}

// Wrap journals every request to next, the API, but its probes (/livez and /readyz, which a
// container runtime may call every second). A nil journal returns next.
func (j *Journal) Wrap(next http.Handler) http.Handler {
	if j == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/livez" || r.URL.Path == "/readyz" {
			next.ServeHTTP(w, r)
			return
		}
		at, start := j.clock.Now(), time.Now()
		reqBody, reqSize := peekBody(r)
		ex := &exchange{}
		r, facts := api.Track(r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex)))
		cw := &captureWriter{ResponseWriter: w}
		defer func() {
			v := recover() // a fault's reset, or an API list cut short: journaled, then passed on
			j.add(j.inEntry(r, at, time.Since(start), reqBody, reqSize, cw, facts(), ex))
			if v != nil {
				panic(v)
			}
		}()
		next.ServeHTTP(cw, r)
	})
}

// inEntry is the entry of a request the API (or a fault rule) answered through cw, or did not
// answer at all (status null).
func (j *Journal) inEntry(r *http.Request, at time.Time, elapsed time.Duration, reqBody []byte, reqSize int64,
	cw *captureWriter, facts api.Facts, ex *exchange) Entry {
	e := Entry{Time: at.UTC().Format(journalTime), Direction: DirectionIn, Method: r.Method, Path: console.RedactPath(r.URL.Path),
		Route: facts.Route, DurationMS: milliseconds(elapsed), Fault: ex.fault,
		RequestBody: j.redact.body(reqBody, reqSize), ResponseBody: j.redact.body(cw.body.Bytes(), cw.size)}
	if e.Route == "" { // the API never saw it: a fault rule answered
		e.Route = ex.route
	}
	if id := cmp.Or(facts.AccountID, ex.accountID); id != 0 {
		e.AccountID = &id
	}
	if cw.status != 0 {
		status := cw.status
		e.Status = &status
	}
	if k := r.Header.Get("Idempotency-Key"); k != "" {
		e.IdempotencyKey = &k
	}
	return e
}

// DeliveryAttempted journals a webhook delivery attempt (it is the backend's
// DeliveryObserver): method POST to the receiver's URL (without credentials or query), route
// "webhook EVENT", the delivery id as its idempotency_key (receivers deduplicate by it), the
// event as request_body and no response_body.
func (j *Journal) DeliveryAttempted(a service.DeliveryAttempt) {
	if j == nil {
		return
	}
	e := Entry{Time: a.At.UTC().Format(journalTime), Direction: DirectionOut, Method: http.MethodPost,
		Path: receiverAddress(a.URL), Route: "webhook " + a.Event, DurationMS: milliseconds(a.Elapsed),
		RequestBody: j.redact.body(a.Body, int64(len(a.Body)))}
	if a.AccountID != 0 {
		id := a.AccountID
		e.AccountID = &id
	}
	if a.Status != 0 {
		status := a.Status
		e.Status = &status
	}
	if a.DeliveryID != "" {
		id := a.DeliveryID
		e.IdempotencyKey = &id
	}
	j.add(e)
}

// receiverAddress is a webhook URL without its user information and query, which may carry
// a token.
func receiverAddress(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

func milliseconds(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// peekBody reads the first maxJournalBody+1 bytes of r's body for the journal and leaves the
// body whole for the handler; it returns them and the body's size as far as it is known (the
// Content-Length, or what was read).
func peekBody(r *http.Request) ([]byte, int64) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, 0
	}
	head, _ := io.ReadAll(io.LimitReader(r.Body, maxJournalBody+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	return head, max(r.ContentLength, int64(len(head)))
}

// captureWriter passes an answer on and keeps its status and its first maxJournalBody+1 bytes.
type captureWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
	size   int64
}

func (c *captureWriter) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
	c.ResponseWriter.WriteHeader(status)
}

func (c *captureWriter) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	if room := maxJournalBody + 1 - c.body.Len(); room > 0 {
		c.body.Write(b[:min(room, len(b))])
	}
	c.size += int64(len(b))
	return c.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (c *captureWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// journalFilter is the query of GET /_dev/requests.
type journalFilter struct {
	method, route, direction string
	status                   int
	accountID                int64
	limit                    int
}

func (f journalFilter) match(e Entry) bool {
	return (f.method == "" || strings.EqualFold(f.method, e.Method)) &&
		(f.route == "" || f.route == e.Route) &&
		(f.direction == "" || f.direction == e.Direction) &&
		(f.status == 0 || e.Status != nil && *e.Status == f.status) &&
		(f.accountID == 0 || e.AccountID != nil && *e.AccountID == f.accountID)
}

// parseJournalFilter reads the query of GET /_dev/requests; a bad or unknown parameter is a
// validation_error naming it.
func parseJournalFilter(rawQuery string) (journalFilter, error) {
	f := journalFilter{limit: defaultListLimit}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return f, service.Validation("query", "is malformed: %v", err)
	}
	for name := range q {
		switch name {
		case "method", "route", "status", "account_id", "direction", "limit":
		default:
			return f, service.Validation(name, "is not a filter of the journal; use method, route, status, account_id, direction or limit")
		}
	}
	f.method, f.route = q.Get("method"), q.Get("route")
	if q.Has("direction") {
		f.direction = q.Get("direction")
		if f.direction != DirectionIn && f.direction != DirectionOut {
			return f, service.Validation("direction", "must be in (API requests) or out (webhook deliveries)")
		}
	}
	if q.Has("status") {
		n, err := strconv.Atoi(q.Get("status"))
		if err != nil || n < 100 || n > 599 {
			return f, service.Validation("status", "must be an HTTP status from 100 to 599")
		}
		f.status = n
	}
	if q.Has("account_id") {
		n, err := strconv.ParseInt(q.Get("account_id"), 10, 64)
		if err != nil || n < 1 {
			return f, service.Validation("account_id", "must be a positive integer")
		}
		f.accountID = n
	}
	if q.Has("limit") {
		n, err := strconv.Atoi(q.Get("limit"))
		if err != nil || n < 1 || n > maxListLimit {
			return f, service.Validation("limit", "must be an integer from 1 to %d", maxListLimit)
		}
		f.limit = n
	}
	return f, nil
}

// journalOff answers the journal's routes when --journal-size is 0.
func journalOff() error {
	return &service.Error{Kind: service.KindNotFound, Code: service.CodeNotFound,
		Message: "the request journal is off: resellerd dev was started with --journal-size 0"}
}

// listRequests serves GET /_dev/requests.
func (h handler) listRequests(w http.ResponseWriter, r *http.Request) {
	if h.cfg.Journal == nil {
		h.resp.Fail(w, r, journalOff())
		return
	}
	f, err := parseJournalFilter(r.URL.RawQuery)
	if err != nil {
		h.resp.Fail(w, r, err)
		return
	}
	h.resp.OK(w, r, h.cfg.Journal.list(f))
}

// clearRequests serves DELETE /_dev/requests.
func (h handler) clearRequests(w http.ResponseWriter, r *http.Request) {
	if h.cfg.Journal == nil {
		h.resp.Fail(w, r, journalOff())
		return
	}
	h.resp.OK(w, r, map[string]any{"cleared": h.cfg.Journal.clear()})
}
