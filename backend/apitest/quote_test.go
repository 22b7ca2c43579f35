package apitest

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

func TestQuote(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.account(t, 10_000) // 0.01 USD
	if _, _, err := e.database(t).PlaceOrder(context.Background(), store.Order{
		AccountID: a.ID, Status: store.OrderPending, Price: 2_000, CreatedAt: e.clock.Now(),
	}, nil); err != nil {
		t.Fatal(err)
	}
	// Available is 0.01 - 0.002 = 0.008.
	tests := []struct {
		name string
		body string
		want api.QuoteView
	}{
		{"plan only, term defaults to hourly", `{"server_id": 102}`,
			api.QuoteView{ServerID: 102, Term: "hourly", ActiveFeatures: []string{}, Cost: usd(0.008), Recurring: usd(0.008),
				Balance: usd(0.01), Reserved: usd(0.002), SufficientBalance: true}},
		{"windows forces IPv4", `{"server_id": 102, "template_id": 5}`,
			api.QuoteView{ServerID: 102, Term: "hourly", ActiveFeatures: []string{"1"}, Cost: usd(0.0094), Recurring: usd(0.0094),
				Balance: usd(0.01), Reserved: usd(0.002), Difference: usd(0.0014)}},
		{"forced feature already sent is not doubled", `{"server_id": 102, "term": "hourly", "template_id": 5, "active_features": ["2", "1", "2"]}`,
			api.QuoteView{ServerID: 102, Term: "hourly", ActiveFeatures: []string{"2", "1"}, Cost: usd(0.0104), Recurring: usd(0.0104),
				Balance: usd(0.01), Reserved: usd(0.002), Difference: usd(0.0024)}},
		{"linux forces nothing", `{"server_id": 102, "template_id": 1, "active_features": []}`,
			api.QuoteView{ServerID: 102, Term: "hourly", ActiveFeatures: []string{}, Cost: usd(0.008), Recurring: usd(0.008),
				Balance: usd(0.01), Reserved: usd(0.002), SufficientBalance: true}},
		{"creation fee on the first charge only", `{"server_id": 104, "template_id": null, "active_features": ["4"]}`,
			api.QuoteView{ServerID: 104, Term: "hourly", ActiveFeatures: []string{"4"}, Cost: usd(0.525), CreationFee: usd(0.5), Recurring: usd(0.025),
				Balance: usd(0.01), Reserved: usd(0.002), Difference: usd(0.517)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, request{Method: http.MethodPost, Path: "/quote", Key: a.APIKey, Body: tt.body})
			r.WantStatus(t, http.StatusOK, "")
			var got api.QuoteView
			r.Data(t, &got)
			if !quotesEqual(got, tt.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func quotesEqual(a, b api.QuoteView) bool {
	return a.ServerID == b.ServerID && a.Term == b.Term && slices.Equal(a.ActiveFeatures, b.ActiveFeatures) &&
		dollars(a.Cost) == dollars(b.Cost) && dollars(a.CreationFee) == dollars(b.CreationFee) && dollars(a.Recurring) == dollars(b.Recurring) && dollars(a.Balance) == dollars(b.Balance) &&
		dollars(a.Reserved) == dollars(b.Reserved) && a.SufficientBalance == b.SufficientBalance && dollars(a.Difference) == dollars(b.Difference)
}

func TestQuoteErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.account(t, 0).APIKey
	tests := []struct {
		name   string
		body   string
		status int
		code   string
		field  string // must appear in the message
	}{
		{"server_id missing", `{}`, 400, "validation_error", "server_id"},
		{"server_id null", `{"server_id": null}`, 400, "validation_error", "server_id"},
		{"server_id as string", `{"server_id": "101"}`, 400, "validation_error", "server_id"},
		{"server_id fractional", `{"server_id": 1.5}`, 400, "validation_error", "server_id"},
		{"unknown server", `{"server_id": 999}`, 404, "not_found", ""},
		{"closed datacenter", `{"server_id": 401}`, 403, "forbidden", ""},
		{"monthly term", `{"server_id": 101, "term": "monthly"}`, 400, "validation_error", "term"},
		{"empty term", `{"server_id": 101, "term": ""}`, 400, "validation_error", "term"},
		{"template not in plan", `{"server_id": 101, "template_id": 5}`, 400, "validation_error", "template_id"},
		{"unknown template", `{"server_id": 101, "template_id": 999}`, 400, "validation_error", "template_id"},
		{"feature not in plan", `{"server_id": 104, "active_features": ["3"]}`, 400, "validation_error", "active_features"},
		{"feature not a number", `{"server_id": 101, "active_features": ["ipv4"]}`, 400, "validation_error", "active_features"},
		{"feature ids as numbers", `{"server_id": 101, "active_features": [1]}`, 400, "validation_error", "active_features"},
		{"unknown field", `{"server_id": 101, "coupon": "X"}`, 400, "validation_error", "coupon"},
		{"malformed JSON", `{"server_id": `, 400, "validation_error", "body"},
		{"not an object", `[101]`, 400, "validation_error", "body"},
		{"empty body", ``, 400, "validation_error", "body"},
		{"two objects", `{"server_id": 101} {}`, 400, "validation_error", "body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, request{Method: http.MethodPost, Path: "/quote", Key: key, Body: tt.body,
				// The validator cannot parse a body that is not JSON; the answer is still checked by hand.
				SkipContract: tt.body == "" || tt.name == "malformed JSON" || tt.name == "two objects"})
			r.WantStatus(t, tt.status, tt.code)
			if tt.field != "" && !strings.Contains(r.Body.Error.Message, tt.field) {
				t.Fatalf("message %q does not name %q", r.Body.Error.Message, tt.field)
			}
		})
	}
	t.Run("oversized body", func(t *testing.T) {
		body := `{"server_id": 101, "active_features": ["` + strings.Repeat("1", 1<<20) + `"]}`
		r := e.do(t, request{Method: http.MethodPost, Path: "/quote", Key: key, Body: body})
		r.WantStatus(t, http.StatusRequestEntityTooLarge, "validation_error")
		if !strings.Contains(r.Body.Error.Message, "body") {
			t.Fatalf("message %q does not name body", r.Body.Error.Message)
		}
	})
}
