package apitest

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

func TestAuthentication(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.account(t, 0).APIKey
	blocked := e.account(t, 0)
	if err := e.srv.SetBlocked(context.Background(), blocked.ID, true); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		req    request
		status int
		code   string
	}{
		{"no key", request{}, http.StatusUnauthorized, "unauthorized"},
		{"wrong X-API-Token", request{Key: "wrong"}, http.StatusUnauthorized, "unauthorized"},
		{"wrong bearer", request{Key: "wrong", Bearer: true}, http.StatusUnauthorized, "unauthorized"},
		{"key with another scheme", request{Header: map[string]string{"Authorization": "Basic " + key}}, http.StatusUnauthorized, "unauthorized"},
		{"X-API-Token", request{Key: key}, http.StatusOK, ""},
		{"bearer", request{Key: key, Bearer: true}, http.StatusOK, ""},
		{"bearer in lower case", request{Header: map[string]string{"Authorization": "bearer " + key}}, http.StatusOK, ""},
		{"blocked account", request{Key: blocked.APIKey}, http.StatusForbidden, "forbidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, path := range []string{"/account", "/account/balance", "/catalog/servers", "/quote"} {
				r := tt.req
				r.Path = path
				if path == "/quote" {
					r.Method, r.Body = http.MethodPost, `{"server_id": 101}`
				}
				e.do(t, r).WantStatus(t, tt.status, tt.code)
			}
		})
	}
	t.Run("unblocking restores access", func(t *testing.T) {
		if err := e.srv.SetBlocked(context.Background(), blocked.ID, false); err != nil {
			t.Fatal(err)
		}
		e.do(t, request{Path: "/account", Key: blocked.APIKey}).WantStatus(t, http.StatusOK, "")
	})
}

