package api_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

// roundTrip encodes v as the server does and decodes it back into a new value of its type, as
// the backend's tests do; the views serve both, so the two must give back the same value.
func roundTrip[T any](t *testing.T, v T) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode %T: %v", v, err)
	}
	var got T
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("decode %T from %s: %v", v, b, err)
	}
	if !reflect.DeepEqual(got, v) {
		t.Fatalf("%T does not round-trip through %s:\ngot  %+v\nwant %+v", v, b, got, v)
	}
}

// TestViewsRoundTrip: money (micro-USD written as dollars, to the sixth decimal), negative
// amounts, nullable amounts and free-form results decode to what was encoded.
func TestViewsRoundTrip(t *testing.T) {
	fraction, debt := money.Micros(417), money.Micros(-3_500_001)
	t.Run("balance", func(t *testing.T) {
		hours := 12.5
		roundTrip(t, api.BalanceView{Balance: money.USD(10) + fraction, Debt: debt, Reserved: 1,
			Available: money.Max, HoursUntilBalanceZero: &hours, ActiveInstances: 2, PendingOrders: 1})
	})
	t.Run("instance detail", func(t *testing.T) {
		var v api.InstanceDetailView
		v.ID, v.Costs, v.PaidAmount, v.IPChangeCost, v.Recurring = 7, &fraction, &debt, money.USD(2), fraction*3
		v.Actions, v.ActiveFeatures = []string{"reboot"}, []string{"1"}
		roundTrip(t, v)
	})
	t.Run("action result", func(t *testing.T) {
		roundTrip(t, api.ActionResultView{Action: "resize", Success: true, Debt: &debt, Charged: &fraction})
	})
	t.Run("snapshot", func(t *testing.T) {
		size := 2.5
		roundTrip(t, api.SnapshotView{ID: 1, Name: "s", Status: "available", SizeGB: &size, Price: &fraction,
			PaidAmount: &debt, Features: []string{}})
	})
	t.Run("dollar", func(t *testing.T) {
		roundTrip(t, api.DollarView{Base: "USD", Currency: "IRR", Price: 1_234_567.5, UpdatedAt: "2026-01-01T00:00:00Z"})
	})
	t.Run("app installs", func(t *testing.T) {
		roundTrip(t, api.InstanceAppsView{ServerID: 1, Supported: true, Installs: []api.AppInstallView{
			{AppID: "wordpress", Result: map[string]any{"admin_url": "https://x/wp-admin"}}}})
	})
}
