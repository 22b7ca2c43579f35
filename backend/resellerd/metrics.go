package resellerd

import (
	"context"
	"database/sql"
	"log/slog"
	"maps"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// metrics are one Server's Prometheus instruments, in a registry of its own (no global state:
// tests run many servers in one process). The API tells it about requests (api.Observer), the
// service about webhook deliveries; the queues and the pools are read at each scrape.
type metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	rateLimited *prometheus.CounterVec
	deliveries  *prometheus.CounterVec
	revivals    *prometheus.CounterVec

	// series are the request counter and duration histogram of each route, method and status
	// seen, so that counting a request hashes and allocates nothing (WithLabelValues does both
	// twice). The routes, methods and statuses are bounded sets (route patterns, methodLabel),
	// as the vectors' own children are, so a new series is rare: it copies the map (under
	// seriesMu), and every request reads the map it finds without a lock, which on two cores
	// serving at once was a cache line both kept taking from the other.
	seriesMu sync.Mutex
	series   atomic.Pointer[map[requestKey]requestSeries]
}

// requestKey names a request's series.
type requestKey struct {
	route, method string
	status        int
}

// requestSeries are the children of the request vectors for one requestKey.
type requestSeries struct {
	count    prometheus.Counter
	duration prometheus.Observer
}

// newMetrics registers the request, delivery and rate-limit instruments and the Go and process
// collectors.
func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "resellerd_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "resellerd_http_request_duration_seconds",
			Help:    "Time from a request's arrival to its answer, by route pattern and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 20},
		}, []string{"route", "method"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "resellerd_rate_limited_total",
			Help: "Requests refused with 429 by a rate limit, by route pattern.",
		}, []string{"route"}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "resellerd_webhook_deliveries_total",
			Help: "Recorded webhook delivery attempts by outcome: delivered, retry, failed (given up), skipped.",
		}, []string{"outcome"}),
		revivals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "resellerd_machine_restarts_total",
			Help: "Machines (--machines sandbox) found down and booted again, by reason (exited: their init or agent died; unresponsive: their agent stopped answering) and outcome (booted, failed).",
		}, []string{"reason", "outcome"}),
	}
	m.reg.MustRegister(m.requests, m.duration, m.rateLimited, m.deliveries, m.revivals,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Request counts one answered request (api.Observer).
func (m *metrics) Request(route, method string, status int, elapsed time.Duration) {
	s := m.seriesOf(requestKey{route: route, method: method, status: status})
	s.count.Inc()
	s.duration.Observe(elapsed.Seconds())
}

// seriesOf is k's series, looked up once in the vectors and kept.
func (m *metrics) seriesOf(k requestKey) requestSeries {
	if s, ok := m.knownSeries(k); ok {
		return s
	}
	m.seriesMu.Lock()
	defer m.seriesMu.Unlock()
	if s, ok := m.knownSeries(k); ok { // another request added it meanwhile
		return s
	}
	s := requestSeries{count: m.requests.WithLabelValues(k.route, k.method, strconv.Itoa(k.status)),
		duration: m.duration.WithLabelValues(k.route, k.method)}
	grown := map[requestKey]requestSeries{k: s}
	if known := m.series.Load(); known != nil {
		maps.Copy(grown, *known)
	}
	m.series.Store(&grown)
	return s
}

// knownSeries is k's series if the map holds it.
func (m *metrics) knownSeries(k requestKey) (requestSeries, bool) {
	known := m.series.Load()
	if known == nil {
		return requestSeries{}, false
	}
	s, ok := (*known)[k]
	return s, ok
}

// RateLimited counts one request refused by a rate limit (api.Observer).
func (m *metrics) RateLimited(route string) { m.rateLimited.WithLabelValues(route).Inc() }

// delivery counts one recorded webhook delivery attempt (service.Config.OnDelivery).
func (m *metrics) delivery(outcome string) { m.deliveries.WithLabelValues(outcome).Inc() }

// machineRevived counts one machine found down and booted again (sandbox.Options.Revived).
func (m *metrics) machineRevived(reason string, err error) {
	outcome := "booted"
	if err != nil {
		outcome = "failed"
	}
	m.revivals.WithLabelValues(reason, outcome).Inc()
}

// watchAccessLog adds resellerd_access_log_dropped_total, the access lines dropped because the
// access log's queue was full (its output stalled), read from the log at each scrape.
func (m *metrics) watchAccessLog(l *api.AccessLog) {
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "resellerd_access_log_dropped_total",
		Help: "Access log lines dropped because the queue to the log's writer was full (the log output stalled or could not keep up).",
	}, func() float64 { return float64(l.Dropped()) }))
}

// watchStore adds the collectors that read the store at each scrape: the database pools
// (go_sql_*, one db_name per pool) and how late each worker queue is.
func (m *metrics) watchStore(st any, clock Clock, log *slog.Logger) {
	if p, ok := st.(interface{ Pools() map[string]*sql.DB }); ok {
		for name, db := range p.Pools() {
			m.reg.MustRegister(collectors.NewDBStatsCollector(db, name))
		}
	}
	if q, ok := st.(oldestDueReader); ok {
		m.reg.MustRegister(&queueLag{store: q, clock: clock, log: log})
	}
}

// handler serves the registry in Prometheus's text format.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// oldestDueReader is a store that can say how late its queues are.
type oldestDueReader interface {
	OldestDue(ctx context.Context) (store.OldestDue, error)
}

// scrapeTimeout bounds the store read of one scrape.
const scrapeTimeout = time.Second

// queueLag is resellerd_work_oldest_due_seconds: per worker queue, how long ago its oldest due
// item became due (0 when nothing waits). A worker that keeps up holds it near 0 (provisioning:
// near the deploy delay); a growing value is a worker falling behind.
type queueLag struct {
	store oldestDueReader
	clock Clock
	log   *slog.Logger
}

var queueLagDesc = prometheus.NewDesc("resellerd_work_oldest_due_seconds",
	"How long ago the oldest due item of each worker queue became due (provisioning: the age of the oldest pending order); 0 when none waits.",
	[]string{"queue"}, nil)

func (q *queueLag) Describe(ch chan<- *prometheus.Desc) { ch <- queueLagDesc }

func (q *queueLag) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	due, err := q.store.OldestDue(ctx)
	if err != nil {
		q.log.WarnContext(ctx, "metrics: oldest due", slog.Any("error", err))
		ch <- prometheus.NewInvalidMetric(queueLagDesc, err)
		return
	}
	now := q.clock.Now()
	for _, queue := range []struct {
		name string
		at   time.Time
	}{
		{"provisioning", due.Provisioning}, {"deliveries", due.Deliveries}, {"renewals", due.Renewals},
		{"installs", due.Installs}, {"snapshots", due.Snapshots},
	} {
		late := 0.0
		if !queue.at.IsZero() {
			late = max(0, now.Sub(queue.at).Seconds())
		}
		ch <- prometheus.MustNewConstMetric(queueLagDesc, prometheus.GaugeValue, late, queue.name)
	}
}
