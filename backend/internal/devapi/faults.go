package devapi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
)

// CodeInjectedFault is the error code of an answer a fault rule made.
const CodeInjectedFault = "injected_fault"

// Bounds of the fault rules.
const (
	maxFaultRules   = 100
	maxFaultLatency = 30 * time.Second // below the listener's write timeout, so the answer still goes out
	maxFaultsBody   = 64 << 10
)

// FaultsConfig is what the fault rules need from the backend.
type FaultsConfig struct {
	// AccountOf is the account whose API key key is, authenticated as the API does (an error
	// for a wrong key); only rules with an account_id call it.
	AccountOf func(ctx context.Context, key string) (int64, error)
}

// Faults are `resellerd dev`'s fault rules (PUT /_dev/faults): they answer chosen API requests
// with an error, cut their connection or delay them, as a flaky network or an overloaded API
// would, so a client's retries can be tested. They apply to the API only (Wrap), never to
// /_dev/. It is safe for concurrent use.
type Faults struct {
	cfg    FaultsConfig
	routes *api.RouteMatcher
	resp   api.Responder
	roll   func() float64 // a number in [0, 1) for each rate

	mu    sync.Mutex
	rules []*faultRule
}

// NewFaults returns an empty set of fault rules.
func NewFaults(cfg FaultsConfig) *Faults {
	return &Faults{cfg: cfg, routes: api.NewRouteMatcher(), resp: api.NewResponder(nil), roll: rand.Float64}
}

// faultRule is a rule as it applies: its settings and, for a rule with a count, the faults left.
type faultRule struct {
	view      ruleJSON
	status    int // 0: none
	latency   time.Duration
	reset     bool
	rate      float64
	accountID int64 // 0: any request
	remaining int64 // with a count: the faults left; -1: no count
}

// ruleJSON is a rule as PUT /_dev/faults takes it and GET /_dev/faults shows it.
type ruleJSON struct {
	Route     *string  `json:"route"`
	Status    *int     `json:"status"`
	LatencyMS *int64   `json:"latency_ms"`
	Reset     *bool    `json:"reset"`
	Rate      *float64 `json:"rate"`
	Count     *int64   `json:"count"`
	AccountID *int64   `json:"account_id"`
}

// ruleView is a rule as GET /_dev/faults shows it: every field, with its default.
type ruleView struct {
	Route     string  `json:"route"`
	Status    *int    `json:"status"`
	LatencyMS int64   `json:"latency_ms"`
	Reset     bool    `json:"reset"`
	Rate      float64 `json:"rate"`
	Count     *int64  `json:"count"`
	AccountID *int64  `json:"account_id"`
	Remaining *int64  `json:"remaining"`
}

// faultsJSON is the body of PUT /_dev/faults and the data of its answers.
type faultsJSON[T any] struct {
	Rules []T `json:"rules"`
}

// Wrap applies the rules to every request to next, the API. The rules whose route and account
// match a request delay it by the longest of their latency_ms; then the first of them with a
// status or reset that fires (rate, count) answers it with the API's envelope and code
// injected_fault (429 with Retry-After: 1), or closes the connection without an answer.
func (f *Faults) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if neverFaulted(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		ex := exchangeOf(r.Context())
		ex.route = f.routes.Route(r)
		matching := f.matching(ex.route)
		if len(matching) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		acct := &keyAccount{key: api.Key(r)}
		matching = f.ofAccount(r.Context(), matching, acct)
		if !delay(r.Context(), longestLatency(matching)) {
			return // the client has gone; nobody to answer
		}
		rule := f.fire(matching)
		if rule == nil {
			next.ServeHTTP(w, r)
			return
		}
		ex.fault, ex.accountID = true, acct.id(r.Context(), f.cfg.AccountOf)
		f.answer(w, r, rule)
	})
}