func TestAccount(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	created, err := e.srv.CreateAccount(context.Background(), resellerd.NewAccount{ServerLimit: 3, OrderLimit: 2, Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	defaults := e.account(t, 0)

	var got api.AccountView
	e.do(t, request{Path: "/account", Key: created.APIKey}).Data(t, &got)
	if got.ID != created.ID || got.APIKeyHint == nil || *got.APIKeyHint != created.APIKey[:8] ||
		got.ServerLimit != 3 || got.APIOrderLimit != 2 || got.Language != "en" || got.WebhookConfigured {
		t.Fatalf("got %+v, want id %d, hint %q, limits 3/2, en", got, created.ID, created.APIKey[:8])
	}
	if got.APIKeyCreatedAt == nil || *got.APIKeyCreatedAt != "2025-06-01T10:00:00Z" {
		t.Fatalf("api_key_created_at = %v, want the clock's time in RFC 3339 UTC", got.APIKeyCreatedAt)
	}
	e.do(t, request{Path: "/account", Key: defaults.APIKey}).Data(t, &got)
	if got.ServerLimit != 10 || got.APIOrderLimit != 5 || got.Language != "fa" {
		t.Fatalf("defaults: got %+v, want 10, 5, fa", got)
	}
}

func TestRotateKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	a := e.account(t, 0)
	e.clock.Advance(time.Hour)
	newKey, err := e.srv.RotateKey(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if newKey == a.APIKey || len(newKey) != 64 {
		t.Fatalf("new key %q: want a different 64-character key", newKey)
	}
	e.do(t, request{Path: "/account", Key: a.APIKey}).WantStatus(t, http.StatusUnauthorized, "unauthorized")
	var got api.AccountView
	r := e.do(t, request{Path: "/account", Key: newKey})
	r.WantStatus(t, http.StatusOK, "")
	r.Data(t, &got)
	if got.APIKeyHint == nil || *got.APIKeyHint != newKey[:8] || got.APIKeyCreatedAt == nil || *got.APIKeyCreatedAt != "2025-06-01T11:00:00Z" {
		t.Fatalf("got %+v, want hint %q created 11:00", got, newKey[:8])
	}
	if _, err := e.srv.RotateKey(ctx, 999); err == nil {
		t.Fatal("rotating the key of an unknown account: got nil error")
	}
}

func TestAccountAdminErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	a := e.account(t, 0)
	checks := []struct {
		name string
		err  error
	}{
		{"negative balance", func() error { _, err := e.srv.CreateAccount(ctx, resellerd.NewAccount{BalanceMicros: -1}); return err }()},
		{"unknown language", func() error { _, err := e.srv.CreateAccount(ctx, resellerd.NewAccount{Language: "de"}); return err }()},
		{"negative limit", func() error { _, err := e.srv.CreateAccount(ctx, resellerd.NewAccount{ServerLimit: -1}); return err }()},
		{"zero top-up", e.srv.TopUp(ctx, a.ID, 0, "card")},
		{"unknown payment type", e.srv.TopUp(ctx, a.ID, 1, "cash")},
		{"top-up of unknown account", e.srv.TopUp(ctx, 999, 1, "card")},
		{"block unknown account", e.srv.SetBlocked(ctx, 999, true)},
		{"kyc unknown account", e.srv.SetKYCVerified(ctx, 999, true)},
		{"apps unknown account", e.srv.SetAppsEnabled(ctx, 999, true)},
	}
	for _, c := range checks {
		if c.err == nil {
			t.Errorf("%s: got nil error", c.name)
		}
	}
}

func TestBalance(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.account(t, 10_000_000)
	var got api.BalanceView
	r := e.do(t, request{Path: "/account/balance", Key: a.APIKey})
	r.WantStatus(t, http.StatusOK, "")
	r.Data(t, &got)
	if got != (api.BalanceView{Balance: usd(10), Available: usd(10)}) {
		t.Fatalf("got %+v, want balance 10 available 10 and nothing else", got)
	}
	if want := `"hours_until_balance_zero":null`; !contains(r.Raw, want) {
		t.Fatalf("body %s lacks %s", r.Raw, want)
	}

	ctx := context.Background()
	for _, o := range []store.Order{
		{AccountID: a.ID, Status: store.OrderPending, Price: 2_500_000, CreatedAt: e.clock.Now()},
		{AccountID: a.ID, Status: store.OrderPending, Price: 417, CreatedAt: e.clock.Now()},
		{AccountID: a.ID, Status: "deployed", Price: 1_000_000, CreatedAt: e.clock.Now()},
	} {
		placed, _, err := e.database(t).PlaceOrder(ctx, o, nil)
		if err == nil && o.Status != store.OrderPending {
			err = e.database(t).FinishOrder(ctx, placed.ID, o.Status, o.CreatedAt, 0, "")
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	r = e.do(t, request{Path: "/account/balance", Key: a.APIKey})
	r.Data(t, &got)
	if dollars(got.Reserved) != 2.500417 || dollars(got.Available) != 7.499583 || got.PendingOrders != 2 || dollars(got.Balance) != 10 {
		t.Fatalf("got %+v, want reserved 2.500417, available 7.499583, 2 pending", got)
	}
	if !contains(r.Raw, `"reserved":2.500417`) {
		t.Fatalf("reserved is not written exactly: %s", r.Raw)
	}
}

func TestTopUpReconcilesLedger(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	a := e.account(t, 100_000_000)
	e.clock.Advance(time.Minute)
	if err := e.srv.TopUp(ctx, a.ID, 50_000_000, "card"); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Minute)
	if err := e.srv.TopUp(ctx, a.ID, 417, ""); err != nil {
		t.Fatal(err)
	}
	acct, err := e.database(t).Account(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := e.database(t).LedgerSum(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(150_000_417); int64(acct.Balance) != want || int64(sum) != want {
		t.Fatalf("balance %d, ledger sum %d; want both %d", acct.Balance, sum, want)
	}

	var payments []api.PaymentView
	e.do(t, request{Path: "/account/payments", Key: a.APIKey}).Data(t, &payments)
	want := []struct {
		amount float64
		typ    string
		paidAt string
	}{
		{0.000417, "manual", "2025-06-01T10:02:00Z"},
		{50, "card", "2025-06-01T10:01:00Z"},
		{100, "manual", "2025-06-01T10:00:00Z"},
	}
	if len(payments) != len(want) {
		t.Fatalf("got %d payments, want %d", len(payments), len(want))
	}
	for i, w := range want {
		p := payments[i]
		if dollars(p.Amount) != w.amount || p.PaymentType == nil || *p.PaymentType != w.typ || p.PaidAt == nil || *p.PaidAt != w.paidAt {
			t.Fatalf("payment %d = %+v, want %+v (newest first)", i, p, w)
		}
	}
}

func TestPaymentsPagination(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	a := e.account(t, 0)
	for i := 1; i <= 7; i++ {
		e.clock.Advance(time.Second)
		if err := e.srv.TopUp(ctx, a.ID, int64(i)*1_000_000, "card"); err != nil {
			t.Fatal(err)
		}
	}
	other := e.account(t, 5_000_000) // must never show in a's list

	tests := []struct {
		query      string
		status     int
		wantCount  int
		wantFirst  float64
		wantPaging bool
	}{
		{"", http.StatusOK, 7, 7, false},
		{"?offset=5", http.StatusOK, 2, 2, false},
		{"?limit=3", http.StatusOK, 3, 7, true},
		{"?limit=3&offset=6", http.StatusOK, 1, 1, true},
		{"?limit=500&offset=100", http.StatusOK, 0, 0, true},
		{"?limit=1", http.StatusOK, 1, 7, true},
		{"?limit=0", http.StatusBadRequest, 0, 0, false},
		{"?limit=501", http.StatusBadRequest, 0, 0, false},
		{"?limit=x", http.StatusBadRequest, 0, 0, false},
		{"?limit=", http.StatusBadRequest, 0, 0, false},
		{"?limit=-1", http.StatusBadRequest, 0, 0, false},
		{"?offset=-1", http.StatusBadRequest, 0, 0, false},
		{"?offset=y", http.StatusBadRequest, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := e.do(t, request{Path: "/account/payments" + tt.query, Key: a.APIKey})
			if tt.status != http.StatusOK {
				r.WantStatus(t, tt.status, "validation_error")
				field := "limit"
				if contains([]byte(tt.query), "offset") {
					field = "offset"
				}
				if !contains([]byte(r.Body.Error.Message), field) {
					t.Fatalf("message %q does not name %s", r.Body.Error.Message, field)
				}
				return
			}
			r.WantStatus(t, http.StatusOK, "")
			var got []api.PaymentView
			r.Data(t, &got)
			if len(got) != tt.wantCount || (len(got) > 0 && dollars(got[0].Amount) != tt.wantFirst) {
				t.Fatalf("got %+v, want %d payments starting with %v", got, tt.wantCount, tt.wantFirst)
			}
			hasPage := r.Body.Meta != nil && r.Body.Meta.Page != nil
			if hasPage != tt.wantPaging {
				t.Fatalf("meta.page present = %v, want %v; body %s", hasPage, tt.wantPaging, r.Raw)
			}
			if hasPage && r.Body.Meta.Page.Total != 7 {
				t.Fatalf("meta.page.total = %d, want 7", r.Body.Meta.Page.Total)
			}
		})
	}
	var got []api.PaymentView
	e.do(t, request{Path: "/account/payments", Key: other.APIKey}).Data(t, &got)
	if len(got) != 1 || dollars(got[0].Amount) != 5 {
		t.Fatalf("other account sees %+v, want its own single payment", got)
	}
}

func contains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }
