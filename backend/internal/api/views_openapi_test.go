package api_test

import (
	"reflect"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/openapicheck"
)

// views pairs every exported view with its component schema. Nested views (PriceView in
// PlanView, CredentialsView in InstanceDetailView...) are checked inside their parents. The
// backend's tests decode answers into these views, so holding them to the document both ways
// keeps a test from reading a field the API does not send.
var views = []struct {
	typ    reflect.Type
	schema string
}{
	{reflect.TypeFor[api.HealthView](), "Health"},
	{reflect.TypeFor[api.DollarView](), "Dollar"},
	{reflect.TypeFor[api.AccountView](), "Account"},
	{reflect.TypeFor[api.BalanceView](), "Balance"},
	{reflect.TypeFor[api.PaymentView](), "Payment"},
	{reflect.TypeFor[api.WebhookView](), "WebhookSettings"},
	{reflect.TypeFor[api.WebhookTestView](), "WebhookTestResult"},
	{reflect.TypeFor[api.PlanView](), "Plan"},
	{reflect.TypeFor[api.DatacenterView](), "Datacenter"},
	{reflect.TypeFor[api.LocationView](), "Location"},
	{reflect.TypeFor[api.AppView](), "App"},
	{reflect.TypeFor[api.QuoteView](), "Quote"},
	{reflect.TypeFor[api.MetaView](), "Meta"},
	{reflect.TypeFor[api.OrderView](), "Order"},
	{reflect.TypeFor[api.InstanceSummaryView](), "InstanceSummary"},
	{reflect.TypeFor[api.InstanceDetailView](), "InstanceDetail"},
	{reflect.TypeFor[api.TrafficView](), "Traffic"},
	{reflect.TypeFor[api.CreatedOrderView](), "CreateInstanceResult"},
	{reflect.TypeFor[api.CanceledInstanceView](), "CancelInstanceResult"},
	{reflect.TypeFor[api.ActionResultView](), "ActionResult"},
	{reflect.TypeFor[api.ResizeOptionsView](), "ResizeOptions"},
	{reflect.TypeFor[api.InstanceAppsView](), "InstanceApps"},
	{reflect.TypeFor[api.InstalledAppsView](), "InstallAppsResult"},
	{reflect.TypeFor[api.SnapshotView](), "Snapshot"},
}

func TestViewsMatchOpenAPI(t *testing.T) {
	c, err := openapicheck.New()
	if err != nil {
		t.Fatal(err)
	}
	c.Encodes(reflect.TypeFor[money.Micros](), "number") // see TestViewsRoundTrip
	for _, v := range views {
		if err := c.Struct(v.typ, v.schema, openapicheck.Response); err != nil {
			t.Error(err)
		}
	}
	if err := c.Covered(".", reflect.TypeFor[api.MetaView]().PkgPath(), requestBodies); err != nil {
		t.Errorf("views left out of the check:\n%v", err)
	}
}

// requestBodies are the package's JSON types that are not views the tests decode, with why:
// the server reads requests, and the envelope and the probes are judged by other tests.
var requestBodies = map[string]string{
	"actionRequestJSON":         "request body, read by the server",
	"createInstanceRequestJSON": "request body, read by the server",
	"quoteRequestJSON":          "request body, read by the server",
	"webhookRequestJSON":        "request body, read by the server",
	"successBody":               "the envelope; apicall decodes it and the contract tests hold exchanges to it",
	"errorBody":                 "the envelope; apicall decodes it and the contract tests hold exchanges to it",
	"errorDetail":               "the envelope's error; apicall decodes it",
	"instanceSnapshotsMeta":     "meta of GET /instances/{id}/snapshots, not the Meta schema",
	"probeJSON":                 "the health probes' body, outside /api/v1",
}

// TestMoneyLimitsMatchOpenAPI: the largest accept_cost the document states is money.Max, the
// largest amount resellerd takes in (wire's TestLimitsMatchOpenAPI holds the other limits).
func TestMoneyLimitsMatchOpenAPI(t *testing.T) {
	c, err := openapicheck.New()
	if err != nil {
		t.Fatal(err)
	}
	err = c.Limits([]openapicheck.Limit{
		{Schema: "ActionRequest", Property: "accept_cost", Keyword: "maximum", Want: float64(money.Max / money.PerUSD)},
	})
	if err != nil {
		t.Error(err)
	}
}