// neverFaulted tells the paths no rule applies to, whatever its route ("*" included): the
// probes a container runtime or a load balancer calls (a liveness probe failed by a test's chaos
// would have the runtime kill the container) and the metrics a scraper reads, so a test's
// faults reach its client only.
func neverFaulted(path string) bool {
	switch path {
	case "/livez", "/readyz", "/metrics", "/api/v1/health":
		return true
	}
	return false
}

// matching are the rules on route still able to act, in their order.
func (f *Faults) matching(route string) []*faultRule {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*faultRule
	for _, rule := range f.rules {
		if (*rule.view.Route == "*" || *rule.view.Route == route) && rule.remaining != 0 {
			out = append(out, rule)
		}
	}
	return out
}

// keyAccount resolves a request's key to its account at most once, and only when asked.
type keyAccount struct {
	key      string
	resolved bool
	account  int64 // 0: no key, or not an account's
}

func (k *keyAccount) id(ctx context.Context, accountOf func(context.Context, string) (int64, error)) int64 {
	if k.resolved || k.key == "" || accountOf == nil {
		return k.account
	}
	k.resolved = true
	if id, err := accountOf(ctx, k.key); err == nil {
		k.account = id
	}
	return k.account
}

// ofAccount keeps the rules for any account and those for the account of the request's key.
func (f *Faults) ofAccount(ctx context.Context, rules []*faultRule, acct *keyAccount) []*faultRule {
	var out []*faultRule
	for _, rule := range rules {
		if rule.accountID == 0 || acct.id(ctx, f.cfg.AccountOf) == rule.accountID {
			out = append(out, rule)
		}
	}
	return out
}

func longestLatency(rules []*faultRule) time.Duration {
	var d time.Duration
	for _, rule := range rules {
		d = max(d, rule.latency)
	}
	return d
}

// delay waits d, or until ctx ends (false then).
func delay(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// fire is the first rule of rules with a status or reset whose rate lets it act now, its count
// taken down by one; nil when none does.
func (f *Faults) fire(rules []*faultRule) *faultRule {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, rule := range rules {
		if (rule.status == 0 && !rule.reset) || rule.remaining == 0 || f.roll() >= rule.rate {
			continue
		}
		if rule.remaining > 0 {
			rule.remaining--
		}
		return rule
	}
	return nil
}

// answer makes rule's fault: a closed connection, or its status in the API's envelope.
func (f *Faults) answer(w http.ResponseWriter, r *http.Request, rule *faultRule) {
	if rule.reset {
		panic(http.ErrAbortHandler) // net/http closes the connection without an answer
	}
	if rule.status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	f.resp.Fail(w, r, &service.Error{Kind: faultKind(rule.status), Code: CodeInjectedFault,
		Message: fmt.Sprintf("injected fault: a rule of /_dev/faults on %q answered %d", *rule.view.Route, rule.status)})
}

// faultKind is the kind of error the API answers with status.
func faultKind(status int) service.Kind {
	switch status {
	case http.StatusTooManyRequests:
		return service.KindRateLimited
	case http.StatusBadGateway:
		return service.KindProvider
	case http.StatusServiceUnavailable:
		return service.KindUnavailable
	default:
		return service.KindInternal
	}
}

// set replaces the rules.
func (f *Faults) set(rules []*faultRule) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = rules
}

// views are the rules as GET /_dev/faults shows them.
func (f *Faults) views() faultsJSON[ruleView] {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := faultsJSON[ruleView]{Rules: []ruleView{}}
	for _, rule := range f.rules {
		v := ruleView{Route: *rule.view.Route, Status: rule.view.Status, LatencyMS: rule.latency.Milliseconds(),
			Reset: rule.reset, Rate: rule.rate, Count: rule.view.Count, AccountID: rule.view.AccountID}
		if rule.remaining >= 0 {
			left := rule.remaining
			v.Remaining = &left
		}
		out.Rules = append(out.Rules, v)
	}
	return out
}

// parseRules checks the rules of a PUT /_dev/faults, naming the field of the first mistake
// (rules[1].status).
func (f *Faults) parseRules(in []ruleJSON) ([]*faultRule, error) {
	if len(in) > maxFaultRules {
		return nil, service.Validation("rules", "at most %d rules", maxFaultRules)
	}
	out := make([]*faultRule, 0, len(in))
	for i, r := range in {
		rule, err := f.parseRule("rules["+strconv.Itoa(i)+"].", r)
		if err != nil {
			return nil, err
		}
		out = append(out, rule)
	}
	return out, nil
}

func (f *Faults) parseRule(at string, r ruleJSON) (*faultRule, error) {
	rule := &faultRule{view: r, rate: 1, remaining: -1}
	switch {
	case r.Route == nil:
		return nil, service.Validation(at+"route", `is required: "*" or a route of the API as the access log names it, such as "POST /instances"`)
	case *r.Route != "*" && !f.routes.Has(*r.Route):
		return nil, service.Validation(at+"route", `%q is not a route of the API: use "*" or a route as the access log names it, such as "POST /instances" or "GET /instances/{instance_id}"`, *r.Route)
	case r.Status != nil && !faultStatus(*r.Status):
		return nil, service.Validation(at+"status", "must be 429, 500, 502 or 503")
	case r.LatencyMS != nil && (*r.LatencyMS < 0 || *r.LatencyMS > maxFaultLatency.Milliseconds()):
		return nil, service.Validation(at+"latency_ms", "must be from 0 to %d", maxFaultLatency.Milliseconds())
	case r.Rate != nil && (*r.Rate < 0 || *r.Rate > 1):
		return nil, service.Validation(at+"rate", "must be from 0 to 1")
	case r.Count != nil && *r.Count < 0:
		return nil, service.Validation(at+"count", "must be 0 or more")
	case r.AccountID != nil && *r.AccountID < 1:
		return nil, service.Validation(at+"account_id", "must be a positive integer")
	case r.Reset != nil && *r.Reset && r.Status != nil:
		return nil, service.Validation(at+"reset", "cannot be combined with status: a reset answers nothing")
	}
	if r.Status != nil {
		rule.status = *r.Status
	}
	if r.LatencyMS != nil {
		rule.latency = time.Duration(*r.LatencyMS) * time.Millisecond
	}
	rule.reset = r.Reset != nil && *r.Reset
	if r.Rate != nil {
		rule.rate = *r.Rate
	}
	if r.Count != nil {
		rule.remaining = *r.Count
	}
	if r.AccountID != nil {
		rule.accountID = *r.AccountID
	}
	if rule.status == 0 && !rule.reset && rule.latency == 0 {
		return nil, service.Validation(at+"status", "a rule needs status, reset or latency_ms")
	}
	return rule, nil
}

func faultStatus(s int) bool {
	switch s {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable:
		return true
	}
	return false
}

// putFaults serves PUT /_dev/faults: the rules of the body replace every rule.
func (h handler) putFaults(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Rules *[]ruleJSON `json:"rules"`
	}
	if err := api.DecodeBody(r, &in, maxFaultsBody); err != nil {
		h.resp.Fail(w, r, err)
		return
	}
	if in.Rules == nil {
		h.resp.Fail(w, r, service.Validation("rules", "is required: a list of rules, [] for none"))
		return
	}
	rules, err := h.cfg.Faults.parseRules(*in.Rules)
	if err != nil {
		h.resp.Fail(w, r, err)
		return
	}
	h.cfg.Faults.set(rules)
	h.resp.OK(w, r, h.cfg.Faults.views())
}

// listFaults serves GET /_dev/faults.
func (h handler) listFaults(w http.ResponseWriter, r *http.Request) {
	h.resp.OK(w, r, h.cfg.Faults.views())
}

// clearFaults serves DELETE /_dev/faults.
func (h handler) clearFaults(w http.ResponseWriter, r *http.Request) {
	h.cfg.Faults.set(nil)
	h.resp.OK(w, r, h.cfg.Faults.views())
}
